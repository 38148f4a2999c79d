import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTurns } from '../../../test/agent-turns.js';
import {
  type FakeChatCompletions,
  type RecordedRequest,
  startFakeChatCompletions,
} from '../../../test/fakes/chat-completions.js';
import { type FakeMcpUpstream, startFakeMcpUpstream } from '../../../test/fakes/mcp-upstream.js';
import { type FakeOAuth, startFakeOAuth } from '../../../test/fakes/oauth.js';
import { startTestServer, type TestServer } from '../../../test/harness.js';
import { startTestRunWorkers } from '../../../test/runtime.js';
import type { RunWorkers } from '../../runs/worker.js';

/**
 * A connector without code over MCP, end to end (issue 22): a real MCP server (the MCP SDK's, over
 * HTTP on 127.0.0.1) with a read-only tool and a destructive one. The definition installs; the
 * tools become actions carrying their annotations; an agent calls the read-only one at once and
 * the destructive one after a person approves; the server gets the connection's OAuth token (or
 * its env_keys field, as the header the definition maps it to), and neither ever shows up in the
 * run's logs, the agent's answer or the tool's result. A tool the server stops offering stops
 * being offered to agents once the connector is refreshed.
 */

let llm: FakeChatCompletions;
let server: TestServer;
let workers: RunWorkers;
let oauth: FakeOAuth;
/** Takes only a live token the fake OAuth provider issued, for anything. */
let hub: FakeMcpUpstream;
/** Lists its tools to anyone; a tool call needs the API key in `X-Api-Key`. */
let keyed: FakeMcpUpstream;
const API_KEY = `key-${randomBytes(12).toString('hex')}`;
let hubConnectionId: number;
let keyedConnectionId: number;
/** The server's own log, for what went wrong and for the canaries. */
const logged: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    logged.push(String(chunk));
    if (process.env.MCP_TEST_DEBUG) process.stderr.write(chunk);
    done();
  },
});

const offered = (request: RecordedRequest | undefined) =>
  (request?.body.tools ?? [])
    .map((t) => t.function.name)
    .filter((name) => !name.startsWith('memory_'))
    .sort();
/** The tool results the model got in the turn's last request. */
const toolResultsOf = (request: RecordedRequest | undefined) =>
  (request?.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

/** The access tokens the fake provider issued (refresh tokens are `rt-…`). */
const accessTokens = () => oauth.issued().filter((token) => token.startsWith('at-'));
const bearerOf = (headers: { authorization?: string | undefined }) =>
  headers.authorization?.startsWith('Bearer ') ? headers.authorization.slice(7) : null;

/** The hub refuses every token, as after a revocation on its side. */
let refuseEveryToken = false;

beforeAll(async () => {
  llm = await startFakeChatCompletions();
  oauth = await startFakeOAuth({ tokenEndpointAuthMethod: 'client_secret_post' });
  hub = await startFakeMcpUpstream({
    authorized: (headers) => {
      if (refuseEveryToken) return false;
      const token = bearerOf(headers);
      return token !== null && accessTokens().includes(token);
    },
  });
  keyed = await startFakeMcpUpstream({
    authorized: (headers, methods) => !methods.includes('tools/call') || headers['x-api-key'] === API_KEY,
  });
  server = await startTestServer({
    connectorSourceInstalls: true,
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'sk-mcp' },
    workers: { approvalTtlMs: 60_000 },
    logger: pino({ level: 'info' }, sink),
  });
  workers = await startTestRunWorkers(server, {
    leaseMs: 10_000,
    limits: { timeoutMs: 30_000, memoryMb: 256 },
  });
}, 60_000);

afterAll(async () => {
  await workers?.close(1000);
  await Promise.all([hub?.close(), keyed?.close(), oauth?.close()]);
});

const { agent, calling, send, until } = agentTurns(
  () => server,
  () => llm,
);

const actionRuns = async (connectorKey: string, actionKey: string) =>
  (
    await server.pool.query(
      `SELECT r.* FROM runs r JOIN connections c ON c.id = r.connection_id
        WHERE r.run_type = 'action' AND c.connector_key = $1 AND r.action_key = $2 ORDER BY r.id`,
      [connectorKey, actionKey],
    )
  ).rows;

/** Everything a person or the model may read of a run: its API record and its log lines. */
async function shownOfRun(runId: string): Promise<string> {
  const run = await server.call('GET', `/api/default/runs/${runId}`);
  expect(run.status).toBe(200);
  const logs = await server.call('GET', `/api/default/runs/${runId}/logs`);
  expect(logs.status).toBe(200);
  return JSON.stringify([run.body, logs.body]);
}

