import { type AgentConfig, SETTING_KEYS } from '@svc/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { createClient } from '../session/client.js';
import { computePlan, summary } from './diff.js';
import { planJson, renderPlan } from './render.js';
import { readServerState } from './state.js';
import type { DesiredState, Plan } from './types.js';

const unset = Object.fromEntries(SETTING_KEYS.map((k) => [k, null])) as AgentConfig;

function project(): DesiredState {
  return {
    agents: [
      {
        agentId: 'support',
        name: 'Support',
        description: 'Answers customers',
        config: {
          ...unset,
          'SOUL.md': 'Be kind.\nBe brief.\n',
          networkConfig: { allowedDomains: ['api.example.com'] },
          modelSelection: { mode: 'auto' },
        },
        platforms: [
          {
            stableId: 'support-team-chat',
            type: 'team_chat',
            name: null,
            config: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_TOKEN' },
          },
        ],
        providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
      },
      { agentId: 'ops', name: 'Ops', description: '', config: unset, platforms: [], providers: [] },
    ],
    entityTypes: [{ slug: 'person', name: 'Person' }],
    relationshipTypes: [{ slug: 'knows', name: 'Knows', description: 'acquaintance' }],
    watchers: [
      { slug: 'daily', name: 'Daily', schedule: '0 9 * * *', prompt: 'Summarise', agent: 'support' },
    ],
  };
}

let server: TestServer;
let client: ReturnType<typeof createClient>;
beforeAll(async () => {
  server = await startTestServer();
  client = createClient(server.url, (await createToken(server, 'default', ['write'])).secret);
});

const plan = async (desired: DesiredState) =>
  computePlan('default', desired, await readServerState(client, 'default'));

/** Sends each row's request in order, as `svc apply` does; answers the results. */
async function apply(p: Plan): Promise<string[]> {
  const results: string[] = [];
  for (const row of p.rows) {
    if (!row.request) continue;
    const answer = await client.request<{ result: string }>(
      row.request.method,
      row.request.path,
      row.request.body,
    );
    results.push(`${row.kind} ${row.id} ${answer.result}`);
  }
  return results;
}

const verbs = (p: Plan) => p.rows.map((r) => `${r.verb} ${r.kind} ${r.id}`);

describe('plans against a real server', () => {
  it('creates everything, then converges: a second plan is all noop and sends no write', async () => {
    const first = await plan(project());
    expect(summary(first)).toEqual({ create: 7, update: 0, noop: 0, drift: 0 });
    expect(await apply(first)).toEqual([
      'agent support created',
      'agent ops created',
      'settings support updated',
      'platform support-team-chat created',
      'entity_type person created',
      'relationship_type knows created',
      'watcher daily created',
    ]);
    const before = client.requests;
    const second = await plan(project());
    expect(client.requests - before).toBe(2); // the whole state, in two reads
    expect(second.rows.every((r) => r.verb === 'noop' && !r.request)).toBe(true);
    expect(await apply(second)).toEqual([]);
  });

  it('updates exactly the row whose field changed', async () => {
    const desired = project();
    const support = desired.agents[0]!;
    support.description = 'Answers customers fast';
    support.platforms[0]!.config = { ...support.platforms[0]!.config, channel: 'C123' };
    desired.watchers[0]!.schedule = '30 9 * * 1-5';
    const p = await plan(desired);
    expect(
      p.rows
        .filter((r) => r.verb !== 'noop')
        .map((r) => `${r.kind} ${r.id} ${r.changes.map((c) => c.field)}`),
    ).toEqual(['agent support description', 'platform support-team-chat config', 'watcher daily schedule']);
    expect(p.rows.find((r) => r.kind === 'platform')?.restartsWorker).toBe(true);
    await apply(p);
    expect(summary(await plan(desired)).update).toBe(0);
  });

  it('clears SOUL.md when its file is gone, and sends only that setting', async () => {
    const desired = project();
    desired.agents[0]!.description = 'Answers customers fast';
    desired.agents[0]!.platforms[0]!.config = {
      ...desired.agents[0]!.platforms[0]!.config,
      channel: 'C123',
    };
    desired.watchers[0]!.schedule = '30 9 * * 1-5';
    desired.agents[0]!.config['SOUL.md'] = null;
    const p = await plan(desired);
    const settings = p.rows.find((r) => r.kind === 'settings' && r.id === 'support');
    expect(settings?.verb).toBe('update');
    expect(settings?.request?.body).toEqual({ 'SOUL.md': null });
    await apply(p);
    const { agent } = await client.request<{ agent: { config: AgentConfig } }>(
      'GET',
      '/api/default/agents/support?include=config',
    );
    expect(agent.config['SOUL.md']).toBeNull();
    expect(agent.config.networkConfig).toEqual({ allowedDomains: ['api.example.com'] });
  });

  it('reports what the server has and the files do not as drift, and deletes nothing', async () => {
    const desired = project();
    desired.agents = desired.agents.filter((a) => a.agentId !== 'ops');
    desired.entityTypes = [];
    const p = await plan(desired);
    expect(verbs(p)).toContain('drift agent ops');
    expect(verbs(p)).toContain('drift entity_type person');
    expect(p.rows.filter((r) => r.verb === 'drift').every((r) => !r.request)).toBe(true);
    await apply(p);
    expect((await client.request<{ agent: unknown }>('GET', '/api/default/agents/ops')).agent).toBeTruthy();
  });

  it('restricts itself with --only', async () => {
    const agentsOnly = computePlan('default', project(), await readServerState(client, 'default'), 'agents');
    expect(new Set(agentsOnly.rows.map((r) => r.kind))).toEqual(new Set(['agent', 'settings', 'platform']));
    const memoryOnly = computePlan('default', project(), await readServerState(client, 'default'), 'memory');
    expect(new Set(memoryOnly.rows.map((r) => r.kind))).toEqual(
      new Set(['entity_type', 'relationship_type', 'watcher']),
    );
  });
});

