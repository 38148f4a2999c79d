import type { AgentConfig, NotificationChannel, WatcherSource } from '@svc/core';
import type { Pool, PoolClient } from 'pg';
import { rollback, transaction } from '../db/transaction.js';
import { selectModels } from '../llm/select.js';
import { OUTBOX_CHANNEL } from '../outbox/queue.js';
import { retryDelayMs } from '../runs/queue.js';
import { WORK_CHANNEL } from '../turns/events.js';
import { estimateTokens, systemPrompt } from '../turns/prompt.js';
import { windowContent } from './content.js';
import { notificationTarget, postedText } from './notify.js';
import { windowResult } from './result.js';
import { previousTick, type WatcherClock, windowEnd, windowPeriod } from './schedule.js';
import { summaryOriginPrefix } from './sources.js';

/** Failed windows in a row after which a watcher pauses itself, its last error kept. */
export const WATCHER_MAX_FAILURES = 5;
/** The conversation platform of watcher turns: `internal.` names are the server's own. */
export const WATCHER_PLATFORM = 'internal.watcher';
const OUTPUT_RESERVE_TOKENS = 4096;
/** What the tools' definitions and the model's own notes take of a window turn's context. */
const TOOLS_RESERVE_TOKENS = 2000;

const clockOf = (row: {
  schedule: string;
  timezone: string | null;
  min_cooldown_seconds: number | null;
}): WatcherClock => ({
  schedule: row.schedule,
  timezone: row.timezone,
  minCooldownSeconds: row.min_cooldown_seconds,
});

/**
 * Makes the next window of every active watcher whose time has come: from its arrival mark (or,
 * for a new watcher, the tick before it was made) to its latest tick that is `settleMs` past at
 * `now`. Safe on every replica at once: a window is one row per (watcher, start), and a watcher
 * has at most one open window, both unique keys; whoever inserts second inserts nothing.
 */
export async function openDueWindows(pool: Pool, now: Date, settleMs: number): Promise<number> {
  const { rows } = await pool.query<{
    org_id: string;
    slug: string;
    schedule: string;
    timezone: string | null;
    min_cooldown_seconds: number | null;
    next_window_start: Date | null;
    created_at: Date;
  }>(
    `SELECT w.org_id, w.slug, w.schedule, w.timezone, w.min_cooldown_seconds, w.next_window_start, w.created_at
       FROM watchers w
      WHERE w.status = 'active'
        AND NOT EXISTS (SELECT 1 FROM watcher_windows x
                         WHERE x.org_id = w.org_id AND x.watcher_slug = w.slug
                           AND x.status IN ('pending', 'running', 'failed'))`,
  );
  if (rows.length === 0) return 0;
  // An event's created_at is its transaction's start: while a transaction that began before a
  // window's end is open, rows may still arrive in that window. Such windows wait for it.
  const open = await oldestOpenTransaction(pool);
  const closedBy = new Date(
    Math.min(now.getTime() - settleMs, open ? open.getTime() : Number.POSITIVE_INFINITY),
  );
  let opened = 0;
  for (const row of rows) {
    const clock = clockOf(row);
    let start: Date;
    let end: Date | null;
    try {
      start = row.next_window_start ?? previousTick(clock, row.created_at) ?? row.created_at;
      end = windowEnd(clock, start, closedBy);
    } catch {
      continue; // a schedule stored before it was checked: listed with its problem, never run
    }
    if (!end) continue;
    // The mark is compared with what was read, so a window that completed meanwhile (and moved
    // it) or a pause makes this insert nothing.
    const { rowCount } = await pool.query(
      `WITH watcher AS (
         UPDATE watchers SET next_window_start = $3
          WHERE org_id = $1 AND slug = $2 AND status = 'active' AND next_window_start IS NOT DISTINCT FROM $5
         RETURNING org_id, slug
       )
       INSERT INTO watcher_windows (org_id, watcher_slug, window_start, window_end)
       SELECT org_id, slug, $3, $4 FROM watcher
       ON CONFLICT DO NOTHING`,
      [row.org_id, row.slug, start, end, row.next_window_start],
    );
    opened += rowCount ?? 0;
  }
  return opened;
}

/**
 * Transactions open longer than this are not waited for: a window would otherwise wait for ever
 * on a session left idle in a transaction. Rows such a transaction writes into an earlier window
 * are then not read by it (README, "Watchers").
 */