const connector = async (key: string) => {
  const res = await server.call('GET', `/api/default/connectors/${key}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.connector;
};

describe('an MCP server as a connector without code, with OAuth', () => {
  it('installs with no actions while the server wants a token, and says so', async () => {
    const installed = await server.call('POST', '/api/default/connectors', {
      body: {
        definition: {
          key: 'mcphub',
          name: 'MCP hub',
          version: '1.0.0',
          authSchema: {
            methods: [
              {
                type: 'oauth',
                provider: 'mcp-hub',
                requiredScopes: ['tools'],
                authorizationUrl: `${oauth.url}/authorize`,
                tokenUrl: `${oauth.url}/token`,
                userinfoUrl: `${oauth.url}/userinfo`,
              },
            ],
          },
          mcpConfig: { upstreamUrl: hub.url },
        },
      },
    });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    expect(installed.body.connector.definition.actions ?? {}).toEqual({});
    expect(installed.body.connector.generated).toMatchObject({ kind: 'mcp', skipped: [] });
    expect(installed.body.connector.generated.warning).toMatch(/answered 401 .*without credentials/);
    // It asked without credentials: nothing got past the server's door.
    expect(hub.refused.length).toBeGreaterThan(0);
    expect(hub.refused.every((r) => r.headers.authorization === undefined)).toBe(true);
    expect(hub.requests).toEqual([]);
  }, 60_000);

  it("reads the server's tools when the OAuth connection is made, with the token the provider issued", async () => {
    await server.call('PUT', '/api/default/secrets/MCP_HUB_CLIENT_ID', {
      body: { value: oauth.settings.clientId },
    });
    await server.call('PUT', '/api/default/secrets/MCP_HUB_CLIENT_SECRET', {
      body: { value: oauth.settings.clientSecret },
    });
    const made = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'mcphub', displayName: 'Hub' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    hubConnectionId = Number(made.body.connection.id);
    const started = await server.call('POST', `/api/default/connections/${hubConnectionId}/oauth/start`, {
      body: {},
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const landed = await fetch(await oauth.consent(started.body.authorizationUrl));
    expect(landed.status).toBe(200);
    expect(await landed.text()).toContain('Connected to MCP hub');
    const connection = (await server.call('GET', `/api/default/connections/${hubConnectionId}`)).body
      .connection;
    expect(connection.status).toBe('active');

    // Connecting read the tools again, with the connection's token as a bearer.
    const [token] = accessTokens();
    expect(token).toBeDefined();
    expect(hub.requests.some((r) => r.methods.includes('tools/list'))).toBe(true);
    expect(hub.requests.every((r) => r.headers.authorization === `Bearer ${token}`)).toBe(true);

    const { definition, generated } = await connector('mcphub');
    expect(generated.warning).toBeNull();
    expect(Object.keys(definition.actions).sort()).toEqual(['delete_item', 'search']);
    // Read-only (and not destructive): no approval; the hints the server gave are kept.
    expect(definition.actions.search).toMatchObject({
      key: 'search',
      name: 'Search the catalogue',
      description: 'Finds items by a word',
      requiresApproval: false,
      inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
    });
    expect(definition.actions.search.annotations).toEqual({
      destructiveHint: false,
      openWorldHint: true,
      idempotentHint: true,
    });
    expect(definition.actions.delete_item).toMatchObject({ key: 'delete_item', requiresApproval: true });
    expect(definition.actions.delete_item.annotations).toEqual({
      destructiveHint: true,
      openWorldHint: false,
      idempotentHint: false,
    });

    // A refresh with nothing new changes nothing.
    const again = await server.call('POST', '/api/default/connectors/mcphub/refresh', { body: {} });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ result: 'unchanged', added: [], removed: [] });
  }, 60_000);

  it('lets an agent call the read-only tool at once; the server gets the token, nobody sees it', async () => {
    await agent('reader');
    const before = llm.requests.length;
    const calls = hub.calls.length;
    calling('mcphub__search', { query: 'lamp' });
    const res = await send('reader', 'find me a lamp');
    expect(res.body.status, JSON.stringify(res.body)).toBe('completed');
    expect(offered(llm.requests[before])).toEqual(['mcphub__delete_item', 'mcphub__search']);

    const [run] = await actionRuns('mcphub', 'search');
    expect(run).toMatchObject({
      connection_id: String(hubConnectionId),
      approval_status: 'auto',
      status: 'completed',
      action_input: { query: 'lamp' },
      action_output: { hits: ['lamp-1', 'lamp-2'] },
    });
    expect(hub.calls.slice(calls)).toEqual([
      { tool: 'search', input: { query: 'lamp' }, headers: expect.any(Object) },
    ]);
    const [token] = accessTokens();
    expect(hub.calls.at(-1)?.headers.authorization).toBe(`Bearer ${token}`);

    const results = toolResultsOf(llm.requests.at(-1));
    expect(results).toHaveLength(1);
    expect(JSON.parse(results[0] as string)).toEqual({
      success: true,
      output: { hits: ['lamp-1', 'lamp-2'] },
      runId: Number(run.id),
    });
    expect(res.body.reply).toContain('lamp-1');
    const shown = [await shownOfRun(run.id), JSON.stringify(res.body), ...results].join('\n');
    for (const secret of oauth.issued()) expect(shown).not.toContain(secret);
  }, 60_000);

  it('runs the destructive tool only after a person approves it', async () => {
    await agent('cleaner');
    calling('mcphub__delete_item', { id: 'item-7' });
    const paused = await send('cleaner', 'delete item 7');
    expect(paused.body.status, JSON.stringify(paused.body)).toBe('awaiting_approval');
    const { rows: requested } = await server.pool.query(
      `SELECT data FROM conversation_events WHERE message_id = $1 AND type = 'approval.requested'`,
      [paused.body.id],
    );
    expect(requested).toHaveLength(1);
    expect(requested[0].data).toMatchObject({ tool: 'mcphub.delete_item', input: { id: 'item-7' } });
    // Nothing reached the server before a person decided.
    expect(await actionRuns('mcphub', 'delete_item')).toEqual([]);
    expect(hub.calls.filter((c) => c.tool === 'delete_item')).toEqual([]);

    const approved = await server.call(
      'POST',
      `/api/v1/agents/cleaner/approvals/${requested[0].data.approvalId}`,
      { body: { decision: 'approve' } },
    );
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const done = await until('cleaner', paused.body.id, ['completed', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('completed');

    const runs = await actionRuns('mcphub', 'delete_item');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      approval_status: 'approved',
      status: 'completed',
      action_input: { id: 'item-7' },
      action_output: { content: [{ type: 'text', text: 'deleted item-7' }] },
    });
    const deletes = hub.calls.filter((c) => c.tool === 'delete_item');
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.input).toEqual({ id: 'item-7' });
    const [token] = accessTokens();
    expect(deletes[0]?.headers.authorization).toBe(`Bearer ${token}`);

    const results = toolResultsOf(llm.requests.at(-1));
    expect(JSON.parse(results.at(-1) as string)).toMatchObject({ success: true, runId: Number(runs[0].id) });
    expect(done.reply).toContain('deleted item-7');
    const shown = [await shownOfRun(runs[0].id), JSON.stringify(done), ...results].join('\n');
    for (const secret of oauth.issued()) expect(shown).not.toContain(secret);
  }, 60_000);

  it('stops offering a tool the server took away, once refreshed', async () => {
    hub.offered.delete('delete_item');
    const refreshed = await server.call('POST', '/api/default/connectors/mcphub/refresh', {
      body: { connectionId: hubConnectionId },
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body).toMatchObject({ result: 'updated', added: [], removed: ['delete_item'] });
    expect(Object.keys(refreshed.body.connector.definition.actions)).toEqual(['search']);

    await agent('after-refresh');
    const before = llm.requests.length;
    llm.answer = () => ({ text: 'ok' });
    expect((await send('after-refresh', 'hello')).body.status).toBe('completed');
    expect(offered(llm.requests[before])).toEqual(['mcphub__search']);

    // Offered again when the server offers it again.
    hub.offered.add('delete_item');
    const back = await server.call('POST', '/api/default/connectors/mcphub/refresh', { body: {} });
    expect(back.body).toMatchObject({ result: 'updated', added: ['delete_item'], removed: [] });
    expect(back.body.connector.definition.actions.delete_item.requiresApproval).toBe(true);
  }, 60_000);

  it('keeps its tools when the server refuses the token at a refresh, and says why', async () => {
    refuseEveryToken = true;
    try {
      const refused = await server.call('POST', '/api/default/connectors/mcphub/refresh', { body: {} });
      expect(refused.status, JSON.stringify(refused.body)).toBe(200);
      expect(refused.body).toMatchObject({ added: [], removed: [] });
      expect(Object.keys(refused.body.connector.definition.actions).sort()).toEqual([
        'delete_item',
        'search',
      ]);
      expect(refused.body.connector.generated.warning).toMatch(
        /answered 401 to the connection's credentials/,
      );
    } finally {
      refuseEveryToken = false;
    }
    const again = await server.call('POST', '/api/default/connectors/mcphub/refresh', { body: {} });
    expect(again.body.connector.generated.warning).toBeNull();
  }, 30_000);
});

describe('an MCP server as a connector without code, with an API key', () => {
  it('installs with the tools the server lists, the org overriding one approval', async () => {
    const installed = await server.call('POST', '/api/default/connectors', {
      body: {
        definition: {
          key: 'mcpkeyed',
          name: 'Keyed MCP',
          version: '1.0.0',
          authSchema: {
            methods: [{ type: 'env_keys', fields: [{ key: 'API_KEY', secret: true, required: true }] }],
          },
          mcpConfig: { upstreamUrl: keyed.url, headers: { 'X-Api-Key': 'API_KEY' } },
        },
        requiresApproval: { delete_item: false },
      },
    });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    const { definition, generated } = installed.body.connector;
    expect(generated).toMatchObject({
      kind: 'mcp',
      warning: null,
      skipped: [],
      approvalOverrides: { delete_item: false },
    });
    expect(definition.actions.search.requiresApproval).toBe(false);
    // Destructive, but the org said it needs no approval; the hint is still the server's.
    expect(definition.actions.delete_item.requiresApproval).toBe(false);
    expect(definition.actions.delete_item.annotations).toMatchObject({ destructiveHint: true });
    // At install there are no credentials to send.
    expect(keyed.requests.every((r) => r.headers['x-api-key'] === undefined)).toBe(true);

    const made = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'mcpkeyed', displayName: 'Keyed', credentials: { API_KEY } },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    keyedConnectionId = Number(made.body.connection.id);
    // The server listed its tools already: a connect (a write token's, of one account) does not
    // list them again; only an admin's refresh may take tools away from every agent.
    expect(keyed.requests.every((r) => r.headers['x-api-key'] === undefined)).toBe(true);
    const refreshed = await server.call('POST', '/api/default/connectors/mcpkeyed/refresh', { body: {} });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(keyed.requests.at(-1)?.headers['x-api-key']).toBe(API_KEY);
    // …and the org's override survived that.
    expect((await connector('mcpkeyed')).definition.actions.delete_item.requiresApproval).toBe(false);
  }, 60_000);

  it('runs the destructive tool unasked; the key reaches the server as the mapped header, and nowhere else', async () => {
    await agent('keyed-cleaner');
    calling('mcpkeyed__delete_item', { id: 'k-1' });
    const res = await send('keyed-cleaner', 'delete k-1');
    expect(res.body.status, JSON.stringify(res.body)).toBe('completed');
    const [run] = await actionRuns('mcpkeyed', 'delete_item');
    expect(run).toMatchObject({
      connection_id: String(keyedConnectionId),
      approval_status: 'auto',
      status: 'completed',
      action_input: { id: 'k-1' },
    });
    const deletes = keyed.calls.filter((c) => c.tool === 'delete_item');
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.input).toEqual({ id: 'k-1' });
    expect(deletes[0]?.headers['x-api-key']).toBe(API_KEY);
    // The key went as the mapped header only: not as a bearer too.
    expect(deletes[0]?.headers.authorization).toBeUndefined();
    expect(keyed.refused).toEqual([]);

    const results = toolResultsOf(llm.requests.at(-1));
    expect(JSON.parse(results.at(-1) as string)).toMatchObject({ success: true, runId: Number(run.id) });
    expect(res.body.reply).toContain('deleted k-1');
    const shown = [await shownOfRun(run.id), JSON.stringify(res.body), ...results].join('\n');
    expect(shown).not.toContain(API_KEY);
  }, 60_000);

  it('keeps the tools when the server cannot be read at a refresh: the refresh says why, the key is not in it', async () => {
    keyed.down = 503;
    const renewed = `key-${randomBytes(12).toString('hex')}`;
    try {
      const patched = await server.call('PATCH', `/api/default/connections/${keyedConnectionId}`, {
        body: { credentials: { API_KEY: renewed } },
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body.connection.status).toBe('active');
      const refreshed = await server.call('POST', '/api/default/connectors/mcpkeyed/refresh', { body: {} });
      expect(refreshed.status).toBe(422);
      expect(refreshed.body.errors[0].path).toBe('/definition/mcpConfig/upstreamUrl');
      expect(JSON.stringify(refreshed.body)).not.toContain(renewed);
    } finally {
      keyed.down = null;
    }
    const { definition } = await connector('mcpkeyed');
    expect(Object.keys(definition.actions).sort()).toEqual(['delete_item', 'search']);
  }, 60_000);
});

describe('what svc shows', () => {
  it('holds no token or key: not the server log, not anything the model was sent', () => {
    const secrets = [...oauth.issued(), API_KEY, oauth.settings.clientSecret];
    const seen = [logged.join(''), JSON.stringify(llm.requests)].join('\n');
    for (const secret of secrets) expect(seen).not.toContain(secret);
  });
});
