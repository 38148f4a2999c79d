import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import {
  claimRun,
  endRun,
  finishRun,
  heartbeat,
  MAX_CONSECUTIVE_FAILURES,
  pruneEndedRuns,
  RunLeaseLostError,
  reapLapsedRuns,
  retryDelayMs,
  scheduleDueFeeds,
} from './queue.js';

/** The runs queue at the SQL level: scheduling, claims, fencing, the reaper, a feed's backoff. */

let server: TestServer;
let feedId: string;

beforeAll(async () => {
  server = await startTestServer();
  await server.call('POST', '/api/default/connectors', { body: { package: 'rss' } });
  const { body } = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'rss' } });
  feedId = String(body.feeds[0].id);
  const res = await server.call('PATCH', `/api/default/feeds/${feedId}`, {
    body: { config: { url: 'https://example.com/feed.xml' } },
  });
  expect(res.body.feed.status).toBe('active');
});

const feed = async () =>
  (
    await server.pool.query<{
      status: string;
      consecutive_failures: number;
      last_error: string | null;
      due_in_s: number | null;
    }>(
      `SELECT status, consecutive_failures, last_error,
              extract(epoch FROM next_sync_at - now())::float8 AS due_in_s FROM feeds WHERE id = $1`,
      [feedId],
    )
  ).rows[0];
const makeDue = () => server.pool.query('UPDATE feeds SET next_sync_at = now() WHERE id = $1', [feedId]);