describe('rendering', () => {
  const sample: Plan = {
    org: 'default',
    rows: [
      { kind: 'agent', id: 'support', verb: 'create', changes: [] },
      {
        kind: 'agent',
        id: 'ops',
        verb: 'update',
        changes: [{ field: 'name', before: 'Ops', after: 'Operations' }],
      },
      { kind: 'agent', id: 'legacy', verb: 'drift', changes: [] },
      {
        kind: 'settings',
        id: 'ops',
        verb: 'update',
        changes: [
          { field: 'SOUL.md', before: 'Be kind.\nBe brief.\n', after: 'Be kind.\nBe exact.\n' },
          { field: 'modelSelection', before: null, after: { mode: 'pinned', model: 'openai/gpt-4.1' } },
        ],
      },
      { kind: 'settings', id: 'support', verb: 'noop', changes: [] },
      {
        kind: 'platform',
        id: 'ops-messenger',
        verb: 'update',
        changes: [{ field: 'config', before: { token: '$TG' }, after: { token: '$TG_BOT' } }],
        restartsWorker: true,
      },
      { kind: 'entity_type', id: 'person', verb: 'create', changes: [] },
      { kind: 'entity_type', id: 'legacy-type', verb: 'drift', changes: [] },
      {
        kind: 'relationship_type',
        id: 'knows',
        verb: 'update',
        changes: [{ field: 'description', before: null, after: 'acquaintance' }],
      },
      {
        kind: 'watcher',
        id: 'daily',
        verb: 'update',
        changes: [{ field: 'schedule', before: '0 9 * * *', after: '30 9 * * 1-5' }],
      },
      { kind: 'watcher', id: 'weekly', verb: 'noop', changes: [] },
    ],
  };

  it('prints every row kind, the Markdown diff, the restart warning and the summary', () => {
    expect(renderPlan(sample, { color: false })).toEqual([
      'Plan for org default:',
      '',
      'Agents',
      '  + create support',
      '  ~ update ops',
      '      name: "Ops" -> "Operations"',
      '  ? drift  legacy  on the server, not in the project: left as it is',
      '',
      'Settings',
      '  ~ update ops',
      '      SOUL.md changed',
      '        @@ -1,2 +1,2 @@',
      '         Be kind.',
      '        -Be brief.',
      '        +Be exact.',
      '      modelSelection: (unset) -> {"mode":"pinned","model":"openai/gpt-4.1"}',
      '  = noop   support',
      '',
      'Platforms',
      '  ~ update ops-messenger',
      '      config: {"token":"$TG"} -> {"token":"$TG_BOT"}',
      '      ! the live platform worker restarts: its connection drops for a moment',
      '',
      'Entity types',
      '  + create person',
      '  ? drift  legacy-type  on the server, not in the project: left as it is',
      '',
      'Relationship types',
      '  ~ update knows',
      '      description: (unset) -> "acquaintance"',
      '',
      'Watchers',
      '  ~ update daily',
      '      schedule: "0 9 * * *" -> "30 9 * * 1-5"',
      '  = noop   weekly',
      '',
      'Plan: 2 to create, 5 to update, 2 unchanged, 2 drift (never deleted).',
    ]);
  });

  it('shows a change past the preview cut: both sides start just before the first difference', () => {
    const head = 'x'.repeat(80);
    const plan: Plan = {
      org: 'default',
      rows: [
        {
          kind: 'agent',
          id: 'ops',
          verb: 'update',
          changes: [{ field: 'description', before: `${head} old tail`, after: `${head} new tail` }],
        },
      ],
    };
    const line = renderPlan(plan, { color: false }).find((l) => l.includes('description:')) ?? '';
    expect(line).toBe(`      description: …${'x'.repeat(19)} old tail" -> …${'x'.repeat(19)} new tail"`);
  });

  it('colours only when asked', () => {
    const ESC = '\u001b[';
    expect(renderPlan(sample, { color: false }).join('\n')).not.toContain(ESC);
    expect(renderPlan(sample, { color: true }).join('\n')).toContain(ESC);
  });

  it('has a machine-readable form with a format version', () => {
    const json = planJson(sample);
    expect(json.format_version).toBe(1);
    expect(json.summary).toEqual({ create: 2, update: 5, noop: 2, drift: 2 });
    expect(json.rows).toHaveLength(11);
    expect(json.rows[6]).toEqual({ kind: 'entity_type', id: 'person', verb: 'create', changes: [] });
    expect(json.rows[5]).toEqual({
      kind: 'platform',
      id: 'ops-messenger',
      verb: 'update',
      changes: [{ field: 'config', before: { token: '$TG' }, after: { token: '$TG_BOT' } }],
      restarts_worker: true,
    });
  });
});