export const LONGEST_WAIT_MS = 10 * 60_000;

/**
 * When the oldest transaction of a client of this database that is still open began, if less than
 * LONGEST_WAIT_MS ago (autovacuum and other server processes aside).
 */
async function oldestOpenTransaction(pool: Pool): Promise<Date | null> {
  const { rows } = await pool.query<{ at: Date | null }>(
    `SELECT min(xact_start) AS at FROM pg_stat_activity
      WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
        AND state <> 'idle' AND xact_start > now() - make_interval(secs => $1 / 1000.0)`,
    [LONGEST_WAIT_MS],
  );
  return rows[0]?.at ?? null;
}

interface DueWindow {
  id: string;
  org_id: string;
  watcher_slug: string;
  window_start: Date;
  window_end: Date;
  attempts: number;
  name: string;
  prompt: string;
  agent_id: string;
  schedule: string;
  timezone: string | null;
  min_cooldown_seconds: number | null;
  sources: WatcherSource[] | null;
  extraction_schema: Record<string, unknown> | null;
  agent_name: string;
  agent_description: string;
  providers: { key: string; secret_ref: string }[];
  config: Partial<AgentConfig>;
}

/** How many tokens of events a window's turn may be given: what a turn of its agent has left. */
function eventBudget(window: DueWindow, env: Record<string, string | undefined>): number {
  const { candidates } = selectModels(
    { agentId: window.agent_id, providers: window.providers, config: window.config },
    env,
  );
  const first = candidates[0];
  const context = first?.entry.contextTokens ?? 32_000;
  const system = systemPrompt({
    name: window.agent_name,
    description: window.agent_description,
    config: window.config,
  });
  return (
    context -
    (first?.maxOutputTokens ?? OUTPUT_RESERVE_TOKENS) -
    estimateTokens(system) -
    estimateTokens(window.prompt) -
    TOOLS_RESERVE_TOKENS
  );
}

/** The window's label as people read it: "day of 2026-11-26 (Europe/Berlin)". */
export function windowLabel(
  watcher: { schedule: string; timezone: string | null; min_cooldown_seconds: number | null },
  end: Date,
): string {
  try {
    const { granularity, periodStart } = windowPeriod(clockOf(watcher), end);
    const local = new Intl.DateTimeFormat('sv-SE', {
      timeZone: watcher.timezone ?? 'UTC',
      dateStyle: 'short',
      timeStyle: granularity === 'minute' || granularity === 'hour' ? 'short' : undefined,
    }).format(periodStart);
    return `${granularity} of ${local} (${watcher.timezone ?? 'UTC'})`;
  } catch {
    return end.toISOString();
  }
}

/**
 * Starts one window whose time (or retry) has come, in one transaction: the message its agent
 * answers (in a conversation of its own), the `watcher` run that records the attempt, and the
 * window marked running with the events it covers. The turn workers take the message like any
 * other; `settleWindow` reads its end. Answers whether there was one to start.
 */
export async function startDueWindow(
  pool: Pool,
  env: Record<string, string | undefined>,
  now: Date,
): Promise<boolean> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<DueWindow>(
      `SELECT w.id, w.org_id, w.watcher_slug, w.window_start, w.window_end, w.attempts,
              s.name, s.prompt, s.agent_id, s.schedule, s.timezone, s.min_cooldown_seconds, s.sources,
              s.extraction_schema, a.name AS agent_name, a.description AS agent_description, a.providers, a.config
         FROM watcher_windows w
         JOIN watchers s ON s.org_id = w.org_id AND s.slug = w.watcher_slug
         JOIN agents a ON a.org_id = s.org_id AND a.agent_id = s.agent_id
        WHERE w.status IN ('pending', 'failed') AND coalesce(w.retry_at, '-infinity') <= $1 AND s.status = 'active'
        ORDER BY w.id
        LIMIT 1
          FOR UPDATE OF w SKIP LOCKED`,
      [now],
    );
    const window = rows[0];
    if (!window) return rollback(false);
    // A window that cannot be started (its sources, its events) fails with the reason and waits
    // its backoff, rather than being picked first, and failing, at every pass.
    await client.query('SAVEPOINT start_window');
    try {
      await startWindow(client, window, env);
    } catch (error) {
      await client.query('ROLLBACK TO SAVEPOINT start_window');
      await client.query(`UPDATE watcher_windows SET attempts = attempts + 1 WHERE id = $1`, [window.id]);
      await failWindow(
        client,
        { ...window, attempts: window.attempts + 1, run_id: null },
        `it could not be started: ${(error as Error).message.slice(0, 500)}`,
      );
    }
    return true;
  });
}

