import type { Pool, PoolClient } from 'pg';
import { rollback, transaction, whileFenced } from '../db/transaction.js';

/** A run a worker holds: `leaseToken` fences every write it makes. */
export interface ClaimedRun {
  id: string;
  orgId: string;
  runType: 'sync' | 'action' | 'auth';
  feedId: string | null;
  connectionId: string;
  actionKey: string | null;
  leaseToken: number;
  /** Run once more already, after the service refused its OAuth token and the token was renewed. */
  authRetried?: boolean;
}

/** NOTIFY channel: a run may be claimable (requested, approved, handed back). A hint; workers also poll. */
export const RUNS_CHANNEL = 'svc_runs';
/** NOTIFY channel, payload the run's id: a run was cancelled; its worker stops it. */
export const RUN_CANCEL_CHANNEL = 'svc_run_cancel';

/** Failures in a row after which a feed stops syncing (status `error`) until a user resumes it. */
export const MAX_CONSECUTIVE_FAILURES = 5;
const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 6 * 3_600_000;

/** When a feed that failed `failures` times in a row tries again: 1 min, doubling, at most 6 h. */
export const retryDelayMs = (failures: number) =>
  Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1));

/**
 * A pending sync for every active feed of an active connection whose time has come, in one
 * statement; safe on every replica at once.
 *
 * A feed with an open sync (pending or running) in this statement's snapshot is left alone. The
 * unique index on open syncs alone is not enough: a sync ending as this statement runs updates
 * its run and its feed's next_sync_at in one transaction, and an insert that ran into the run in
 * the index would wait for that transaction and then go ahead, on the feed's old, due schedule (a
 * second sync right after the first). The index still settles two schedulers inserting at once.
 */
export async function scheduleDueFeeds(pool: Pool): Promise<number> {
  const { rowCount } = await pool.query(
    `INSERT INTO runs (org_id, run_type, feed_id, connection_id, connector_key)
     SELECT f.org_id, 'sync', f.id, f.connection_id, c.connector_key
       FROM feeds f JOIN connections c ON c.id = f.connection_id
      WHERE f.status = 'active' AND c.status = 'active' AND f.next_sync_at <= now()
        AND NOT EXISTS (SELECT 1 FROM runs r
                         WHERE r.feed_id = f.id AND r.run_type = 'sync' AND r.status IN ('pending', 'running'))
      ORDER BY f.next_sync_at
      LIMIT 500
     ON CONFLICT DO NOTHING`,
  );
  return rowCount ?? 0;
}

/**
 * Claims the oldest pending run that may run now, in one statement: approved (or needing no
 * approval), of an active connection (an `auth` run, of a connection in any status: it is what
 * makes a new, failed or revoked connection active), and of a connector that runs on the cloud fleet (one that
 * declares `runtime.platforms` runs on a device, never here). The fencing token is raised and the
 * connector's version recorded as it is taken.
 *
 * The connection is checked in a subquery rather than a join so that the plan is the same whatever
 * the planner's statistics: walk the index of pending runs in order and stop at the first that
 * qualifies. Joined, an unanalyzed `connections` (a small deployment's: autovacuum analyzes a table
 * once 50 of its rows changed) made the planner read and sort every pending run at each claim, and
 * a burst of runs drain in quadratic time. Prepared once per connection (`name`).
 */
export async function claimRun(pool: Pool, workerId: string, leaseMs: number): Promise<ClaimedRun | null> {
  const { rows } = await pool.query<{
    id: string;
    org_id: string;
    run_type: ClaimedRun['runType'];
    feed_id: string | null;
    connection_id: string;
    action_key: string | null;
    lease_token: string;
    auth_retried: boolean;
  }>({
    name: 'svc.claimRun',
    text: `WITH candidate AS (
       SELECT r.id FROM runs r
        WHERE r.status = 'pending' AND r.approval_status IN ('auto', 'approved')
          AND (SELECT (c.status = 'active' OR r.run_type = 'auth') AND NOT d.runs_on_device
                 FROM connections c
                 JOIN connector_definitions d ON d.org_id = c.org_id AND d.connector_key = c.connector_key
                WHERE c.id = r.connection_id)
        ORDER BY r.created_at, r.id
        LIMIT 1
        FOR UPDATE OF r SKIP LOCKED
     )
     UPDATE runs r
        SET status = 'running', lease_token = r.lease_token + 1, claimed_by = $1, claimed_at = now(),
            last_heartbeat_at = now(), lease_expires_at = now() + make_interval(secs => $2 / 1000.0),
            connector_version = (SELECT d.version FROM connections c
                                   JOIN connector_definitions d ON d.org_id = c.org_id AND d.connector_key = c.connector_key
                                  WHERE c.id = r.connection_id)
       FROM candidate WHERE r.id = candidate.id
     RETURNING r.id, r.org_id, r.run_type, r.feed_id, r.connection_id, r.action_key, r.lease_token, r.auth_retried`,
    values: [workerId, leaseMs],
  });
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    orgId: String(row.org_id),
    runType: row.run_type,
    feedId: row.feed_id,
    connectionId: row.connection_id,
    actionKey: row.action_key,
    leaseToken: Number(row.lease_token),
    authRetried: row.auth_retried,
  };
}

