import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../../test/harness.js';
import { SPEC_RUN_FIELDS, startTestRunWorkers } from '../../test/runtime.js';
import { requestSync } from '../runs/queue.js';
import type { RunWorkers } from '../runs/worker.js';

/**
 * Interactive auth end to end: a connector installed from source runs its `authenticate(ctx)` in
 * the sandboxed child on a run worker; its artifacts are read through GET and SSE, the user's
 * answer is posted as a signal, and the connection's next sync gets the credentials.
 */

let server: TestServer;
let workers: RunWorkers;
let orgId: string;

const source = (key: string, method: string, authenticate: string) => `
import { defineConnector, log } from '@svc/connector-sdk';
export default defineConnector({
  key: '${key}', name: '${key}', version: '1.0.0',
  authSchema: { methods: [${method}] },
  feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    // Says whether the credentials arrived, never what they are.
    const ok = ctx.config.session === 'sess-424242';
    return { events: [{ origin_id: ok ? 'received' : 'missing', payload_text: ok ? 'credentials received' : 'no credentials',
      occurred_at: '2026-01-01T00:00:00Z' }], checkpoint: null };
  } } },
  async authenticate(ctx) { ${authenticate} },
});`;

/** A QR code, then a form whose one-time code becomes the session. */
const phone = source(
  'phone',
  `{ type: 'interactive', expectedArtifact: 'qr', timeoutSec: 30 }`,
  `await ctx.emit({ type: 'qr', value: 'pair://device?code=abc', instructions: 'Scan it with the phone' });
   await ctx.emit({ type: 'prompt', fields: [{ key: 'otp', label: 'Code', kind: 'otp', required: true }], submitSignal: 'otp' });
   const answer = await ctx.awaitSignal('otp', { timeoutMs: 20000 });
   log.info('the code typed was ' + answer.otp);
   await ctx.emit({ type: 'status', message: 'linking the device' });
   return { credentials: { session: 'sess-' + answer.otp }, metadata: { account_id: 'acct-7', display_name: 'Ann phone' } };`,
);

/** Ignores ctx.signal and never yields again. */
const busy = source(
  'busy',
  `{ type: 'interactive', timeoutSec: 2 }`,
  `await ctx.emit({ type: 'code', value: 'ABCD-EFGH' });
   for (;;) {}`,
);

/** Ignores ctx.signal and awaits what never comes. */
const stuck = source(
  'stuck',
  `{ type: 'interactive', timeoutSec: 2 }`,
  `await ctx.emit({ type: 'status', message: 'waiting forever' });
   await new Promise(() => {});`,
);

/** Waits a minute for a signal: cancelled meanwhile. */
const waiting = source(
  'waiting',
  `{ type: 'interactive', timeoutSec: 60 }`,
  `await ctx.emit({ type: 'redirect', url: 'https://example.com/login', mode: 'popup', awaitSignal: 'back' });
   return { credentials: await ctx.awaitSignal('back') };`,
);

/** An artifact that is not one of the spec's. */
const malformed = source(
  'malformed',
  `{ type: 'interactive', timeoutSec: 30 }`,
  `await ctx.emit({ type: 'prompt', fields: [{ key: 'pin', label: 'PIN', kind: 'pin' }], submitSignal: 'pin' });
   return { credentials: { never: 'here' } };`,
);