/** The message, run and state of a window starting, in the caller's transaction. */
async function startWindow(
  client: PoolClient,
  window: DueWindow,
  env: Record<string, string | undefined>,
): Promise<void> {
  const label = windowLabel(window, window.window_end);
  const content = await windowContent(
    client,
    {
      orgId: window.org_id,
      watcherSlug: window.watcher_slug,
      start: window.window_start,
      end: window.window_end,
      sources: window.sources,
    },
    {
      prompt: window.prompt,
      extractionSchema: window.extraction_schema,
      label,
      memoryTools: window.config.toolsConfig?.memory !== false,
    },
    eventBudget(window, env),
  );
  const attempt = window.attempts + 1;
  const conversation = await client.query<{ id: string; last_seq: string }>(
    `INSERT INTO conversations (org_id, agent_id, platform, channel, thread, owner, last_seq)
     VALUES ($1, $2, $3, $4, $5, '', 1)
     ON CONFLICT (org_id, agent_id, platform, channel, thread, owner)
       DO UPDATE SET last_seq = conversations.last_seq + 1
     RETURNING id, last_seq`,
    [
      window.org_id,
      window.agent_id,
      WATCHER_PLATFORM,
      window.watcher_slug,
      // One conversation per attempt: a retry starts clean, not after the failed answer.
      `${window.window_start.toISOString()}#${attempt}`,
    ],
  );
  const { id: conversationId, last_seq: seq } = conversation.rows[0] as { id: string; last_seq: string };
  const message = await client.query<{ id: string }>(
    `INSERT INTO messages (conversation_id, org_id, agent_id, content, created_at)
     VALUES ($1, $2, $3, $4, clock_timestamp()) RETURNING id`,
    [conversationId, window.org_id, window.agent_id, content.text],
  );
  const messageId = (message.rows[0] as { id: string }).id;
  await client.query(
    `INSERT INTO conversation_events (conversation_id, seq, message_id, type, data)
     VALUES ($1, $2, $3::uuid, 'message.queued', jsonb_build_object('messageId', $3::text, 'content', $4::text))`,
    [conversationId, seq, messageId, content.text],
  );
  const run = await client.query<{ id: string }>(
    `INSERT INTO runs (org_id, run_type, status, watcher_window_id, watcher_slug, claimed_at, last_heartbeat_at)
     VALUES ($1, 'watcher', 'running', $2, $3, now(), now()) RETURNING id`,
    [window.org_id, window.id, window.watcher_slug],
  );
  await client.query(
    `UPDATE watcher_windows
        SET status = 'running', attempts = $2, retry_at = NULL, run_id = $3, message_id = $4,
            event_ids = $5, event_count = $6, truncated = $7
      WHERE id = $1`,
    [
      window.id,
      attempt,
      (run.rows[0] as { id: string }).id,
      messageId,
      content.eventIds,
      content.eventCount,
      content.truncated,
    ],
  );
  await client.query('SELECT pg_notify($1, $2)', [WORK_CHANNEL, '']);
}

interface SettlingWindow {
  id: string;
  org_id: string;
  watcher_slug: string;
  window_start: Date;
  window_end: Date;
  status: string;
  attempts: number;
  run_id: string | null;
  message_id: string | null;
  event_ids: string[] | null;
  event_count: number | null;
  name: string;
  agent_id: string;
  schedule: string;
  timezone: string | null;
  min_cooldown_seconds: number | null;
  extraction_schema: Record<string, unknown> | null;
  notification_channel: NotificationChannel | null;
  message_status: string | null;
  reply: string | null;
  message_error: { code?: string; detail?: string } | string | null;
}

const problemText = (error: SettlingWindow['message_error']) => {
  if (!error) return 'its turn failed without saying why';
  if (typeof error === 'string') return error;
  return `${error.code ?? 'failed'}: ${error.detail ?? ''}`.trim();
};

/**
 * Ends a running window once its turn has ended, in one transaction under the window's row lock
 * (so it ends once, whoever calls): a completed turn whose reply is valid stores the result, writes
 * the summary event, moves the arrival mark and posts the result where the watcher says; any other
 * end fails the window, to be retried after a backoff, and pauses the watcher after
 * WATCHER_MAX_FAILURES in a row. Answers the window's status after, or null when it is still running.
 */
