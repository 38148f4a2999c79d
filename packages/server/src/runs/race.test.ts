import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startTestServer, type TestServer } from '../../test/harness.js';
import { spawnRunWorker, type spawnSvc } from '../../test/spawn-svc.js';
import { requestSync } from './queue.js';

/**
 * Two real `svc worker` processes on one database: due feeds are synced once each whoever
 * schedules and claims them, and a worker paused past its lease (SIGSTOP) writes nothing once it
 * wakes (SIGCONT) after the other took its run up.
 */

const key = randomBytes(32);
const LEASE_MS = 2000;
let server: TestServer;
let databaseUrl: string;
let orgId: string;
const workers: ChildProcess[] = [];

// Each execution leaves one event named after itself: the events count the executions.
const once = `
import { defineConnector } from '@svc/connector-sdk';
import { randomUUID } from 'node:crypto';
export default defineConnector({
  key: 'once', name: 'Once', version: '1.0.0',
  feeds: { items: { key: 'items', name: 'Items', async sync() {
    await new Promise((r) => setTimeout(r, 100));
    return { events: [{ origin_id: 'execution-' + randomUUID(), payload_text: 'ran', occurred_at: '2026-01-01T00:00:00Z' }], checkpoint: null };
  } } },
});`;

// Emits a first batch, waits, then a second batch named after this execution.
const slow = `
import { defineConnector } from '@svc/connector-sdk';
import { randomUUID } from 'node:crypto';
export default defineConnector({
  key: 'slow', name: 'Slow', version: '1.0.0',
  feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    await ctx.emitEvents([{ origin_id: 'first', payload_text: 'first', occurred_at: '2026-01-01T00:00:00Z' }]);
    await new Promise((r) => setTimeout(r, 5000));
    await ctx.emitEvents([{ origin_id: 'late-' + randomUUID(), payload_text: 'late', occurred_at: '2026-01-01T00:00:00Z' }]);
    await ctx.updateCheckpoint({ done: true });
    return { events: [], checkpoint: null };
  } } },
});`;

function startWorker(): ChildProcess & { output(): string } {
  const child = spawnRunWorker({ databaseUrl, key, leaseMs: LEASE_MS });
  workers.push(child);
  return child;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(
  what: string,
  check: () => Promise<T | null | undefined | false>,
  ms = 60_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      const said = workers.map((w) => (w as ReturnType<typeof spawnSvc>).output()).join('\n');
      throw new Error(`timed out waiting for ${what}; the workers said:\n${said}`);
    }
    await sleep(50);
  }
}

async function connect(connectorKey: string): Promise<string> {
  const res = await server.call('POST', '/api/default/connections', { body: { connectorKey } });
  expect(res.status).toBe(201);
  return String(res.body.feeds[0].id);
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  server = await startTestServer({ databaseUrl, encryptionKey: key, connectorSourceInstalls: true });
  orgId = String((await server.pool.query(`SELECT id FROM orgs WHERE slug = 'default'`)).rows[0].id);
  for (const source of [once, slow]) {
    expect((await server.call('POST', '/api/default/connectors', { body: { source } })).status).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  for (const child of workers) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});

describe('two workers on one database', () => {
  it('sync each due feed once: one run per feed, executed once', async () => {
    const feeds: string[] = [];
    // Due now: both workers' schedulers find them at the same moments.
    for (let i = 0; i < 8; i++) feeds.push(await connect('once'));
    const a = startWorker();
    const b = startWorker();
    await until('every feed synced', async () => {
      const { rows } = await server.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM feeds WHERE connection_id IN (SELECT id FROM connections WHERE connector_key = 'once') AND last_sync_status = 'completed'`,
      );
      return rows[0]?.n === feeds.length;
    });
    const { rows } = await server.pool.query<{
      feed_id: string;
      runs: number;
      executions: number;
      claimers: string[];
    }>(
      `SELECT f.id AS feed_id,
              (SELECT count(*)::int FROM runs r WHERE r.feed_id = f.id) AS runs,
              (SELECT count(*)::int FROM events e WHERE e.feed_id = f.id) AS executions,
              (SELECT array_agg(DISTINCT split_part(r.claimed_by, ':', 2)) FROM runs r WHERE r.feed_id = f.id) AS claimers
         FROM feeds f WHERE f.id = ANY($1::bigint[])`,
      [feeds],
    );
    for (const row of rows) expect(row, `feed ${row.feed_id}`).toMatchObject({ runs: 1, executions: 1 });
    // Both workers took part.
    const pids = new Set(rows.flatMap((r) => r.claimers));
    expect(pids).toEqual(new Set([String(a.pid), String(b.pid)]));
    a.kill('SIGKILL');
    b.kill('SIGKILL');
  }, 240_000);

  it('a worker paused past its lease writes nothing after another took its run', async () => {
    const feedId = await connect('slow');
    await server.pool.query(`UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE id = $1`, [
      feedId,
    ]);
    const paused = startWorker();
    await until('the worker', async () => paused.output().includes('svc worker running'));
    const first = await requestSync(server.pool, orgId, feedId);
    if (!first) throw new Error('no run');
    // Its first batch is in: the run is under way on the worker about to be paused.
    await until('the first batch', async () => {
      const { rows } = await server.pool.query(`SELECT 1 FROM events WHERE feed_id = $1`, [feedId]);
      return rows.length === 1;
    });
    paused.kill('SIGSTOP');
    const other = startWorker();
    // The other worker's reaper times the run out once its lease lapsed...
    await until('the reaper', async () => {
      const { rows } = await server.pool.query(`SELECT status FROM runs WHERE id = $1`, [first.id]);
      return rows[0]?.status === 'timeout';
    });
    const timedOut = (await server.pool.query(`SELECT * FROM runs WHERE id = $1`, [first.id])).rows[0];
    // ...and takes up the next sync of the feed, while the paused worker's connector, not paused,
    // has sent its late batch to a worker that cannot read it yet.
    const second = await requestSync(server.pool, orgId, feedId);
    if (!second) throw new Error('no second run');
    await until('the second run to start', async () => {
      const { rows } = await server.pool.query(`SELECT claimed_by FROM runs WHERE id = $1`, [second.id]);
      return rows[0]?.claimed_by?.includes(`:${other.pid}:`);
    });
    await sleep(5500);
    paused.kill('SIGCONT');
    await until('the second run to end', async () => {
      const { rows } = await server.pool.query(`SELECT status FROM runs WHERE id = $1`, [second.id]);
      return rows[0]?.status === 'completed';
    });
    await sleep(2 * LEASE_MS);
    // The woken worker wrote nothing: one late batch (the second run's), the first run as the
    // reaper left it, the checkpoint the second run's.
    const late = await server.pool.query(
      `SELECT run_id FROM events WHERE feed_id = $1 AND origin_id LIKE 'late-%'`,
      [feedId],
    );
    expect(late.rows.map((r) => String(r.run_id))).toEqual([second.id]);
    const after = (await server.pool.query(`SELECT * FROM runs WHERE id = $1`, [first.id])).rows[0];
    expect(after).toMatchObject({
      status: 'timeout',
      items_collected: timedOut.items_collected,
      log_lines: timedOut.log_lines,
    });
    expect(after.completed_at).toEqual(timedOut.completed_at);
    expect(paused.exitCode).toBeNull();
  }, 240_000);
});