/** Extends the lease; false when the run is no longer this worker's (it must stop). */
export async function heartbeat(pool: Pool, run: ClaimedRun, leaseMs: number): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE runs SET last_heartbeat_at = now(), lease_expires_at = now() + make_interval(secs => $3 / 1000.0)
      WHERE id = $1 AND lease_token = $2 AND status = 'running'`,
    [run.id, run.leaseToken, leaseMs],
  );
  return rowCount === 1;
}

export class RunLeaseLostError extends Error {
  constructor(runId: string) {
    super(`run ${runId} is no longer this worker's (its lease lapsed, or it was cancelled)`);
    this.name = 'RunLeaseLostError';
  }
}

/**
 * Runs `work` in a transaction that holds the run's row, only while the lease is this worker's:
 * a worker paused past its lease (and whose run another now holds) writes nothing.
 */
export async function whileHeld<T>(
  pool: Pool,
  run: ClaimedRun,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  return whileFenced(
    pool,
    { table: 'runs', id: run.id, status: 'running', leaseToken: run.leaseToken },
    work,
    () => {
      throw new RunLeaseLostError(run.id);
    },
  );
}

/**
 * Settles the feed of each run in the CTE `ended` (`feed_id`, and `feed_error`: null when the sync
 * completed): a success resets the failures and schedules the next sync at its interval; a failure
 * counts, waits `retryDelayMs`, and after MAX_CONSECUTIVE_FAILURES stops the feed (`error`).
 * The constants are numbers of this module, never input.
 */
const SETTLE_FEEDS = `
  UPDATE feeds f
     SET consecutive_failures = CASE WHEN e.feed_error IS NULL THEN 0 ELSE f.consecutive_failures + 1 END,
         last_error = e.feed_error,
         last_sync_status = CASE WHEN e.feed_error IS NULL THEN 'completed' ELSE 'failed' END,
         last_sync_at = now(), updated_at = now(),
         status = CASE WHEN e.feed_error IS NOT NULL AND f.status = 'active'
                        AND f.consecutive_failures + 1 >= ${MAX_CONSECUTIVE_FAILURES} THEN 'error' ELSE f.status END,
         next_sync_at = CASE
           WHEN e.feed_error IS NULL THEN now() + make_interval(secs => f.sync_interval_ms / 1000.0)
           WHEN f.consecutive_failures + 1 >= ${MAX_CONSECUTIVE_FAILURES} THEN NULL
           ELSE now() + make_interval(secs => least(${LONGEST_RETRY_MS}, ${FIRST_RETRY_MS} * 2 ^ f.consecutive_failures) / 1000.0)
         END
    FROM ended e WHERE f.id = e.feed_id`;

/** How a run ended: an action's output is kept either way (a failed ActionResult says why). */
export type RunOutcome =
  | { status: 'completed'; actionOutput?: Record<string, unknown> | null }
  | { status: 'failed' | 'timeout'; errorMessage: string; actionOutput?: Record<string, unknown> | null };

/**
 * The run ends, with its feed's schedule, in one statement fenced by the run's lease token: false
 * (and nothing written) when the run is no longer this worker's. Inside `whileHeld` it always is.
 */
export async function endRun(
  client: Pool | PoolClient,
  run: ClaimedRun,
  outcome: RunOutcome,
): Promise<boolean> {
  const error = outcome.status === 'completed' ? null : outcome.errorMessage;
  const { rows } = await client.query<{ ended: number }>({
    name: 'svc.endRun',
    text: `WITH ended AS (
       UPDATE runs SET status = $3, error_message = $4, action_output = coalesce($5::jsonb, action_output),
              completed_at = now(), lease_expires_at = NULL
        WHERE id = $1 AND lease_token = $2 AND status = 'running'
        RETURNING feed_id,
                  CASE WHEN status <> 'completed' THEN coalesce(error_message, 'the sync failed without saying why') END
                    AS feed_error
     ), settled AS (${SETTLE_FEEDS})
     SELECT count(*)::int AS ended FROM ended`,
    values: [
      run.id,
      run.leaseToken,
      outcome.status,
      error,
      outcome.actionOutput ? JSON.stringify(outcome.actionOutput) : null,
    ],
  });
  return rows[0]?.ended === 1;
}