export async function settleWindow(pool: Pool, windowId: string): Promise<string | null> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<SettlingWindow>(
      `SELECT w.id, w.org_id, w.watcher_slug, w.window_start, w.window_end, w.status, w.attempts, w.run_id,
              w.message_id, w.event_ids, w.event_count, s.name, s.agent_id, s.schedule, s.timezone,
              s.min_cooldown_seconds, s.extraction_schema, s.notification_channel,
              m.status AS message_status, m.reply, m.error AS message_error
         FROM watcher_windows w
         JOIN watchers s ON s.org_id = w.org_id AND s.slug = w.watcher_slug
         LEFT JOIN messages m ON m.id = w.message_id
        WHERE w.id = $1
          FOR UPDATE OF w`,
      [windowId],
    );
    const window = rows[0];
    if (!window || window.status !== 'running') return window?.status ?? null;
    if (window.message_status && !['completed', 'failed'].includes(window.message_status)) return null;
    const result =
      window.message_status === 'completed'
        ? windowResult(window.reply ?? '', window.extraction_schema)
        : {
            ok: false as const,
            error: window.message_status
              ? problemText(window.message_error)
              : 'its turn is gone (its message was deleted)',
          };
    if (!result.ok) {
      await failWindow(client, window, result.error);
      return 'failed';
    }
    await completeWindow(client, window, result.extractedData);
    return 'completed';
  });
}

async function failWindow(
  client: PoolClient,
  window: Pick<SettlingWindow, 'id' | 'org_id' | 'watcher_slug' | 'attempts' | 'run_id'>,
  error: string,
): Promise<void> {
  await client.query(
    `UPDATE watcher_windows SET status = 'failed', error = $2, retry_at = now() + make_interval(secs => $3 / 1000.0)
      WHERE id = $1`,
    [window.id, error, retryDelayMs(window.attempts)],
  );
  await client.query(
    `UPDATE runs SET status = 'failed', error_message = $2, completed_at = now() WHERE id = $1 AND status = 'running'`,
    [window.run_id, error],
  );
  await client.query(
    `UPDATE watchers
        SET consecutive_failures = consecutive_failures + 1, last_error = $3,
            status = CASE WHEN consecutive_failures + 1 >= ${WATCHER_MAX_FAILURES} THEN 'paused' ELSE status END,
            paused_reason = CASE WHEN consecutive_failures + 1 >= ${WATCHER_MAX_FAILURES}
                                 THEN 'paused itself after ${WATCHER_MAX_FAILURES} failed windows in a row; the last: ' || $3
                                 ELSE paused_reason END
      WHERE org_id = $1 AND slug = $2`,
    [window.org_id, window.watcher_slug, error],
  );
}

async function completeWindow(
  client: PoolClient,
  window: SettlingWindow,
  extractedData: Record<string, unknown> | null,
): Promise<void> {
  const reply = window.reply ?? '';
  const label = windowLabel(window, window.window_end);
  const summary = await client.query<{ id: string }>(
    `INSERT INTO events (org_id, origin_id, origin_type, semantic_type, payload_type, payload_text, payload_data,
                         title, author_name, occurred_at, metadata)
     VALUES ($1, $2, 'watcher', 'summary', 'markdown', $3, $4, $5, $6, $7, $8)
     ON CONFLICT (org_id, origin_type, origin_id) WHERE connection_id IS NULL
       DO UPDATE SET payload_text = EXCLUDED.payload_text, payload_data = EXCLUDED.payload_data, updated_at = now()
     RETURNING id`,
    [
      window.org_id,
      `${summaryOriginPrefix(window.watcher_slug)}${window.window_start.toISOString()}`,
      reply,
      extractedData ? JSON.stringify(extractedData) : null,
      `${window.name}: ${label}`,
      window.name,
      window.window_end,
      JSON.stringify({
        watcher: window.watcher_slug,
        windowId: window.id,
        windowStart: window.window_start.toISOString(),
        windowEnd: window.window_end.toISOString(),
        eventCount: window.event_count ?? 0,
      }),
    ],
  );
  const summaryId = (summary.rows[0] as { id: string }).id;
  // The summary is about what its window's events are about.
  await client.query(
    `INSERT INTO event_entities (event_id, entity_id)
     SELECT DISTINCT $1::bigint, ee.entity_id FROM event_entities ee WHERE ee.event_id = ANY($2::bigint[])
     ON CONFLICT DO NOTHING`,
    [summaryId, window.event_ids ?? []],
  );
  const notice = await notify(client, window, reply, extractedData);
  await client.query(
    `UPDATE watcher_windows
        SET status = 'completed', reply = $2, extracted_data = $3, summary_event_id = $4, error = $5,
            completed_at = now()
      WHERE id = $1`,
    [window.id, reply, extractedData ? JSON.stringify(extractedData) : null, summaryId, notice],
  );
  await client.query(
    `UPDATE runs SET status = 'completed', completed_at = now() WHERE id = $1 AND status = 'running'`,
    [window.run_id],
  );
  await client.query(
    `UPDATE watchers
        SET consecutive_failures = 0, last_error = NULL,
            next_window_start = CASE WHEN next_window_start = $3 THEN $4 ELSE next_window_start END
      WHERE org_id = $1 AND slug = $2`,
    [window.org_id, window.watcher_slug, window.window_start, window.window_end],
  );
}

