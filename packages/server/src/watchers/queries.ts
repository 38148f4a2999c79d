import type { Pool } from 'pg';
import { transaction } from '../db/transaction.js';
import { nextTick } from './schedule.js';

export interface WatcherRow {
  slug: string;
  name: string;
  agent_id: string;
  schedule: string;
  timezone: string | null;
  min_cooldown_seconds: number | null;
  tags: string[] | null;
  status: 'active' | 'paused';
  paused_reason: string | null;
  consecutive_failures: number;
  last_error: string | null;
  next_window_start: Date | null;
  created_at: Date;
  last_window: WindowRow | null;
}

export interface WindowRow {
  id: string;
  window_start: string;
  window_end: string;
  status: 'pending' | 'running' | 'completed' | 'failed';
  attempts: number;
  retry_at: string | null;
  run_id: string | null;
  message_id: string | null;
  conversation_id?: string | null;
  event_count: number | null;
  event_ids?: string[] | null;
  truncated: boolean;
  reply?: string | null;
  extracted_data?: Record<string, unknown> | null;
  error: string | null;
  summary_event_id: string | null;
  created_at: string;
  completed_at: string | null;
}

const WINDOW_COLUMNS = `w.id::text, w.window_start, w.window_end, w.status, w.attempts, w.retry_at, w.run_id::text,
  w.message_id, w.event_count, w.truncated, w.error, w.summary_event_id::text, w.created_at, w.completed_at`;

/** The org's watchers (one, with `slug`), each with its latest window. */
export async function listWatchers(pool: Pool, orgId: string, slug?: string): Promise<WatcherRow[]> {
  const { rows } = await pool.query<WatcherRow>(
    `SELECT s.slug, s.name, s.agent_id, s.schedule, s.timezone, s.min_cooldown_seconds, s.tags, s.status,
            s.paused_reason, s.consecutive_failures, s.last_error, s.next_window_start, s.created_at,
            (SELECT to_jsonb(x) FROM (SELECT ${WINDOW_COLUMNS} FROM watcher_windows w
                                       WHERE w.org_id = s.org_id AND w.watcher_slug = s.slug
                                       ORDER BY w.window_start DESC LIMIT 1) x) AS last_window
       FROM watchers s
      WHERE s.org_id = $1 AND ($2::text IS NULL OR s.slug = $2)
      ORDER BY s.slug`,
    [orgId, slug ?? null],
  );
  return rows;
}

/**
 * When the watcher's next window closes, as far as its schedule says: the first tick after its
 * mark (or after now, for a watcher not yet started), plus the settle delay. Null when paused or
 * when its cron never fires again.
 */
export function nextRunAt(watcher: WatcherRow, now: Date, settleMs: number): Date | null {
  if (watcher.status !== 'active') return null;
  try {
    const from =
      watcher.next_window_start && watcher.next_window_start > now ? watcher.next_window_start : now;
    const tick = nextTick(
      {
        schedule: watcher.schedule,
        timezone: watcher.timezone,
        minCooldownSeconds: watcher.min_cooldown_seconds,
      },
      new Date(Math.max(from.getTime(), now.getTime() - settleMs)),
    );
    return tick ? new Date(tick.getTime() + settleMs) : null;
  } catch {
    return null;
  }
}

/** A watcher's windows, newest first, a page at a time (`before`: the last id of the page before). */
export async function listWindows(
  pool: Pool,
  orgId: string,
  slug: string,
  page: { before: string | null; limit: number },
): Promise<WindowRow[]> {
  const { rows } = await pool.query<WindowRow>(
    `SELECT ${WINDOW_COLUMNS} FROM watcher_windows w
      WHERE w.org_id = $1 AND w.watcher_slug = $2 AND ($3::bigint IS NULL OR w.id < $3)
      ORDER BY w.id DESC LIMIT $4`,
    [orgId, slug, page.before, page.limit],
  );
  return rows;
}

/** One window with its result, the events it covered and the conversation its turn is in. */
export async function windowById(
  pool: Pool,
  orgId: string,
  slug: string,
  id: string,
): Promise<WindowRow | null> {
  const { rows } = await pool.query<WindowRow>(
    `SELECT ${WINDOW_COLUMNS}, w.reply, w.extracted_data, w.event_ids::text[] AS event_ids, m.conversation_id
       FROM watcher_windows w LEFT JOIN messages m ON m.id = w.message_id
      WHERE w.org_id = $1 AND w.watcher_slug = $2 AND w.id = $3`,
    [orgId, slug, id],
  );
  return rows[0] ?? null;
}

