import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { applyInProcess } from '../../test/apply-in-process.js';
import { fixture, runImport } from './test/run-import.js';

/**
 * End to end: a Lobu project converted by `svc import lobu` is applied to a real server with the
 * secrets its report asks for, and converges: the next plan changes nothing (--detailed-exitcode 0).
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

async function applyConverted(name: string, org: string) {
  const dir = await fixture(name);
  const run = await runImport({ dir, json: true });
  expect(run.code, run.out + run.err).toBe(0);
  const out = `${dir}-svc`;
  // The variables the report's steps name, set as the user would (values are only checked for presence).
  const secrets: Record<string, string> = {};
  for (const step of run.json?.steps ?? []) {
    const match = /svc secrets set ([A-Z0-9_]+)$/.exec(step.command ?? '');
    if (match) secrets[match[1] as string] = `value-of-${match[1]}`;
  }
  expect((await server.call('POST', '/api/orgs', { body: { slug: org } })).status).toBe(201);
  const token = (await createToken(server, org, ['write'])).secret;
  const env = { SVC_API_TOKEN: token, SVC_URL: server.url, XDG_CONFIG_HOME: out, ...secrets };
  const applied = await applyInProcess(out, { org, yes: true }, env);
  expect(applied.code, applied.out + applied.err).toBe(0);
  const plan = await applyInProcess(out, { org, dryRun: true, detailedExitcode: true }, env);
  expect(plan.code, plan.out + plan.err).toBe(0);
  return { applied, plan, secrets };
}

describe('svc import lobu: a converted project applies and converges', () => {
  it('careops ([[connections]], [[schedules]], [memory.owletto], v1 models)', async () => {
    const { applied, secrets } = await applyConverted('careops-connections', 'lobu-careops');
    expect(Object.keys(secrets).sort()).toEqual([
      'GEMINI_API_KEY',
      'OPENAI_API_KEY',
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
    ]);
    expect(applied.out).toContain('create');
    expect(applied.out).toContain('morning-standup');
  });

  it('lobu-crm ([[platforms]] of three kinds, tools, [memory] with connectors, v1 and v2 models)', async () => {
    const { applied } = await applyConverted('lobu-crm-platforms', 'lobu-crm');
    expect(applied.out).toContain('crm-messenger-whatsapp');
    expect(applied.out).toContain('founder-activity-tracker');
  });

  it('customer-support ([agents.x.platforms.<type>] tables, skills.enabled, folder ".")', async () => {
    await applyConverted('customer-support-tables', 'lobu-support');
  });
});
