import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { startTestRunWorkers } from '../../test/runtime.js';
import { createRunMetrics } from './metrics.js';
import { cancelRun, requestSync } from './queue.js';
import type { RunWorkers } from './worker.js';

/**
 * Syncs executed by the run workers, end to end: a connector installed from source runs in its
 * sandbox; its events, checkpoints, logs, rejects and failures land where a user reads them.
 */

let server: TestServer;
let workers: RunWorkers;
let orgId: string;
const registry = new Registry();

const source = (key: string, body: string, extra = '') => `
import { defineConnector, log } from '@svc/connector-sdk';
${extra}
export default defineConnector({
  key: '${key}', name: '${key}', version: '1.0.0',
  ${body}
});`;

/** Emits `batches` batches of `size` items from the checkpoint on, a checkpoint after each. */
const batched = source(
  'batched',
  `feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    let n = Number(ctx.checkpoint?.n ?? 0);
    for (let b = 0; b < 3; b++) {
      const events = Array.from({ length: 50 }, (_, i) => ({
        origin_id: 'item-' + (n + i), payload_text: 'item ' + (n + i), occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n + i)),
      }));
      await ctx.emitEvents(events);
      n += 50;
      await ctx.updateCheckpoint({ n });
      log.info('batch committed', { n });
    }
    return { events: [], checkpoint: null };
  } } },`,
);

/**
 * A first batch with an item the server cannot store (a NUL: rejected on its own), a second batch
 * the database refuses (a trigger, below), then a checkpoint that must not pass it.
 */
const unstorable = source(
  'unstorable',
  `feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    await ctx.emitEvents([
      { origin_id: 'ok', payload_text: 'stored', occurred_at: '2026-01-01T00:00:00Z' },
      { origin_id: 'nul', payload_text: 'a \\u0000 b', occurred_at: '2026-01-01T00:00:00Z' },
    ]);
    await ctx.updateCheckpoint({ n: 1 });
    await ctx.emitEvents([{ origin_id: 'refused-by-the-database', payload_text: 'no', occurred_at: '2026-01-01T00:00:00Z' }]);
    log.info('second batch handed over');
    await ctx.updateCheckpoint({ n: 2 });
    log.info('checkpoint 2 saved');
    return { events: [], checkpoint: null };
  } } },`,
);

/** Its first sync returns at once but emits a second later; its second takes 3 s on the same child. */
const stray = source(
  'stray',
  `feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    if (!ctx.checkpoint) {
      setTimeout(() => ctx.emitEvents([{ origin_id: 'stray', payload_text: 'late', occurred_at: '2026-01-01T00:00:00Z' }]).catch(() => {}), 1000);
      return { events: [], checkpoint: { n: 1 } };
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    return { events: [], checkpoint: { n: 2 } };
  } } },`,
);

const kinds = source(
  'kinds',
  `authSchema: { methods: [{ type: 'env_keys', fields: [{ key: 'token', secret: true }] }] },
  feeds: { notes: { key: 'notes', name: 'Notes',
    eventKinds: { note: { metadataSchema: { type: 'object', properties: { stars: { type: 'integer', minimum: 0 } }, required: ['stars'] } } },
    async sync(ctx) {
      log.info('using token ' + ctx.config.token);
      return {
        events: [
          { origin_id: 'a', origin_type: 'note', payload_text: 'good', occurred_at: '2026-01-01T00:00:00Z', metadata: { stars: 3 } },
          { origin_id: 'b', origin_type: 'note', payload_text: 'bad metadata', occurred_at: '2026-01-01T00:00:00Z', metadata: { stars: -1 } },
          { origin_id: 'c', origin_type: 'comment', payload_text: 'unknown kind', occurred_at: '2026-01-01T00:00:00Z' },
          { origin_id: 'd', payload_text: 'bad date', occurred_at: 'yesterday', origin_type: 'note', metadata: { stars: 1 } },
        ],
        checkpoint: { done: true },
        auth_update: { token: 'rotated-token-value' },
      };
    } } },`,
);

const failing = source(
  'failing',
  `feeds: { items: { key: 'items', name: 'Items', async sync() { throw new Error('the API answered 503'); } } },`,
);