describe('runs', () => {
  it('schedule one sync per due feed, however many replicas ask', async () => {
    const counts = await Promise.all([scheduleDueFeeds(server.pool), scheduleDueFeeds(server.pool)]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await scheduleDueFeeds(server.pool)).toBe(0);
  });

  it('are claimed once, fenced after their lease lapses, and timed out by the reaper', async () => {
    const [a, b] = await Promise.all([
      claimRun(server.pool, 'w1', 60_000),
      claimRun(server.pool, 'w2', 60_000),
    ]);
    const run = a ?? b;
    expect([a, b].filter(Boolean)).toHaveLength(1);
    if (!run) throw new Error('no claim');
    expect(await heartbeat(server.pool, run, 60_000)).toBe(true);
    // The worker is paused past its lease: the reaper times the run out.
    await server.pool.query("UPDATE runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [
      run.id,
    ]);
    expect(await reapLapsedRuns(server.pool)).toBe(1);
    // Woken up, the worker can write nothing.
    expect(await heartbeat(server.pool, run, 60_000)).toBe(false);
    await expect(finishRun(server.pool, run, { status: 'completed' })).rejects.toBeInstanceOf(
      RunLeaseLostError,
    );
    const { rows } = await server.pool.query('SELECT status FROM runs WHERE id = $1', [run.id]);
    expect(rows[0]).toEqual({ status: 'timeout' });
    // The timeout counts as a failure: the feed retries after a minute.
    expect(await feed()).toMatchObject({ status: 'active', consecutive_failures: 1 });
    expect((await feed())?.due_in_s).toBeGreaterThan(50);
  });

  it('back a failing feed off at growing intervals, stop it after the limit, and reset on success', async () => {
    const delays: number[] = [];
    for (let i = 2; i <= MAX_CONSECUTIVE_FAILURES; i++) {
      await makeDue();
      expect(await scheduleDueFeeds(server.pool)).toBe(1);
      const run = await claimRun(server.pool, 'w1', 60_000);
      if (!run) throw new Error('no claim');
      await finishRun(server.pool, run, { status: 'failed', errorMessage: `HTTP 503 (${i})` });
      const state = await feed();
      expect(state?.consecutive_failures).toBe(i);
      expect(state?.last_error).toBe(`HTTP 503 (${i})`);
      if (state?.due_in_s !== null && state?.due_in_s !== undefined) {
        delays.push(state.due_in_s);
        // The SQL's backoff is the documented one.
        expect(state.due_in_s).toBeCloseTo(retryDelayMs(i) / 1000, -1);
      }
    }
    expect(delays).toHaveLength(MAX_CONSECUTIVE_FAILURES - 2);
    expect(delays.every((d, i) => i === 0 || d > (delays[i - 1] as number) * 1.5)).toBe(true);
    expect(await feed()).toMatchObject({ status: 'error', due_in_s: null });
    expect(await scheduleDueFeeds(server.pool)).toBe(0);

    // A user resumes it; the next success resets the count.
    const resumed = await server.call('PATCH', `/api/default/feeds/${feedId}`, {
      body: { status: 'active' },
    });
    expect(resumed.body.feed).toMatchObject({ status: 'active', consecutiveFailures: 0 });
    expect(await scheduleDueFeeds(server.pool)).toBe(1);
    const run = await claimRun(server.pool, 'w1', 60_000);
    if (!run) throw new Error('no claim');
    await finishRun(server.pool, run, { status: 'completed' });
    expect(await feed()).toMatchObject({ status: 'active', consecutive_failures: 0, last_error: null });
    expect((await feed())?.due_in_s).toBeGreaterThan(3500);
  });

  it('are not scheduled again by a scheduler that runs while the last sync is ending', async () => {
    await makeDue();
    expect(await scheduleDueFeeds(server.pool)).toBe(1);
    const run = await claimRun(server.pool, 'w1', 60_000);
    if (!run) throw new Error('no claim');
    // The sync ends in a transaction not yet committed when the scheduler looks at the feed, which
    // its snapshot still shows due.
    const ending = await server.pool.connect();
    try {
      await ending.query('BEGIN');
      expect(await endRun(ending, run, { status: 'completed' })).toBe(true);
      const scheduling = scheduleDueFeeds(server.pool);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await ending.query('COMMIT');
      expect(await scheduling).toBe(0);
    } finally {
      ending.release();
    }
    const { rows } = await server.pool.query(
      `SELECT count(*)::int AS open FROM runs WHERE feed_id = $1 AND status IN ('pending', 'running')`,
      [feedId],
    );
    expect(rows[0].open).toBe(0);
  });

  it('never hand a device connector (runtime.platforms) to a cloud worker', async () => {
    await server.pool.query(
      `UPDATE connector_definitions SET definition = definition || '{"runtime": {"platforms": ["macos"]}}'
        WHERE connector_key = 'rss'`,
    );
    try {
      await makeDue();
      expect(await scheduleDueFeeds(server.pool)).toBe(1);
      expect(await claimRun(server.pool, 'w1', 60_000)).toBeNull();
    } finally {
      await server.pool.query(`UPDATE connector_definitions SET definition = definition - 'runtime'`);
    }
  });

  it('past their retention are deleted with their logs; open ones are kept however old', async () => {
    const insert = async (status: string, approval: string, endedDaysAgo: number | null) =>
      (
        await server.pool.query<{ id: string }>(
          `INSERT INTO runs (org_id, run_type, connection_id, connector_key, action_key, status, approval_status,
                             completed_at, created_at)
           SELECT c.org_id, 'action', c.id, c.connector_key, 'ping', $1, $2,
                  now() - make_interval(days => $3), now() - interval '90 days'
             FROM connections c ORDER BY c.id LIMIT 1
           RETURNING id`,
          [status, approval, endedDaysAgo],
        )
      ).rows[0]?.id as string;
    const old = await insert('completed', 'auto', 31);
    const older = await insert('failed', 'auto', 40);
    const recent = await insert('completed', 'auto', 29);
    const waiting = await insert('pending', 'pending', null);
    await server.pool.query(
      `INSERT INTO run_logs (run_id, seq, level, time, msg) VALUES ($1, 1, 'info', now(), 'kept with its run')`,
      [old],
    );
    expect(await pruneEndedRuns(server.pool, 30)).toBeGreaterThanOrEqual(2);
    const left = await server.pool.query('SELECT id FROM runs WHERE id = ANY($1::bigint[])', [
      [old, older, recent, waiting],
    ]);
    expect(left.rows.map((row) => String(row.id)).sort()).toEqual([recent, waiting].sort());
    expect((await server.pool.query('SELECT 1 FROM run_logs WHERE run_id = $1', [old])).rowCount).toBe(0);
  });
  it('claim an auth run whatever its connection’s status, never another run of one not active', async () => {
    // Only this test's runs are pending.
    await server.pool.query(`UPDATE runs SET status = 'cancelled' WHERE status IN ('pending', 'running')`);
    const connection = (
      await server.pool.query<{ id: string; org_id: string }>(
        'SELECT id, org_id FROM connections ORDER BY id LIMIT 1',
      )
    ).rows[0] as { id: string; org_id: string };
    await server.pool.query(`UPDATE connections SET status = 'revoked' WHERE id = $1`, [connection.id]);
    const insert = async (runType: string) =>
      (
        await server.pool.query<{ id: string }>(
          `INSERT INTO runs (org_id, run_type, feed_id, connection_id, connector_key)
           VALUES ($1, $2, CASE WHEN $2 = 'sync' THEN $3::bigint END, $4, 'rss') RETURNING id`,
          [connection.org_id, runType, feedId, connection.id],
        )
      ).rows[0]?.id as string;
    await insert('sync');
    const auth = await insert('auth');
    const claimed = await claimRun(server.pool, 'w', 60_000);
    expect(claimed).toMatchObject({ id: auth, runType: 'auth' });
    expect(await claimRun(server.pool, 'w', 60_000)).toBeNull();
    // Its statuses are events of its stream, whoever wrote them: the insert, the claim, the reaper.
    await server.pool.query(`UPDATE runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [
      auth,
    ]);
    expect(await reapLapsedRuns(server.pool)).toBe(1);
    const events = await server.pool.query<{ seq: number; type: string; data: { status: string } }>(
      'SELECT seq, type, data FROM auth_run_events WHERE run_id = $1 ORDER BY seq',
      [auth],
    );
    expect(events.rows.map((e) => [e.seq, e.type, e.data.status])).toEqual([
      [1, 'status', 'pending'],
      [2, 'status', 'running'],
      [3, 'status', 'timeout'],
    ]);
    await server.pool.query(`UPDATE connections SET status = 'active' WHERE id = $1`, [connection.id]);
    await server.pool.query(`UPDATE runs SET status = 'cancelled' WHERE status IN ('pending', 'running')`);
  });
});
