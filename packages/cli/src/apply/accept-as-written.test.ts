/**
 * Against a real server: the server's own setting refusals found at plan time, and a project
 * written with aliases converging to the same state as the one written with svc's names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { applyInProcess } from '../../test/apply-in-process.js';
import { type RecordingProxy, startRecordingProxy } from '../../test/recording-proxy.js';
import { dedent, writeProject } from '../project/test/fixture.js';
import type { ApplyFlags } from './command.js';

let server: TestServer;
let proxy: RecordingProxy;
let token: string;
beforeAll(async () => {
  // `svc server`'s defaults: no internal address allowed, no stdio MCP server.
  server = await startTestServer({ egressAllow: '' });
  proxy = await startRecordingProxy(server.url);
  token = (await createToken(server, 'default', ['write'])).secret;
});
afterAll(() => proxy.close());

const ENV = { S: 'secret-value', B: 'bot-value' };

async function apply(dir: string, flags: Partial<ApplyFlags>, bearer = token) {
  return applyInProcess(dir, flags, {
    SVC_API_TOKEN: bearer,
    SVC_URL: proxy.url,
    XDG_CONFIG_HOME: dir,
    ...ENV,
  });
}

const REFUSED = dedent(`
  [agents.fine]
  name = "Fine"

  [agents.support]
  name = "Support"

  [agents.support.egress]
  mode = "proxy"
  proxy_url = "http://10.1.2.3:3128"

  [agents.support.skills.mcp.files]
  command = "npx"
  args = ["-y", "files-mcp"]

  [agents.support.skills.mcp.local]
  url = "http://192.168.1.20:9000/mcp"
`);

describe("the server's setting refusals, at plan time", () => {
  it('stop svc apply --yes before any write, each at its svc.toml line, exit 1', async () => {
    const dir = await writeProject({ 'svc.toml': REFUSED });
    const writes = proxy.writes().length;
    const run = await apply(dir, { yes: true });
    expect(run.code).toBe(1);
    const lines = run.err.split('\n');
    expect(lines[0]).toBe(
      'svc.toml:9:13: agents.support.egress.proxy_url: 10.1.2.3 is a private address, which this server does not connect to; add 10.1.2.3 to SVC_EGRESS_ALLOW on the server to allow it (the server refuses it (setting_refused))',
    );
    expect(lines[1]).toMatch(
      /^svc\.toml:12:11: agents\.support\.skills\.mcp\.files\.command: this server runs no stdio MCP servers \(SVC_MCP_COMMANDS is unset\): set SVC_MCP_COMMANDS=npx/,
    );
    expect(lines[2]).toMatch(
      /^svc\.toml:16:7: agents\.support\.skills\.mcp\.local\.url: 192\.168\.1\.20 is a private address/,
    );
    expect(lines.slice(3)).toEqual(['svc apply: fix the 3 problems above; nothing was changed']);
    // No plan was shown, nothing was written: not even the agent that had no problem.
    expect(run.out).toBe('');
    expect(proxy.writes().length).toBe(writes);
    const agents = (await server.call('GET', '/api/default/agents')).body.agents;
    expect(agents.map((a: { agentId: string }) => a.agentId)).not.toContain('fine');
  });

  it('fail a plan (--dry-run) and an apply without --yes the same way, before any prompt', async () => {
    const dir = await writeProject({ 'svc.toml': REFUSED });
    for (const flags of [{ dryRun: true, detailedExitcode: true }, {}]) {
      const run = await apply(dir, flags);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/^svc\.toml:9:13: agents\.support\.egress\.proxy_url: /);
      expect(run.err).not.toMatch(/--yes/);
    }
  });

  it('are checked for settings that change only; a read-only plan is shown unchecked, with a warning', async () => {
    const dir = await writeProject({ 'svc.toml': '[agents.quiet]\nname = "Quiet"\n' });
    expect((await apply(dir, { yes: true })).code).toBe(0);
    const before = proxy.requests.length;
    const again = await apply(dir, { dryRun: true, detailedExitcode: true });
    expect(again.code).toBe(0);
    // Nothing changes: no check is asked for.
    expect(proxy.requests.slice(before).filter((r) => r.url.endsWith('/config/check'))).toEqual([]);

    const reader = (await createToken(server, 'default', ['read'])).secret;
    const refused = await writeProject({ 'svc.toml': REFUSED });
    const plan = await apply(refused, { dryRun: true }, reader);
    expect(plan.code).toBe(0);
    expect(plan.err).toMatch(/^warning: the settings were not checked against the server's policy \(/);
    expect(plan.out).toMatch(/\+ create support/);
  });
});

/** One project in svc's names and in the names people bring; `id` keeps stable IDs apart. */
const canonical = (id: string) =>
  dedent(`
    [agents.${id}.network]
    allowed_domains = ["api.example.com", "*.example.org"]
    denied_domains = ["evil.example.com"]

    [[agents.${id}.platforms]]
    type = "team_chat"
    config = { signing_secret = "$S", bot_token = "$B" }

    [[agents.${id}.platforms]]
    type = "messenger"
    name = "tg"
    config = { bot_token = "$B", secret_token = "$S" }

    [[agents.${id}.platforms]]
    type = "messenger"
    name = "wa"
    config = { flavor = "whatsapp", access_token = "$B", app_secret = "$S", verify_token = "$S", phone_number_id = "1065" }

    [memory]
    models = ["models/a.yaml", "models/b.yml"]
  `);
const aliased = (id: string) =>
  dedent(`
    [agents.${id}.network]
    allowed = ["api.example.com", ".example.org"]
    denied = ["evil.example.com"]

    [[agents.${id}.platforms]]
    type = "slack"
    config = { signing_secret = "$S", bot_token = "$B" }

    [[agents.${id}.platforms]]
    type = "telegram"
    name = "tg"
    config = { bot_token = "$B", secret_token = "$S" }

    [[agents.${id}.platforms]]
    type = "whatsapp"
    name = "wa"
    config = { access_token = "$B", app_secret = "$S", verify_token = "$S", phone_number_id = "1065" }

    [memory]
    models = "models"
  `);
const MODELS = {
  'models/a.yaml': 'version: 2\nentities:\n  - slug: alias-person\n    name: Person\n',
  'models/b.yml': 'version: 2\nentities:\n  - slug: alias-company\n    name: Company\n',
};

describe('a project written with aliases', () => {
  for (const [first, second, id] of [
    [canonical, aliased, 'conv-a'],
    [aliased, canonical, 'conv-b'],
  ] as const) {
    it(`converges with the one in svc's names (${id}): the other's plan is all noop`, async () => {
      const one = await writeProject({ 'svc.toml': first(id), ...MODELS });
      const applied = await apply(one, { yes: true });
      expect(applied.code, applied.err).toBe(0);
      expect(applied.out).toContain(`created platform ${id}-messenger-wa`);

      const other = await writeProject({ 'svc.toml': second(id), ...MODELS });
      const plan = await apply(other, { dryRun: true, detailedExitcode: true });
      expect(plan.code, plan.out).toBe(0);
      const rows = plan.out.split('\n').filter((line) => /^ {2}[+~=?] /.test(line));
      const ours = rows.filter((line) => line.includes(id) || line.includes('alias-'));
      expect(ours.length, plan.out).toBe(7); // agent, settings, three platforms, two entity types
      for (const row of ours) expect(row).toMatch(/^ {2}= noop/);
      expect(plan.out).toMatch(/Plan: 0 to create, 0 to update, /);
    });
  }
});
