import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startTestServer, type TestServer } from '../../test/harness.js';
import { spawnRunWorker, type spawnSvc } from '../../test/spawn-svc.js';
import { requestSync } from './queue.js';

/**
 * `kill -9` of real `svc worker` processes at random moments while they run 100 syncs of a
 * connector that emits in batches through `emitEvents` and commits a checkpoint after each. Every
 * item lands exactly once, and no reader ever sees a checkpoint ahead of the events before it.
 */

const key = randomBytes(32);
const FEEDS = 8;
const RUNS = 100;
const LEASE_MS = 3000;
let server: TestServer;
let databaseUrl: string;
let orgId: string;
const workers: ChildProcess[] = [];

// Item i of a feed is `item-<i>`; a sync takes up at its checkpoint and emits 4 batches of 25,
// with pauses between them, so that kills land before, between and after commits.
const counter = `
import { defineConnector } from '@svc/connector-sdk';
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
export default defineConnector({
  key: 'counter', name: 'Counter', version: '1.0.0',
  feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    let n = Number(ctx.checkpoint?.n ?? 0);
    for (let b = 0; b < 4; b++) {
      await pause(Math.random() * 60);
      await ctx.emitEvents(Array.from({ length: 25 }, (_, k) => ({
        origin_id: 'item-' + (n + k), payload_text: 'item ' + (n + k), payload_data: { i: n + k },
        occurred_at: '2026-01-01T00:00:00Z',
      })));
      await pause(Math.random() * 30);
      n += 25;
      await ctx.updateCheckpoint({ n });
    }
    return { events: [], checkpoint: null };
  } } },
});`;

function startWorker(): ChildProcess {
  const child = spawnRunWorker({ databaseUrl, key, leaseMs: LEASE_MS });
  workers.push(child);
  return child;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  // HTTP only: the runs run in the worker processes.
  server = await startTestServer({ databaseUrl, encryptionKey: key, connectorSourceInstalls: true });
  orgId = String((await server.pool.query(`SELECT id FROM orgs WHERE slug = 'default'`)).rows[0].id);
  expect((await server.call('POST', '/api/default/connectors', { body: { source: counter } })).status).toBe(
    201,
  );
  for (let i = 0; i < FEEDS; i++) {
    const res = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'counter' } });
    expect(res.status).toBe(201);
  }
  // Only the test asks for syncs.
  await server.pool.query(`UPDATE feeds SET next_sync_at = now() + interval '1 day'`);
}, 60_000);

afterAll(async () => {
  for (const child of workers) if (child.exitCode === null) child.kill('SIGKILL');
});

/**
 * In one snapshot, each feed's checkpoint and the items below it: a checkpoint committed before
 * its events would show here as fewer items than it claims.
 */
async function checkpointsAhead(): Promise<string[]> {
  const client = await server.pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const { rows } = await client.query<{ id: string; n: number; below: number }>(
      `SELECT f.id, coalesce((f.checkpoint->>'n')::int, 0) AS n,
              (SELECT count(*)::int FROM events e
                WHERE e.feed_id = f.id AND (e.payload_data->>'i')::int < coalesce((f.checkpoint->>'n')::int, 0)) AS below
         FROM feeds f`,
    );
    await client.query('COMMIT');
    return rows
      .filter((r) => r.below !== r.n)
      .map((r) => `feed ${r.id}: checkpoint ${r.n}, ${r.below} items below it`);
  } finally {
    client.release();
  }
}