/**
 * The run ends (completed, failed, timed out), with its feed's schedule. One fenced statement, no
 * transaction around it: a worker whose lease lapsed gets RunLeaseLostError and changed nothing.
 */
export async function finishRun(pool: Pool, run: ClaimedRun, outcome: RunOutcome): Promise<void> {
  if (!(await endRun(pool, run, outcome))) throw new RunLeaseLostError(run.id);
}

/**
 * A sync this worker will not finish (it is shutting down) goes back to the queue at once, for
 * another worker to take from the last committed checkpoint. Actions are not handed back: one
 * may have had its effect already, and running it twice is worse than reporting it timed out.
 */
export async function handBackRun(pool: Pool, run: ClaimedRun): Promise<void> {
  await whileHeld(pool, run, async (client) => {
    await client.query(
      `UPDATE runs SET status = 'pending', claimed_by = NULL, lease_expires_at = NULL WHERE id = $1`,
      [run.id],
    );
    await client.query(`SELECT pg_notify('${RUNS_CHANNEL}', '')`);
  });
}

/**
 * A run whose OAuth token the service refused goes back to the queue once, after the token was
 * renewed: what it stored so far stays (events are unique, the checkpoint committed), and the
 * run starts again with the new token.
 */
export async function retryWithRenewedToken(pool: Pool, run: ClaimedRun): Promise<void> {
  await whileHeld(pool, run, async (client) => {
    await client.query(
      `UPDATE runs SET status = 'pending', auth_retried = true, claimed_by = NULL, lease_expires_at = NULL WHERE id = $1`,
      [run.id],
    );
    await client.query(`SELECT pg_notify('${RUNS_CHANNEL}', '')`);
  });
}

/**
 * A sync of the feed now, or the one already open (pending or running): a second click makes no
 * second run. Null when the feed is not there.
 */