/**
 * Queues the result for the watcher's `notification_channel` through the outbox (posted once: the
 * outbox is unique per message and part, and this runs once per window). Answers why it was not
 * posted, or null.
 */
async function notify(
  client: PoolClient,
  window: SettlingWindow,
  reply: string,
  extractedData: Record<string, unknown> | null,
): Promise<string | null> {
  const channel = window.notification_channel;
  if (!channel || typeof channel === 'string' || !window.message_id) return null;
  const { rows } = await client.query<{ type: string; config: Record<string, unknown> }>(
    'SELECT type, config FROM platforms WHERE stable_id = $1 AND org_id = $2 AND agent_id = $3',
    [channel.platform, window.org_id, window.agent_id],
  );
  const platform = rows[0];
  if (!platform) {
    return `the result was not posted: "${channel.platform}" is not a platform of agent "${window.agent_id}"`;
  }
  const target = notificationTarget(platform, channel);
  if (!target)
    return `the result was not posted: platform "${channel.platform}" speaks no protocol svc posts to`;
  const parts = postedText(
    target.kind,
    `${window.name}: ${windowLabel(window, window.window_end)}`,
    reply,
    extractedData,
  );
  await client.query(
    `INSERT INTO outbox (message_id, conversation_id, part, stable_id, text, reply_to)
     SELECT m.id, m.conversation_id, p.n - 1, $2, p.part, $3
       FROM messages m, unnest($4::text[]) WITH ORDINALITY AS p(part, n)
      WHERE m.id = $1
      ORDER BY p.n
     ON CONFLICT (message_id, part) DO NOTHING`,
    [window.message_id, channel.platform, JSON.stringify(target.to), parts],
  );
  await client.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, '']);
  return null;
}

/**
 * Windows still marked running whose turn has ended: the worker that ran it died between the two
 * writes, or the reaper failed the turn. Settled here, so no window waits for ever.
 */
export async function settleEndedWindows(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT w.id FROM watcher_windows w LEFT JOIN messages m ON m.id = w.message_id
      WHERE w.status = 'running' AND (m.id IS NULL OR m.status IN ('completed', 'failed'))
      LIMIT 100`,
  );
  let settled = 0;
  for (const row of rows) {
    try {
      if ((await settleWindow(pool, row.id)) !== null) settled++;
    } catch (error) {
      // One window that cannot be settled must not stop every other watcher's: it fails, visibly,
      // and is retried after its backoff like any failure.
      await failUnsettled(pool, row.id, error as Error);
    }
  }
  return settled;
}

/** A window whose settling threw: failed with the reason, in a transaction of its own. */
async function failUnsettled(pool: Pool, windowId: string, error: Error): Promise<void> {
  await transaction(pool, async (client) => {
    const { rows } = await client.query<SettlingWindow>(
      `SELECT w.id, w.org_id, w.watcher_slug, w.attempts, w.run_id, w.status FROM watcher_windows w
        WHERE w.id = $1 FOR UPDATE`,
      [windowId],
    );
    const window = rows[0];
    if (window?.status !== 'running') return;
    await failWindow(client, window, `its result could not be stored: ${error.message.slice(0, 500)}`);
  });
}