describe('kill -9 during 100 batched syncs', () => {
  it('loses no event, duplicates none, and never commits a checkpoint ahead of its events', async () => {
    const feeds = (await server.pool.query<{ id: string }>('SELECT id FROM feeds ORDER BY id')).rows.map(
      (r) => r.id,
    );
    const completed = async () =>
      (
        await server.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM runs WHERE status = 'completed'`,
        )
      ).rows[0]?.n ?? 0;
    const violations: string[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        violations.push(...(await checkpointsAhead()));
        await sleep(10);
      }
    })();

    // Two workers, so that runs go on while a killed one restarts; each kill lands after a random
    // number of committed batches (and a random moment after that), wherever the runs are then.
    const alive = [startWorker(), startWorker()];
    let kills = 0;
    const killed: number[] = [];
    const progress = async () =>
      (
        await server.pool.query<{ n: number }>(
          `SELECT coalesce(sum((checkpoint->>'n')::int), 0)::int AS n FROM feeds`,
        )
      ).rows[0]?.n ?? 0;
    let killAfter = 25 * (4 + Math.floor(Math.random() * 24));
    const deadline = Date.now() + 180_000;
    while ((await completed()) < RUNS && Date.now() < deadline) {
      for (const worker of alive) {
        if (worker.exitCode !== null || worker.signalCode !== null) {
          throw new Error(
            `a worker (pid ${worker.pid}, killed so far: ${killed.join(',')}) exited by itself (${worker.exitCode ?? worker.signalCode}):\n${(worker as ReturnType<typeof spawnSvc>).output()}`,
          );
        }
      }
      // Every feed always has a sync waiting or running.
      for (const feed of feeds) await requestSync(server.pool, orgId, feed);
      if (kills < 12 && (await progress()) >= killAfter) {
        await sleep(Math.random() * 200);
        const index = Math.floor(Math.random() * alive.length);
        const victim = alive[index] as ChildProcess;
        const exited = new Promise((resolve) => victim.once('exit', resolve));
        killed.push(victim.pid ?? -1);
        victim.kill('SIGKILL');
        await exited;
        kills++;
        alive[index] = startWorker();
        killAfter = (await progress()) + 25 * (4 + Math.floor(Math.random() * 24));
      }
      await sleep(50);
    }
    // The last runs finish on a worker left alone.
    await server.pool.query(`UPDATE runs SET status = 'cancelled' WHERE status = 'pending'`);
    for (let i = 0; i < 400; i++) {
      const { rows } = await server.pool.query(
        `SELECT count(*)::int AS n FROM runs WHERE status = 'running'`,
      );
      if (rows[0].n === 0) break;
      await sleep(50);
    }
    watching = false;
    await watcher;
    for (const worker of alive) worker.kill('SIGKILL');

    const runs = await server.pool.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM runs GROUP BY status',
    );
    const byStatus = Object.fromEntries(runs.rows.map((r) => [r.status, r.n]));
    const said = workers
      .map((w) => (w as ReturnType<typeof spawnSvc>).output())
      .join('\n')
      .slice(-3000);
    expect(byStatus.completed ?? 0, `${JSON.stringify(byStatus)}\n${said}`).toBeGreaterThanOrEqual(RUNS);
    expect(kills).toBeGreaterThanOrEqual(6);
    // Kills landed in the middle of runs: the reaper timed those out, and their feeds resumed.
    expect(byStatus.timeout ?? 0, JSON.stringify(byStatus)).toBeGreaterThan(0);
    expect(violations).toEqual([]);

    for (const feed of feeds) {
      const { rows } = await server.pool.query<{
        rows: number;
        distinct: number;
        top: number;
        n: number;
        collected: number;
      }>(
        `SELECT count(*)::int AS rows, count(DISTINCT e.origin_id)::int AS distinct,
                coalesce(max((e.payload_data->>'i')::int), -1) AS top,
                (SELECT coalesce((checkpoint->>'n')::int, 0) FROM feeds WHERE id = $1) AS n,
                (SELECT items_collected::int FROM feeds WHERE id = $1) AS collected
           FROM events e WHERE e.feed_id = $1`,
        [feed],
      );
      const stats = rows[0] as { rows: number; distinct: number; top: number; n: number; collected: number };
      // No gap (every item up to the highest is there), no item twice, nothing past the checkpoint
      // but the batch that was committed before a kill took its checkpoint.
      expect(stats.rows, `feed ${feed}`).toBe(stats.top + 1);
      expect(stats.distinct).toBe(stats.rows);
      expect(stats.n).toBeLessThanOrEqual(stats.rows);
      expect(stats.rows - stats.n).toBeLessThanOrEqual(25);
      // The feed's count moved with its rows, in the same transactions.
      expect(stats.collected).toBe(stats.rows);
    }
  }, 280_000);
});