/** An access token, so the next sync gets ctx.credentials; it reads the config and its previous token. */
const tokened = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'tokened', name: 'tokened', version: '1.0.0',
  authSchema: { methods: [{ type: 'interactive', expectedArtifact: 'code', timeoutSec: 30 }] },
  optionsSchema: { type: 'object', properties: { region: { type: 'string' } } },
  feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    const c = ctx.credentials;
    const ok = c && c.provider === 'tokened' && c.accessToken === 'tok-1' && c.refreshToken === 'ref-1' && ctx.config.accessToken === undefined;
    return { events: [{ origin_id: ok ? 'token received' : 'no token', payload_text: 'checked', occurred_at: '2026-01-01T00:00:00Z' }], checkpoint: null };
  } } },
  async authenticate(ctx) {
    const previous = ctx.previousCredentials?.accessToken === 'tok-1' ? 'with' : 'without';
    await ctx.emit({ type: 'status', message: 'region ' + ctx.config.region + ', ' + previous + ' previous credentials' });
    return { credentials: { accessToken: 'tok-1', refreshToken: 'ref-1' } };
  },
});`;

/** Takes a signal posted before it awaits it; an await that times out rejects, saying so. */
const early = source(
  'early',
  `{ type: 'interactive', timeoutSec: 30 }`,
  `await ctx.emit({ type: 'status', message: 'ready' });
   await new Promise((resolve) => setTimeout(resolve, 1000));
   const got = await ctx.awaitSignal('early', { timeoutMs: 5000 });
   await ctx.emit({ type: 'status', message: 'got early ' + got.n });
   try { await ctx.awaitSignal('never', { timeoutMs: 300 }); } catch (error) {
     await ctx.emit({ type: 'status', message: error.message });
   }
   return { credentials: { session: 'sess-early' } };`,
);

/** Fails quoting what the user typed. */
const leaky = source(
  'leaky',
  `{ type: 'interactive', timeoutSec: 30 }`,
  `await ctx.emit({ type: 'prompt', fields: [{ key: 'password', label: 'Password', kind: 'password' }], submitSignal: 'pw' });
   const { password } = await ctx.awaitSignal('pw');
   throw new Error('the service refused the password ' + password);`,
);

/** Credentials for the whole org: every connection of the connector shares them. */
const orgwide = source(
  'orgwide',
  `{ type: 'interactive', scope: 'organization', timeoutSec: 30 }`,
  `await ctx.emit({ type: 'status', message: 'signing the org in' });
   return { credentials: { session: 'sess-424242' }, metadata: { account_id: 'org-acct' } };`,
);

/** No interactive method at all. */
const plain = `

import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'plain', name: 'plain', version: '1.0.0',
  authSchema: { methods: [{ type: 'env_keys', required: false, fields: [{ key: 'token', secret: true }] }] },
  feeds: { items: { key: 'items', name: 'Items', async sync() { return { events: [], checkpoint: null }; } } },
});`;

async function install(code: string) {
  const res = await server.call('POST', '/api/default/connectors', { body: { source: code } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

async function connect(connectorKey: string) {
  const res = await server.call('POST', '/api/default/connections', { body: { connectorKey } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { connectionId: String(res.body.connection.id), feedId: String(res.body.feeds[0].id) };
}

async function startAuth(connectionId: string) {
  const res = await server.call('POST', `/api/default/connections/${connectionId}/auth-runs`);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return String(res.body.run.id);
}

async function waitForRun(runId: string, until = (s: string) => !['pending', 'running'].includes(s)) {
  for (let i = 0; i < 600; i++) {
    const { rows } = await server.pool.query('SELECT * FROM runs WHERE id = $1', [runId]);
    if (until(rows[0].status)) return rows[0];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${runId} did not end`);
}

interface SseEvent {
  id: number;
  event: string;
  data: Record<string, any>;
}

/**
 * Reads an SSE stream, each event to `onEvent`, until it ends or `stopWhen` says so (then the
 * connection is dropped, as a client that goes away).
 */