/**
 * A window now, for a person who asked: the watcher's open window is started at once when it
 * waits (its retry, or its time), or else a new one from the arrival mark to now. Answers the
 * window and whether it is new; null when the watcher does not exist; 'paused' when it is paused.
 */
export async function runWatcherNow(
  pool: Pool,
  orgId: string,
  slug: string,
): Promise<{ window: WindowRow; created: boolean } | 'paused' | null> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ status: string; next_window_start: Date | null; created_at: Date }>(
      'SELECT status, next_window_start, created_at FROM watchers WHERE org_id = $1 AND slug = $2 FOR UPDATE',
      [orgId, slug],
    );
    const watcher = rows[0];
    if (!watcher) return null;
    if (watcher.status !== 'active') return 'paused';
    const open = await client.query<WindowRow>(
      `UPDATE watcher_windows w SET retry_at = NULL
        WHERE org_id = $1 AND watcher_slug = $2 AND status IN ('pending', 'running', 'failed')
        RETURNING ${WINDOW_COLUMNS}`,
      [orgId, slug],
    );
    if (open.rows[0]) return { window: open.rows[0], created: false };
    // A watcher never run starts at when it was made: the window then holds what arrived since.
    const start = watcher.next_window_start ?? watcher.created_at;
    const made = await client.query<WindowRow>(
      `WITH watcher AS (
         UPDATE watchers SET next_window_start = $3 WHERE org_id = $1 AND slug = $2 RETURNING org_id, slug
       )
       INSERT INTO watcher_windows AS w (org_id, watcher_slug, window_start, window_end)
       SELECT org_id, slug, $3, greatest(now(), $3 + interval '1 millisecond') FROM watcher
       RETURNING ${WINDOW_COLUMNS}`,
      [orgId, slug, start],
    );
    return { window: made.rows[0] as WindowRow, created: true };
  });
}

/**
 * Pauses or resumes a watcher. Resumed, its failures are forgotten and a failed window is retried
 * at once. Answers the watcher, or null when there is none.
 */
export async function setWatcherStatus(
  pool: Pool,
  orgId: string,
  slug: string,
  status: 'active' | 'paused',
  by: string,
): Promise<boolean> {
  return transaction(pool, async (client) => {
    const { rowCount } = await client.query(
      status === 'paused'
        ? `UPDATE watchers SET status = 'paused', paused_reason = 'paused by ' || $3
            WHERE org_id = $1 AND slug = $2`
        : `UPDATE watchers SET status = 'active', paused_reason = NULL, consecutive_failures = 0
            WHERE org_id = $1 AND slug = $2`,
      status === 'paused' ? [orgId, slug, by] : [orgId, slug],
    );
    if (rowCount === 0) return false;
    if (status === 'active') {
      await client.query(
        `UPDATE watcher_windows SET retry_at = NULL WHERE org_id = $1 AND watcher_slug = $2 AND status = 'failed'`,
        [orgId, slug],
      );
    }
    return true;
  });
}

/**
 * Deletes a watcher with its windows and their runs (by cascade), taking their locks in the order
 * a settling or starting window takes them (window, its run, then the watcher): a plain
 * `DELETE FROM watchers` locks the watcher first and deadlocked with a window settling meanwhile.
 * Answers whether there was one.
 */
export async function deleteWatcher(pool: Pool, orgId: string, slug: string): Promise<boolean> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string }>(
      'SELECT id FROM watcher_windows WHERE org_id = $1 AND watcher_slug = $2 ORDER BY id FOR UPDATE',
      [orgId, slug],
    );
    await client.query(
      'SELECT id FROM runs WHERE watcher_window_id = ANY($1::bigint[]) ORDER BY id FOR UPDATE',
      [rows.map((row) => row.id)],
    );
    const { rowCount } = await client.query('DELETE FROM watchers WHERE org_id = $1 AND slug = $2', [
      orgId,
      slug,
    ]);
    return (rowCount ?? 0) > 0;
  });
}
