import { type AgentConfig, SETTING_KEYS } from '@svc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { type RecordingProxy, startRecordingProxy } from '../../test/recording-proxy.js';
import { computePlan, summary } from '../plan/diff.js';
import { readServerState } from '../plan/state.js';
import type { DesiredState } from '../plan/types.js';
import { createClient } from '../session/client.js';
import { executePlan } from './execute.js';

const unset = Object.fromEntries(SETTING_KEYS.map((k) => [k, null])) as AgentConfig;
const desired: DesiredState = {
  agents: Array.from({ length: 5 }, (_, i) => ({
    agentId: `agent-${i}`,
    name: `Agent ${i}`,
    description: '',
    config: { ...unset, 'SOUL.md': `soul ${i}` },
    platforms: [],
    providers: [],
  })),
  entityTypes: [{ slug: 'person', name: 'Person' }],
  relationshipTypes: [],
  watchers: [],
};

let server: TestServer;
let token: string;
let proxy: RecordingProxy;
beforeAll(async () => {
  server = await startTestServer();
  token = (await createToken(server, 'default', ['write'])).secret;
  proxy = await startRecordingProxy(server.url);
});
afterAll(() => proxy.close());

describe('applying a plan', () => {
  it('stops at a failed write, says what was done and what was not attempted, and a re-run converges', async () => {
    const flaky = createClient(proxy.url, token);
    proxy.failWriteAt(3);
    const plan = computePlan('default', desired, await readServerState(flaky, 'default'));
    const outcome = await executePlan(plan, flaky, { concurrency: 1 });
    expect(outcome.done.map((d) => d.row.id)).toEqual(['agent-0', 'agent-1']);
    expect(outcome.failed.map((f) => [f.row.id, f.error.message])).toEqual([
      ['agent-2', 'POST /api/default/agents: disk full (internal_error)'],
    ]);
    // The agents step stopped; settings and entity types were never sent.
    expect(outcome.notAttempted.map((r) => `${r.kind} ${r.id}`)).toEqual([
      'agent agent-3',
      'agent agent-4',
      ...desired.agents.map((a) => `settings ${a.agentId}`),
      'entity_type person',
    ]);

    proxy.failWriteAt(0);
    const direct = createClient(server.url, token);
    const again = computePlan('default', desired, await readServerState(direct, 'default'));
    expect(summary(again)).toEqual({ create: 7, update: 2, noop: 2, drift: 0 });
    const second = await executePlan(again, direct, { concurrency: 8 });
    expect(second.failed).toEqual([]);
    const final = computePlan('default', desired, await readServerState(direct, 'default'));
    expect(final.rows.every((r) => r.verb === 'noop')).toBe(true);
  });

  it('runs a step with bounded concurrency and reports each result as it lands', async () => {
    const many: DesiredState = {
      ...desired,
      agents: Array.from({ length: 20 }, (_, i) => ({ ...desired.agents[0]!, agentId: `bulk-${i}` })),
    };
    const direct = createClient(server.url, token);
    const seen: string[] = [];
    const outcome = await executePlan(
      computePlan('default', many, await readServerState(direct, 'default')),
      direct,
      {
        concurrency: 4,
        onResult: (r) => seen.push(`${r.row.kind} ${r.result}`),
      },
    );
    expect(outcome.failed).toEqual([]);
    expect(seen.filter((s) => s === 'agent created')).toHaveLength(20);
    expect(seen.filter((s) => s === 'settings updated')).toHaveLength(20);
    // Every agent landed before the first setting was sent.
    expect(seen.findIndex((s) => s.startsWith('settings'))).toBe(20);
  });
});
