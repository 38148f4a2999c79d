import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, createToken, startTestServer, type TestServer } from '../../test/harness.js';
import { SPEC_RUN_FIELDS } from '../../test/runtime.js';
import { connectorActionTools } from '../tools/connector-actions.js';
import { claimRun, decideRun, RUNS_CHANNEL } from './queue.js';

/**
 * POST /api/:org/connections/:id/actions/:key: checked against the action's definition, queued as
 * the spec's Run, held for approval when the action says so. No worker runs here: the tests claim
 * runs themselves, as a worker would.
 */

let server: TestServer;
let databaseUrl: string;
let orgId: string;
let desk: string;
let rss: string;

const helpdesk = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'helpdesk', name: 'Helpdesk', version: '1.2.0',
  actions: {
    open_ticket: {
      key: 'open_ticket', name: 'Open ticket', requiresApproval: true, description: 'Opens a ticket',
      inputSchema: {
        type: 'object', additionalProperties: false, required: ['title'],
        properties: {
          title: { type: 'string', minLength: 1 },
          priority: { enum: ['low', 'high'] },
          assignee: { type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' } } },
        },
      },
      async execute(ctx) { return { success: true, output: { ticket: 'T-1' } }; },
    },
    ping: { key: 'ping', name: 'Ping', requiresApproval: false, async execute() { return { success: true }; } },
  },
});`;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  server = await startTestServer({ databaseUrl, connectorSourceInstalls: true });
  orgId = String((await server.pool.query(`SELECT id FROM orgs WHERE slug = 'default'`)).rows[0].id);
  for (const body of [{ source: helpdesk }, { package: 'rss' }]) {
    const res = await server.call('POST', '/api/default/connectors', { body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  desk = await connect('helpdesk');
  rss = await connect('rss');
}, 60_000);

async function connect(connectorKey: string) {
  const res = await server.call('POST', '/api/default/connections', { body: { connectorKey } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return String(res.body.connection.id);
}

const act = (connectionId: string, actionKey: string, body: unknown = {}, token?: string) =>
  server.call('POST', `/api/default/connections/${connectionId}/actions/${actionKey}`, {
    body,
    ...(token ? { token } : {}),
  });

const runCount = async () => Number((await server.pool.query('SELECT count(*) FROM runs')).rows[0].count);

/** Claims every claimable run, as workers would; answers their ids. */
async function claimAll(): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const run = await claimRun(server.pool, 'test-worker', 60_000);
    if (!run) return ids;
    ids.push(run.id);
  }
}

describe('an action request that is not valid', () => {
  it('lists every problem of the input as JSON Pointers, and queues nothing', async () => {
    const before = await runCount();
    const res = await act(desk, 'open_ticket', {
      input: { priority: 'urgent', assignee: { email: 'not an address' }, colour: 'red' },
    });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.detail).toMatch(/action "open_ticket" of connector "helpdesk"/);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      '/body/input/assignee/email',
      '/body/input/colour',
      '/body/input/priority',
      '/body/input/title',
    ]);
    expect(res.body.errors.find((e: { path: string }) => e.path === '/body/input/title').message).toBe(
      'is required',
    );
    expect(await runCount()).toBe(before);
  });

  it('is 404 for a connection that is not there (or is another org’s), naming it', async () => {
    for (const id of ['999999', 'abc']) {
      const res = await act(id, 'ping');
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found', detail: `connection ${id} does not exist` });
    }
    expect((await server.call('POST', '/api/orgs', { body: { slug: 'elsewhere' } })).status).toBe(201);
    const stranger = await createToken(server, 'elsewhere', ['write']);
    const res = await server.call('POST', `/api/elsewhere/connections/${desk}/actions/ping`, {
      body: {},
      token: stranger.secret,
    });
    expect(res.status).toBe(404);
  });

  it('is 404 for an action the connector does not have, naming those it has', async () => {
    const res = await act(desk, 'close_ticket', { input: {} });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    expect(res.body.detail).toBe(
      'connector "helpdesk" has no action "close_ticket" (its actions: "open_ticket", "ping")',
    );
    const none = await act(rss, 'post');
    expect(none.status).toBe(404);
    expect(none.body.detail).toMatch(/its actions: none/);
  });

  it('is 409 while the connection is paused, and runs again once it is active', async () => {
    const paused = await server.call('PATCH', `/api/default/connections/${desk}`, {
      body: { status: 'paused' },
    });
    expect(paused.status).toBe(200);
    try {
      const before = await runCount();
      const res = await act(desk, 'ping');
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'conflict' });
      expect(res.body.detail).toMatch(/is paused/);
      expect(await runCount()).toBe(before);
    } finally {
      await server.call('PATCH', `/api/default/connections/${desk}`, { body: { status: 'active' } });
    }
    expect((await act(desk, 'ping')).status).toBe(202);
  });

  it('takes write scope, not read', async () => {
    const reader = await createToken(server, 'default', ['read']);
    expect((await act(desk, 'ping', {}, reader.secret)).status).toBe(403);
  });
});

describe('an action request', () => {
  it('queues an action without approval as `auto`, answers the spec’s Run, and wakes the workers', async () => {
    await claimAll(); // runs left by earlier tests
    const listener = new pg.Client({ connectionString: databaseUrl });
    await listener.connect();
    try {
      await listener.query(`LISTEN ${RUNS_CHANNEL}`);
      const woken = new Promise((resolve) => listener.once('notification', resolve));
      const writer = await createToken(server, 'default', ['write']);
      const res = await act(desk, 'ping', {}, writer.secret);
      expect(res.status).toBe(202);
      await expect(
        Promise.race([
          woken,
          new Promise((_, reject) => setTimeout(() => reject(new Error('no NOTIFY')), 2000)),
        ]),
      ).resolves.toMatchObject({ channel: RUNS_CHANNEL });
      const { run } = res.body;
      expect(Object.keys(run).sort()).toEqual([...SPEC_RUN_FIELDS].sort());
      expect(run).toMatchObject({
        organizationId: 'default',
        runType: 'action',
        feedId: null,
        connectionId: Number(desk),
        actionKey: 'ping',
        actionInput: {},
        actionOutput: null,
        approvalStatus: 'auto',
        status: 'pending',
        connectorKey: 'helpdesk',
        itemsCollected: 0,
      });
      // Who asked is the first line of the run's log.
      const log = await server.pool.query('SELECT msg FROM run_logs WHERE run_id = $1 ORDER BY seq', [
        run.id,
      ]);
      expect(log.rows).toHaveLength(1);
      expect(log.rows[0]?.msg).toMatch(/^action requested by t-[0-9a-f]{8}$/);
      // Claimable at once: a worker takes it, and the connector's version is recorded then.
      expect(await claimAll()).toEqual([String(run.id)]);
      const claimed = await server.pool.query('SELECT status, connector_version FROM runs WHERE id = $1', [
        run.id,
      ]);
      expect(claimed.rows[0]).toEqual({ status: 'running', connector_version: '1.2.0' });
    } finally {
      await listener.end();
    }
  });

  it('holds an action that requires approval: rejected, it never runs; approved, a worker takes it', async () => {
    await claimAll();
    const input = { title: 'Printer on fire', priority: 'high' };
    const first = await act(desk, 'open_ticket', { input });
    const second = await act(desk, 'open_ticket', { input: { title: 'Toner low' } });
    for (const res of [first, second]) {
      expect(res.status).toBe(202);
      expect(res.body.run).toMatchObject({
        approvalStatus: 'pending',
        status: 'pending',
        actionKey: 'open_ticket',
      });
    }
    expect(first.body.run.actionInput).toEqual(input);
    const [rejected, approved] = [String(first.body.run.id), String(second.body.run.id)];
    // Waiting for a decision, neither is taken.
    expect(await claimAll()).toEqual([]);

    expect(await decideRun(server.pool, orgId, rejected, 'rejected', 'tester')).toEqual({
      before: 'pending',
      status: 'cancelled',
    });
    expect(await claimAll()).toEqual([]);
    const row = (await server.pool.query('SELECT * FROM runs WHERE id = $1', [rejected])).rows[0];
    expect(row).toMatchObject({ approval_status: 'rejected', status: 'cancelled', claimed_by: null });

    await decideRun(server.pool, orgId, approved, 'approved', 'tester');
    expect(await claimAll()).toEqual([approved]);
    // A decision is taken once: approving the rejected one later does not revive it.
    expect(await decideRun(server.pool, orgId, rejected, 'approved', 'tester')).toMatchObject({
      before: 'rejected',
    });
    expect(await claimAll()).toEqual([]);
  });

  it('takes no body fields but input, and an absent input as {}', async () => {
    const extra = await act(desk, 'ping', { input: {}, approvalStatus: 'approved' });
    expect(extra.status).toBe(400);
    expect(extra.body.code).toBe('validation_failed');
    const empty = await act(desk, 'ping', {});
    expect(empty.status).toBe(202);
    expect(empty.body.run.actionInput).toEqual({});
  });
});

describe('the agent tool of an action, with no worker to run it', () => {
  const toolOf = async (name: string, waitMs: number) => {
    const { tools } = await connectorActionTools({
      pool: server.pool,
      org: { id: orgId, slug: 'default' },
      agentId: 'tester',
      messageId: '1',
      config: {},
      taken: [],
      waitMs,
    });
    const found = tools.find((t) => t.name === name);
    if (!found?.tool.execute) throw new Error(`no tool ${name}`);
    return found.tool.execute;
  };

  it('answers that the run is still going, with its id, once its wait runs out', async () => {
    await claimAll();
    const execute = await toolOf('helpdesk.ping', 300);
    const result = await execute({}, { toolCallId: 'call-1', messages: [] });
    expect(result).toMatchObject({ success: false, status: 'pending', runId: expect.any(Number) });
    expect(result.error).toMatch(/has not finished yet .*do not call the action again/);
    const run = (await server.pool.query('SELECT * FROM runs WHERE id = $1', [result.runId])).rows[0];
    expect(run).toMatchObject({ status: 'pending', approval_status: 'auto', action_key: 'ping' });
  });

  it('stops waiting when the turn is stopped; the run stays queued', async () => {
    const execute = await toolOf('helpdesk.ping', 30_000);
    const stop = new AbortController();
    const before = await runCount();
    setTimeout(() => stop.abort(new Error('turn stopped')), 200);
    const started = Date.now();
    await expect(
      execute({}, { toolCallId: 'call-2', messages: [], abortSignal: stop.signal }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await runCount()).toBe(before + 1);
  });
});