export async function requestSync(
  pool: Pool,
  orgId: string,
  feedId: string,
): Promise<{ id: string; created: boolean } | null> {
  // The open run the insert ran into may end before it is read; then there is room for a new one.
  for (let attempt = 0; attempt < 3; attempt++) {
    const outcome = await transaction(pool, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO runs (org_id, run_type, feed_id, connection_id, connector_key)
         SELECT f.org_id, 'sync', f.id, f.connection_id, c.connector_key
           FROM feeds f JOIN connections c ON c.id = f.connection_id WHERE f.org_id = $1 AND f.id = $2
         ON CONFLICT DO NOTHING RETURNING id`,
        [orgId, feedId],
      );
      if (rows[0]) {
        await client.query(`SELECT pg_notify('${RUNS_CHANNEL}', '')`);
        return { id: rows[0].id, created: true };
      }
      const open = await client.query<{ id: string }>(
        `SELECT id FROM runs WHERE org_id = $1 AND feed_id = $2 AND run_type = 'sync' AND status IN ('pending', 'running')`,
        [orgId, feedId],
      );
      if (open.rows[0]) return { id: open.rows[0].id, created: false };
      const feed = await client.query('SELECT 1 FROM feeds WHERE org_id = $1 AND id = $2', [orgId, feedId]);
      return feed.rowCount === 0 ? null : 'again';
    });
    if (outcome !== 'again') return outcome;
  }
  throw new Error(`feed ${feedId}: its open sync kept ending before it could be read`);
}

/**
 * Stops a pending or running run: it is `cancelled` at once (what the API answers is true from
 * now on), its worker is told (NOTIFY; its next write is refused anyway), and its feed syncs again
 * at its usual interval: a cancel is not a failure. Answers the run's status before, or null when
 * there is no such run.
 */
export async function cancelRun(
  pool: Pool,
  orgId: string,
  runId: string,
  by: string,
): Promise<{ before: string } | null> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ status: string; feed_id: string | null }>(
      'SELECT status, feed_id FROM runs WHERE org_id = $1 AND id = $2 FOR UPDATE',
      [orgId, runId],
    );
    const row = rows[0];
    if (!row) return null;
    if (row.status !== 'pending' && row.status !== 'running') return { before: row.status };
    await client.query(
      `UPDATE runs SET status = 'cancelled', cancelled_by = $2, completed_at = now(), lease_expires_at = NULL,
              error_message = 'cancelled by ' || $2
        WHERE id = $1`,
      [runId, by],
    );
    // Pending or running, the feed waits its usual interval: a cancelled sync is not scheduled
    // again at once (a pending one's feed is still due).
    if (row.feed_id) {
      await client.query(
        `UPDATE feeds SET last_sync_status = 'cancelled', last_sync_at = now(),
                next_sync_at = CASE WHEN status = 'active' THEN now() + make_interval(secs => sync_interval_ms / 1000.0) END,
                updated_at = now()
          WHERE id = $1`,
        [row.feed_id],
      );
    }
    await client.query(`SELECT pg_notify('${RUN_CANCEL_CHANNEL}', $1)`, [runId]);
    return { before: row.status };
  });
}

/**
 * Approves or rejects an action run waiting for it. Rejected, it never runs (status `cancelled`).
 * Answers the approval status before, or null when there is no such run.
 */
export async function decideRun(
  pool: Pool,
  orgId: string,
  runId: string,
  decision: 'approved' | 'rejected',
  by: string,
): Promise<{ before: string; status: string } | null> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ approval_status: string; status: string }>(
      'SELECT approval_status, status FROM runs WHERE org_id = $1 AND id = $2 FOR UPDATE',
      [orgId, runId],
    );
    const row = rows[0];
    if (!row) return null;
    if (row.approval_status !== 'pending' || row.status !== 'pending') {
      return { before: row.approval_status, status: row.status };
    }
    await client.query(
      decision === 'approved'
        ? `UPDATE runs SET approval_status = 'approved' WHERE id = $1`
        : `UPDATE runs SET approval_status = 'rejected', status = 'cancelled', completed_at = now(),
                  error_message = 'rejected by ' || $2 WHERE id = $1`,
      decision === 'approved' ? [runId] : [runId, by],
    );
    if (decision === 'approved') await client.query(`SELECT pg_notify('${RUNS_CHANNEL}', '')`);
    return { before: 'pending', status: decision === 'approved' ? 'pending' : 'cancelled' };
  });
}

/**
 * Deletes runs that ended more than `days` ago (their log lines with them), at most `limit` a call:
 * a feed syncing every minute leaves 1,440 runs a day. Its own state (last sync, failures,
 * checkpoint) is on the feed, and its events keep their `run_id` as a plain number. Runs still
 * pending or running (an action awaiting approval, however old) are kept. Safe on every replica at
 * once (SKIP LOCKED); answers how many went.
 */
export async function pruneEndedRuns(pool: Pool, days: number, limit = 1000): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM runs WHERE id IN (
       SELECT id FROM runs
        WHERE status IN ('completed', 'failed', 'cancelled', 'timeout')
          AND completed_at < now() - make_interval(days => $1)
        LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [days, limit],
  );
  return rowCount ?? 0;
}

export const REAP_RUNS_LOCK = 7_306_918_277;

/**
 * Runs whose lease lapsed (their worker died, or was paused past it) end as `timeout`; a sync's
 * feed counts it as a failure and tries again after its backoff, so a run never stays `running`
 * without a worker. One reaper at a time across the deployment (an advisory lock); the others skip.
 */
export async function reapLapsedRuns(pool: Pool): Promise<number> {
  return transaction(pool, async (client) => {
    const { rows: lock } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [
      REAP_RUNS_LOCK,
    ]);
    if (!lock[0]?.ok) return rollback(0);
    const { rows } = await client.query<{ ended: number }>(
      `WITH lapsed AS (
         SELECT id FROM runs WHERE status = 'running' AND lease_expires_at < now()
          ORDER BY lease_expires_at LIMIT 100 FOR UPDATE SKIP LOCKED
       ), ended AS (
         UPDATE runs r SET status = 'timeout', completed_at = now(), lease_expires_at = NULL,
                error_message = 'its worker stopped renewing its lease (it died or was paused past it)'
           FROM lapsed l WHERE r.id = l.id
         RETURNING r.feed_id, 'the sync timed out: its worker stopped'::text AS feed_error
       ), settled AS (${SETTLE_FEEDS})
       SELECT count(*)::int AS ended FROM ended`,
    );
    return rows[0]?.ended ?? 0;
  });
}