async function readStream(
  path: string,
  headers: Record<string, string> = {},
  stopWhen: (event: SseEvent) => boolean = () => false,
): Promise<SseEvent[]> {
  const controller = new AbortController();
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${ADMIN_PASSWORD}`, ...headers },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: SseEvent[] = [];
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += decoder.decode(value, { stream: true });
      let at = buffer.indexOf('\n\n');
      while (at >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        at = buffer.indexOf('\n\n');
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((line) => !line.startsWith(':') && line.includes(': '))
            .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
        );
        if (fields.id === undefined) continue;
        const event: SseEvent = {
          id: Number(fields.id),
          event: String(fields.event),
          data: JSON.parse(String(fields.data)),
        };
        events.push(event);
        if (stopWhen(event)) {
          controller.abort();
          return events;
        }
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  orgId = String((await server.pool.query(`SELECT id FROM orgs WHERE slug = 'default'`)).rows[0].id);
  for (const code of [phone, busy, stuck, waiting, malformed, plain, tokened, early, leaky, orgwide])
    await install(code);
  expect((await server.call('POST', '/api/orgs', { body: { slug: 'other' } })).status).toBe(201);
  workers = await startTestRunWorkers(server, {
    leaseMs: 10_000,
    limits: { timeoutMs: 60_000, memoryMb: 96 },
    // Far longer than a cancel may take here: an auth run is killed at once, not after a grace.
    cancelGraceMs: 10_000,
  });
}, 90_000);

let closed = false;
afterAll(() => (closed ? undefined : workers?.close(1000)));

describe('an interactive auth run', () => {
  it('shows a QR code and a prompt, takes the signal, and its credentials reach the next sync', async () => {
    const { connectionId, feedId } = await connect('phone');
    // A connection whose credentials were revoked is authenticated again all the same.
    await server.pool.query(
      `UPDATE connections SET status = 'revoked', error_message = 'revoked' WHERE id = $1`,
      [connectionId],
    );
    const runId = await startAuth(connectionId);
    // A second start answers the open run.
    const again = await server.call('POST', `/api/default/connections/${connectionId}/auth-runs`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, run: { id: Number(runId), runType: 'auth' } });

    // The stream, read until the prompt shows, then dropped.
    const first = await readStream(
      `/api/default/auth-runs/${runId}/events`,
      {},
      (e) => e.data.artifact?.type === 'prompt',
    );
    expect(first.map((e) => e.event)).toEqual(['status', 'status', 'artifact', 'artifact']);
    expect(first.map((e) => e.data.status ?? e.data.artifact.type)).toEqual([
      'pending',
      'running',
      'qr',
      'prompt',
    ]);
    expect(first[2]?.data.artifact).toEqual({
      type: 'qr',
      value: 'pair://device?code=abc',
      instructions: 'Scan it with the phone',
    });

    const shown = await server.call('GET', `/api/default/auth-runs/${runId}`);
    expect(shown.status).toBe(200);
    expect(Object.keys(shown.body.run)).toEqual(expect.arrayContaining(SPEC_RUN_FIELDS));
    expect(shown.body.run).toMatchObject({
      runType: 'auth',
      status: 'running',
      connectionId: Number(connectionId),
    });
    expect(shown.body.artifactSeq).toBe(4);
    expect(shown.body.artifact).toEqual({
      type: 'prompt',
      fields: [{ key: 'otp', label: 'Code', kind: 'otp', required: true }],
      submitSignal: 'otp',
    });

    // Another org's run is not there; this one takes the signal.
    const elsewhere = await server.call('POST', `/api/other/auth-runs/${runId}/signals/otp`, {
      body: { otp: '1' },
    });
    expect(elsewhere.status).toBe(404);
    const signalled = await server.call('POST', `/api/default/auth-runs/${runId}/signals/otp`, {
      body: { otp: '424242' },
    });
    expect(signalled.status, JSON.stringify(signalled.body)).toBe(202);

    // Resumed from the last id read: every later event once, to the final status.
    const rest = await readStream(`/api/default/auth-runs/${runId}/events`, {
      'last-event-id': String(first.at(-1)?.id),
    });
    const ids = [...first, ...rest].map((e) => e.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    expect(rest.map((e) => e.data.status ?? e.data.artifact.type)).toEqual(['status', 'completed']);
    expect(rest.at(-1)).toMatchObject({ event: 'status', data: { status: 'completed', errorMessage: null } });

    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    // The signal was deleted once delivered; the credentials are sealed on the connection.
    expect(
      (await server.pool.query('SELECT 1 FROM auth_run_signals WHERE run_id = $1', [runId])).rowCount,
    ).toBe(0);
    const connection = (await server.pool.query('SELECT * FROM connections WHERE id = $1', [connectionId]))
      .rows[0];
    expect(connection).toMatchObject({ status: 'active', error_message: null, account_id: 'acct-7' });
    expect(connection.credential_keys).toEqual(['session']);
    expect(connection.credentials.toString('latin1')).not.toContain('424242');
    // Nothing the user typed or the connector got is in an answer or the run's log.
    const logs = await server.pool.query('SELECT msg, fields FROM run_logs WHERE run_id = $1', [runId]);
    const said = JSON.stringify([
      logs.rows,
      shown.body,
      (await server.call('GET', `/api/default/runs/${runId}`)).body,
    ]);
    expect(said).not.toContain('424242');
    expect(said).toContain('the code typed was [redacted]');
    const connectionAnswer = await server.call('GET', `/api/default/connections/${connectionId}`);
    expect(JSON.stringify(connectionAnswer.body)).not.toContain('424242');

    // A signal to the run that ended is refused.
    const late = await server.call('POST', `/api/default/auth-runs/${runId}/signals/otp`, {
      body: { otp: '1' },
    });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('conflict');

    // The next sync gets the credentials (in ctx.config, as env_keys values are).
    await server.pool.query(`UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE id = $1`, [
      feedId,
    ]);
    const sync = await requestSync(server.pool, orgId, feedId);
    expect((await waitForRun(sync?.id as string)).status).toBe('completed');
    const events = await server.pool.query('SELECT origin_id FROM events WHERE feed_id = $1', [feedId]);
    expect(events.rows.map((r) => r.origin_id)).toContain('received');
  }, 90_000);

  it('hands the connection config and the previous credentials to authenticate; an accessToken is ctx.credentials', async () => {
    const res = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'tokened', config: { region: 'eu' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const connectionId = String(res.body.connection.id);
    const feedId = String(res.body.feeds[0].id);
    const messages = [];
    for (let round = 0; round < 2; round++) {
      const runId = await startAuth(connectionId);
      expect((await waitForRun(runId)).status).toBe('completed');
      messages.push((await server.call('GET', `/api/default/auth-runs/${runId}`)).body.artifact.message);
    }
    expect(messages).toEqual([
      'region eu, without previous credentials',
      'region eu, with previous credentials',
    ]);
    await server.pool.query(`UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE id = $1`, [
      feedId,
    ]);
    const sync = await requestSync(server.pool, orgId, feedId);
    expect((await waitForRun(sync?.id as string)).status).toBe('completed');
    const events = await server.pool.query('SELECT origin_id FROM events WHERE feed_id = $1', [feedId]);
    expect(events.rows.map((r) => r.origin_id)).toContain('token received');
  }, 60_000);

  it("keeps a method scoped to the organization on the org's grant: every connection gets it", async () => {
    const first = await connect('orgwide');
    const second = await connect('orgwide');
    const runId = await startAuth(first.connectionId);
    expect((await waitForRun(runId)).status).toBe('completed');
    const { rows } = await server.pool.query(
      'SELECT status, account_id, credentials FROM connections WHERE id = ANY($1::bigint[]) ORDER BY id',
      [[first.connectionId, second.connectionId]],
    );
    expect(rows).toEqual([
      { status: 'active', account_id: 'org-acct', credentials: null },
      { status: 'active', account_id: 'org-acct', credentials: null },
    ]);
    await server.pool.query(`UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE id = $1`, [
      second.feedId,
    ]);
    const sync = await requestSync(server.pool, orgId, second.feedId);
    expect((await waitForRun(sync?.id as string)).status).toBe('completed');
    const events = await server.pool.query('SELECT origin_id FROM events WHERE feed_id = $1', [
      second.feedId,
    ]);
    expect(events.rows.map((r) => r.origin_id)).toContain('received');
  }, 60_000);

  it('delivers a signal posted before the connector awaits it; an await past its timeoutMs rejects', async () => {
    const runId = await startAuth((await connect('early')).connectionId);
    await readStream(
      `/api/default/auth-runs/${runId}/events`,
      {},
      (e) => e.data.artifact?.message === 'ready',
    );
    const posted = await server.call('POST', `/api/default/auth-runs/${runId}/signals/early`, {
      body: { n: 1 },
    });
    expect(posted.status).toBe(202);
    const events = await readStream(`/api/default/auth-runs/${runId}/events`);
    expect(events.filter((e) => e.event === 'artifact').map((e) => e.data.artifact.message)).toEqual([
      'ready',
      'got early 1',
      'no signal "never" came within 300 ms',
    ]);
    expect(events.at(-1)?.data.status).toBe('completed');
  }, 60_000);

  it('ends `timeout` at its timeoutSec though the connector ignores ctx.signal', async () => {
    const started = Date.now();
    const runs = await Promise.all(
      ['busy', 'stuck'].map(async (key) => startAuth((await connect(key)).connectionId)),
    );
    const ended = await Promise.all(runs.map((id) => waitForRun(id)));
    for (const run of ended) {
      expect(run.status).toBe('timeout');
      expect(run.error_message).toMatch(/did not finish authenticating within 2 s/);
      const took = run.completed_at.getTime() - run.claimed_at.getTime();
      expect(took).toBeGreaterThanOrEqual(1900);
      expect(took).toBeLessThan(4000);
    }
    expect(Date.now() - started).toBeLessThan(15_000);
    // The stream of an ended run replays to its final status and ends.
    const events = await readStream(`/api/default/auth-runs/${runs[0]}/events`);
    expect(events.at(-1)).toMatchObject({ event: 'status', data: { status: 'timeout' } });
  }, 60_000);

  it('stops at once when cancelled', async () => {
    const runId = await startAuth((await connect('waiting')).connectionId);
    const seen = await readStream(
      `/api/default/auth-runs/${runId}/events`,
      {},
      (e) => e.event === 'artifact',
    );
    expect(seen.at(-1)?.data.artifact).toMatchObject({ type: 'redirect', awaitSignal: 'back' });
    const before = workers.running;
    expect(before).toBeGreaterThanOrEqual(1);
    const tail = readStream(`/api/default/auth-runs/${runId}/events`, {
      'last-event-id': String(seen.at(-1)?.id),
    });
    const at = Date.now();
    const res = await server.call('POST', `/api/default/runs/${runId}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body.run.status).toBe('cancelled');
    expect((await tail).map((e) => e.data.status)).toEqual(['cancelled']);
    // Its worker let it go (its child killed) within a moment, not after a grace or the time limit.
    for (let i = 0; i < 100 && workers.running >= before; i++) await new Promise((r) => setTimeout(r, 25));
    expect(workers.running).toBeLessThan(before);
    expect(Date.now() - at).toBeLessThan(2500);
    expect((await waitForRun(runId)).status).toBe('cancelled');
  }, 60_000);

  it('fails a run whose artifact is not one of the spec’s, saying what was wrong', async () => {
    const runId = await startAuth((await connect('malformed')).connectionId);
    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(run.error_message).toMatch(
      /the connector emitted an artifact the server does not take \(fields\.0\.kind: /,
    );
    expect((await server.call('GET', `/api/default/auth-runs/${runId}`)).body.artifact).toBeNull();
  }, 60_000);

  it('keeps what the user typed out of the run’s error', async () => {
    const runId = await startAuth((await connect('leaky')).connectionId);
    await readStream(`/api/default/auth-runs/${runId}/events`, {}, (e) => e.data.artifact?.type === 'prompt');
    const posted = await server.call('POST', `/api/default/auth-runs/${runId}/signals/pw`, {
      body: { password: 'hunter2-secret' },
    });
    expect(posted.status).toBe(202);
    const run = await waitForRun(runId);
    expect(run).toMatchObject({
      status: 'failed',
      error_message: 'the service refused the password [redacted]',
    });
    const events = await readStream(`/api/default/auth-runs/${runId}/events`);
    expect(JSON.stringify(events)).not.toContain('hunter2');
  }, 60_000);

  it('is refused for a connector without an interactive method, and 404 in another org', async () => {
    const { connectionId } = await connect('plain');
    const res = await server.call('POST', `/api/default/connections/${connectionId}/auth-runs`);
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/has no interactive auth method \(its methods: env_keys\)/);
    expect((await server.call('POST', `/api/other/connections/${connectionId}/auth-runs`)).status).toBe(404);
    expect((await server.call('GET', `/api/default/auth-runs/999999`)).status).toBe(404);
    // A sync run is not an auth run.
    const { rows } = await server.pool.query(
      `INSERT INTO runs (org_id, run_type, connection_id, status) VALUES ($1, 'sync', $2, 'completed') RETURNING id`,
      [orgId, connectionId],
    );
    expect((await server.call('GET', `/api/default/auth-runs/${rows[0].id}`)).status).toBe(404);
  }, 30_000);

  it('caps a signal body', async () => {
    const { connectionId } = await connect('waiting');
    // Pending or running, it takes signals; this one is too large.
    const runId = await startAuth(connectionId);
    const res = await server.call('POST', `/api/default/auth-runs/${runId}/signals/back`, {
      body: { blob: 'x'.repeat(20_000) },
    });
    expect(res.status).toBe(413);
    // One that fits is kept, sealed, until the run takes it, or ends: then it goes.
    const kept = await server.call('POST', `/api/default/auth-runs/${runId}/signals/early-bird`, {
      body: { code: 'early-secret-value' },
    });
    expect(kept.status).toBe(202);
    const sealed = await server.pool.query('SELECT value FROM auth_run_signals WHERE run_id = $1', [runId]);
    expect(sealed.rowCount).toBe(1);
    expect(sealed.rows[0].value.toString('latin1')).not.toContain('early-secret-value');
    await server.call('POST', `/api/default/runs/${runId}/cancel`);
    expect(
      (await server.pool.query('SELECT 1 FROM auth_run_signals WHERE run_id = $1', [runId])).rowCount,
    ).toBe(0);
  }, 30_000);
  // Last: it stops the workers.
  it('ends `failed` at once when its worker shuts down, saying to start again', async () => {
    const runId = await startAuth((await connect('waiting')).connectionId);
    await readStream(`/api/default/auth-runs/${runId}/events`, {}, (e) => e.event === 'artifact');
    closed = true;
    await workers.close(100);
    const run = (await server.pool.query('SELECT status, error_message FROM runs WHERE id = $1', [runId]))
      .rows[0];
    expect(run).toEqual({
      status: 'failed',
      error_message: 'the worker running it stopped: start the authentication again',
    });
  }, 60_000);
});