const slow = source(
  'slow',
  `feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    await ctx.emitEvents([{ origin_id: 'first', payload_text: 'before the cancel', occurred_at: '2026-01-01T00:00:00Z' }]);
    log.info('waiting');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    log.info('saw the cancel');
    await ctx.emitEvents([{ origin_id: 'late', payload_text: 'after the cancel', occurred_at: '2026-01-01T00:00:00Z' }]);
    return { events: [], checkpoint: null };
  } } },`,
);

const flaky = source(
  'flaky',
  `feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    if (ctx.config.fail) throw new Error('upstream down: ' + ctx.config.fail);
    return { events: [], checkpoint: null };
  } } },`,
);

const hog = source(
  'hog',
  `feeds: { items: { key: 'items', name: 'Items', async sync() {
    const kept = []; for (;;) kept.push(new Array(1e6).fill(Math.random()));
  } } },`,
);

async function install(code: string) {
  const res = await server.call('POST', '/api/default/connectors', { body: { source: code } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

async function connect(connectorKey: string, credentials?: Record<string, string>) {
  const res = await server.call('POST', '/api/default/connections', {
    body: { connectorKey, ...(credentials ? { credentials } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { connectionId: String(res.body.connection.id), feedId: String(res.body.feeds[0].id) };
}

/** A sync of the feed now, and the run once it ended. */
async function syncAndWait(feedId: string) {
  // Not the scheduler's own run: the feeds are made due far in the future.
  await server.pool.query(`UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE id = $1`, [feedId]);
  const requested = await requestSync(server.pool, orgId, feedId);
  if (!requested) throw new Error('no run');
  return waitForRun(requested.id);
}

/** A sync now, leaving the feed's schedule as its runs set it. */
async function syncNow(feedId: string) {
  const requested = await requestSync(server.pool, orgId, feedId);
  if (!requested) throw new Error('no run');
  return waitForRun(requested.id);
}

async function waitForRun(runId: string, until = (s: string) => !['pending', 'running'].includes(s)) {
  for (let i = 0; i < 400; i++) {
    const { rows } = await server.pool.query('SELECT * FROM runs WHERE id = $1', [runId]);
    if (until(rows[0].status)) return rows[0];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${runId} did not end`);
}

const logsOf = async (runId: string) =>
  (await server.pool.query('SELECT level, msg, fields FROM run_logs WHERE run_id = $1 ORDER BY seq', [runId]))
    .rows;

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  orgId = String((await server.pool.query(`SELECT id FROM orgs WHERE slug = 'default'`)).rows[0].id);
  for (const code of [batched, unstorable, stray, kinds, failing, slow, hog, flaky]) await install(code);
  workers = await startTestRunWorkers(server, {
    leaseMs: 10_000,
    limits: { timeoutMs: 20_000, memoryMb: 96 },
    cancelGraceMs: 3000,
    metrics: createRunMetrics(registry),
  });
}, 60_000);

afterAll(() => workers?.close(1000));

describe('a sync on the worker', () => {
  it('stores each emitted batch and its checkpoint, and resumes from it next time', async () => {
    const { feedId } = await connect('batched');
    const run = await syncAndWait(feedId);
    expect(run).toMatchObject({ status: 'completed', error_message: null });
    expect(Number(run.items_collected)).toBe(150);
    expect(run.checkpoint).toEqual({ n: 150 });
    const again = await syncAndWait(feedId);
    expect(again.status).toBe('completed');
    const { rows } = await server.pool.query(
      'SELECT count(*)::int AS n, min(occurred_at) AS first FROM events WHERE feed_id = $1',
      [feedId],
    );
    expect(rows[0].n).toBe(300);
    expect(rows[0].first.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    const feed = (await server.pool.query('SELECT * FROM feeds WHERE id = $1', [feedId])).rows[0];
    expect(feed).toMatchObject({
      checkpoint: { n: 300 },
      consecutive_failures: 0,
      last_sync_status: 'completed',
    });
    expect(Number(feed.items_collected)).toBe(300);
    // The connector's log lines are on the run, in order.
    expect((await logsOf(again.id)).map((l) => l.fields?.n)).toEqual([200, 250, 300]);
  }, 60_000);

  it('fails a sync whose batch could not be stored, and sends no checkpoint past it', async () => {
    await server.pool.query(`
      CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.origin_id = 'refused-by-the-database' THEN RAISE EXCEPTION 'this row is refused'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_event BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_event();`);
    const { feedId } = await connect('unstorable');
    const run = await syncAndWait(feedId);
    await server.pool.query('DROP TRIGGER refuse_event ON events; DROP FUNCTION refuse_event()');
    expect(run.status).toBe('failed');
    expect(run.error_message).toBe('the server could not store the batch: this row is refused');
    expect(Number(run.items_rejected)).toBe(1);
    const events = await server.pool.query('SELECT origin_id FROM events WHERE feed_id = $1', [feedId]);
    expect(events.rows.map((r) => r.origin_id)).toEqual(['ok']);
    const feed = (await server.pool.query('SELECT checkpoint FROM feeds WHERE id = $1', [feedId])).rows[0];
    expect(feed.checkpoint).toEqual({ n: 1 });
    // emitEvents answered before the batch was stored (one batch in flight); the failure came with
    // the checkpoint that followed it.
    const messages = (await logsOf(run.id)).map((line) => line.msg);
    expect(messages).toContain('second batch handed over');
    expect(messages).not.toContain('checkpoint 2 saved');
  }, 60_000);

  it("refuses a sync's calls once it has returned: they never land in the next run of its child", async () => {
    const { feedId } = await connect('stray');
    expect((await syncAndWait(feedId)).status).toBe('completed');
    // The child is kept for the connection's next run (once its worker has put it back: the run
    // is completed a moment before), under way when the stray call comes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await syncAndWait(feedId);
    expect(second).toMatchObject({ status: 'completed', checkpoint: { n: 2 } });
    const events = await server.pool.query('SELECT origin_id FROM events WHERE feed_id = $1', [feedId]);
    expect(events.rows).toEqual([]);
  }, 60_000);

  it('rejects envelopes of unknown kinds or bad metadata, counted and logged, and keeps the rest', async () => {
    const { feedId, connectionId } = await connect('kinds', { token: 'secret-token-value' });
    const run = await syncAndWait(feedId);
    expect(run.status).toBe('completed');
    expect(Number(run.items_collected)).toBe(1);
    expect(Number(run.items_rejected)).toBe(3);
    const events = await server.pool.query('SELECT origin_id FROM events WHERE feed_id = $1', [feedId]);
    expect(events.rows.map((r) => r.origin_id)).toEqual(['a']);
    const lines = await logsOf(run.id);
    const text = JSON.stringify(lines);
    expect(text).toMatch(/metadata\.stars: must be >= 0/);
    expect(text).toMatch(/kind \\"comment\\".*not one of the feed's eventKinds: note/);
    expect(text).toMatch(/occurred_at/);
    // The env_keys value reached ctx.config, and never the log.
    expect(text).toContain('using token [redacted]');
    expect(text).not.toContain('secret-token-value');
    // auth_update rotated the credentials: the next run gets the new value (and hides it too).
    const next = await syncAndWait(feedId);
    const nextText = JSON.stringify(await logsOf(next.id));
    expect(nextText).toContain('using token [redacted]');
    expect(nextText).not.toContain('rotated-token-value');
    const connection = await server.call('GET', `/api/default/connections/${connectionId}`);
    expect(JSON.stringify(connection.body)).not.toContain('rotated-token-value');
  }, 60_000);

  it("fails with the connector's error, counted on its feed", async () => {
    const { feedId } = await connect('failing');
    const run = await syncAndWait(feedId);
    expect(run).toMatchObject({ status: 'failed', error_message: 'the API answered 503' });
    const feed = (await server.pool.query('SELECT * FROM feeds WHERE id = $1', [feedId])).rows[0];
    expect(feed).toMatchObject({
      consecutive_failures: 1,
      last_error: 'the API answered 503',
      status: 'active',
    });
    expect(JSON.stringify(await logsOf(run.id))).toContain('the API answered 503');
  }, 30_000);

  it('backs a failing feed off at growing intervals, stops it after 5 in a row; a success resets it', async () => {
    const { feedId } = await connect('flaky');
    const setFail = (fail: string) =>
      server.call('PATCH', `/api/default/feeds/${feedId}`, { body: { config: { fail }, status: 'active' } });
    const feed = async () =>
      (
        await server.pool.query(
          `SELECT status, consecutive_failures, last_error, last_sync_status,
                  round(extract(epoch FROM next_sync_at - last_sync_at))::int AS wait_s FROM feeds WHERE id = $1`,
          [feedId],
        )
      ).rows[0];
    await setFail('503');
    for (const wait of [60, 120]) {
      expect((await syncNow(feedId)).status).toBe('failed');
      expect(await feed()).toMatchObject({
        wait_s: wait,
        last_error: 'upstream down: 503',
        status: 'active',
      });
    }
    expect((await feed()).consecutive_failures).toBe(2);
    await setFail('');
    expect((await syncNow(feedId)).status).toBe('completed');
    expect(await feed()).toMatchObject({ consecutive_failures: 0, last_error: null, wait_s: 3600 });
    await setFail('timeout');
    for (const [i, wait] of [60, 120, 240, 480].entries()) {
      await syncNow(feedId);
      expect(await feed()).toMatchObject({ consecutive_failures: i + 1, wait_s: wait, status: 'active' });
    }
    await syncNow(feedId);
    // The fifth in a row: the feed stops, saying why, until someone resumes it.
    expect(await feed()).toMatchObject({
      consecutive_failures: 5,
      status: 'error',
      wait_s: null,
      last_error: 'upstream down: timeout',
    });
    const api = await server.call(
      'GET',
      `/api/default/connections/${(await server.pool.query('SELECT connection_id FROM feeds WHERE id = $1', [feedId])).rows[0].connection_id}/feeds`,
    );
    expect(api.body.feeds[0]).toMatchObject({
      status: 'error',
      consecutiveFailures: 5,
      lastError: 'upstream down: timeout',
    });
  }, 60_000);

  it('stops a connector past its memory limit and says so', async () => {
    const { feedId } = await connect('hog');
    const run = await syncAndWait(feedId);
    expect(run.status).toBe('failed');
    expect(run.error_message).toMatch(/used more than 96 MB/);
  }, 60_000);

  it('cancels a running sync: the connector sees the signal, and writes nothing after', async () => {
    const { feedId } = await connect('slow');
    await server.pool.query(`UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE id = $1`, [
      feedId,
    ]);
    const requested = await requestSync(server.pool, orgId, feedId);
    if (!requested) throw new Error('no run');
    // Running, and its first batch is in.
    for (let i = 0; i < 200; i++) {
      const { rows } = await server.pool.query('SELECT count(*)::int AS n FROM events WHERE feed_id = $1', [
        feedId,
      ]);
      if (rows[0].n === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await cancelRun(server.pool, orgId, requested.id, 'admin')).toEqual({ before: 'running' });
    const run = await waitForRun(requested.id);
    expect(run).toMatchObject({ status: 'cancelled', cancelled_by: 'admin' });
    await new Promise((r) => setTimeout(r, 1500));
    const { rows } = await server.pool.query('SELECT origin_id FROM events WHERE feed_id = $1', [feedId]);
    expect(rows.map((r) => r.origin_id)).toEqual(['first']);
    expect(workers.running).toBe(0);
    const feed = (await server.pool.query('SELECT * FROM feeds WHERE id = $1', [feedId])).rows[0];
    expect(feed).toMatchObject({ consecutive_failures: 0, last_sync_status: 'cancelled' });
  }, 30_000);

  it('counts what it did on /metrics: runs by status, items stored and rejected', async () => {
    const text = await registry.metrics();
    const value = (series: string) => Number(text.match(new RegExp(`^${series} (\\d+)$`, 'm'))?.[1] ?? 0);
    expect(value('svc_runs_total{run_type="sync",status="completed"}')).toBeGreaterThanOrEqual(5);
    expect(value('svc_runs_total{run_type="sync",status="failed"}')).toBeGreaterThanOrEqual(8);
    expect(value('svc_runs_total{run_type="sync",status="cancelled"}')).toBe(1);
    // 3 envelopes of "kinds" twice, and the NUL of "unstorable".
    expect(value('svc_run_items_total{outcome="rejected"}')).toBe(7);
    expect(value('svc_run_items_total{outcome="stored"}')).toBeGreaterThanOrEqual(303);
  });
});
