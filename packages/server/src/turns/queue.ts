import type { Pool, PoolClient } from 'pg';
import { rollback, transaction } from '../db/transaction.js';
import { OUTBOX_CHANNEL, queuedReplySql, type ReplyTarget, replyParts } from '../outbox/queue.js';
import { appendEvent, WORK_CHANNEL } from './events.js';
import type { Item } from './items.js';
import {
  type ClaimedTurn,
  LeaseLostError,
  storable,
  storableJson,
  type TurnProblem,
  type TurnState,
  whileLeased,
} from './turn.js';

/**
 * Claims up to `limit` queued messages, each the oldest of a conversation that has no turn running
 * or waiting, in one statement: the attempt is counted and the fencing token raised as each is
 * taken. Messages of one conversation are taken one at a time, in order; the unique index on
 * active turns backs that rule up (a claim that would break it answers `contended`, and the
 * worker looks again). A process with room for hundreds of turns takes them in a few statements,
 * not one round trip each; other processes skip the rows it holds (SKIP LOCKED).
 */
export async function claimTurns(
  pool: Pool,
  workerId: string,
  leaseMs: number,
  limit: number,
): Promise<ClaimedTurn[] | 'contended'> {
  try {
    const { rows } = await pool.query<{
      id: string;
      conversation_id: string;
      org_id: string;
      agent_id: string;
      content: string;
      lease_token: string;
      attempts: number;
      turn_state: TurnState | null;
      platform_stable_id: string | null;
      reply_to: Omit<ReplyTarget, 'stableId'> | null;
      has_files: boolean;
      has_history: boolean;
      watcher_window_id: string | null;
    }>(
      `WITH candidate AS (
         SELECT m.id FROM messages m
          WHERE m.status = 'queued'
            AND NOT EXISTS (SELECT 1 FROM messages b WHERE b.conversation_id = m.conversation_id
                              AND b.status IN ('running', 'awaiting_approval'))
            AND NOT EXISTS (SELECT 1 FROM messages e WHERE e.conversation_id = m.conversation_id
                              AND e.status = 'queued' AND (e.created_at, e.id) < (m.created_at, m.id))
          ORDER BY m.created_at, m.id
          LIMIT $3
          FOR UPDATE SKIP LOCKED
       )
       UPDATE messages m
          SET status = 'running', lease_token = m.lease_token + 1, attempts = m.attempts + 1,
              lease_expires_at = now() + make_interval(secs => $2 / 1000.0), claimed_by = $1,
              started_at = coalesce(m.started_at, now()), updated_at = now()
         FROM candidate c
        WHERE m.id = c.id
       RETURNING m.id, m.conversation_id, m.org_id, m.agent_id, m.content, m.lease_token, m.attempts, m.turn_state,
                 m.platform_stable_id, m.reply_to,
                 -- What the turn reads next, so that it need not ask for what is not there.
                 EXISTS (SELECT 1 FROM message_files f WHERE f.message_id = m.id) AS has_files,
                 EXISTS (SELECT 1 FROM conversation_items i WHERE i.conversation_id = m.conversation_id) AS has_history,
                 (SELECT w.id FROM watcher_windows w WHERE w.message_id = m.id) AS watcher_window_id`,
      [workerId, leaseMs, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      conversationId: row.conversation_id,
      orgId: String(row.org_id),
      agentId: row.agent_id,
      content: row.content,
      leaseToken: Number(row.lease_token),
      attempts: row.attempts,
      state: row.turn_state,
      replyTo:
        row.platform_stable_id && row.reply_to ? { stableId: row.platform_stable_id, ...row.reply_to } : null,
      hasFiles: row.has_files,
      hasHistory: row.has_history,
      watcherWindowId: row.watcher_window_id,
    }));
  } catch (error) {
    // Another worker started one of these conversations' turns between our snapshot and our write.
    if ((error as { code?: string }).code === '23505') return 'contended';
    throw error;
  }
}

/** One message, for tests and callers that run one turn at a time. */
export async function claimTurn(
  pool: Pool,
  workerId: string,
  leaseMs: number,
): Promise<ClaimedTurn | 'contended' | null> {
  const claimed = await claimTurns(pool, workerId, leaseMs, 1);
  return claimed === 'contended' ? claimed : (claimed[0] ?? null);
}

/**
 * Extends the leases of the turns a process runs, in one statement; answers those still held
 * (the others' workers must stop them).
 */
export async function extendLeases(pool: Pool, turns: ClaimedTurn[], leaseMs: number): Promise<Set<string>> {
  if (turns.length === 0) return new Set();
  const { rows } = await pool.query<{ id: string }>(
    // Rows are locked in id order, as the event writer locks them: two statements of one process
    // taking the same rows in other orders deadlocked.
    `WITH held AS (
       SELECT m.id FROM messages m JOIN unnest($1::uuid[], $2::bigint[]) AS t(id, lease_token)
           ON m.id = t.id AND m.lease_token = t.lease_token
        WHERE m.status = 'running'
        ORDER BY m.id
          FOR UPDATE OF m
     )
     UPDATE messages m SET lease_expires_at = now() + make_interval(secs => $3 / 1000.0)
       FROM held WHERE m.id = held.id
     RETURNING m.id`,
    [turns.map((t) => t.id), turns.map((t) => t.leaseToken), leaseMs],
  );
  return new Set(rows.map((row) => row.id));
}

/**
 * The reply is stored in one statement (one transaction, one round trip): the message completed
 * only while this worker's lease holds, its history items, its outbox parts when it came through
 * a chat platform, and the `reply.completed` event. Announced after commit by the caller.
 */
export async function completeTurn(
  pool: Pool,
  turn: ClaimedTurn,
  answer: {
    reply: string;
    model: string;
    usage: Record<string, number | null>;
    firstTokenAt: Date | null;
    /** The turn's tool calls and results, kept in the history between its message and its reply. */
    toolItems: Item[];
  },
): Promise<void> {
  const reply = storable(answer.reply);
  const items: Item[] = [
    { kind: 'user', content: { text: turn.content } },
    ...answer.toolItems,
    { kind: 'assistant', content: { text: reply } },
  ];
  const parts = replyParts(turn.replyTo, reply);
  const { rowCount } = await pool.query(
    `WITH message AS (
       UPDATE messages SET status = 'completed', reply = $3, model = $4, usage = $5, error = NULL, turn_state = NULL,
              first_token_at = $6, completed_at = now(), updated_at = now(), lease_expires_at = NULL,
              delivery = CASE WHEN $8::text[] IS NULL THEN delivery ELSE 'pending' END
        WHERE id = $1 AND lease_token = $2 AND status = 'running'
       RETURNING id, conversation_id, completed_at
     ),
     -- Positions are taken in the order the items are selected, which is theirs.
     items AS (
       INSERT INTO conversation_items (conversation_id, message_id, kind, content)
       SELECT m.conversation_id, m.id, i.item->>'kind', i.item->'content'
         FROM message m, jsonb_array_elements($7::jsonb) WITH ORDINALITY AS i(item, n) ORDER BY i.n
     ),
     outbox AS (${queuedReplySql({ parts: 8, stableId: 9, to: 10 })}),
     ${eventSql('reply.completed', `$11::jsonb || jsonb_build_object('completedAt', ${isoOf('m.completed_at')})`)}
     SELECT CASE WHEN $8::text[] IS NOT NULL THEN pg_notify($12, '') END FROM message`,
    [
      turn.id,
      turn.leaseToken,
      reply,
      answer.model,
      JSON.stringify(answer.usage),
      answer.firstTokenAt,
      storableJson(items),
      parts,
      turn.replyTo?.stableId ?? null,
      turn.replyTo ? JSON.stringify(turn.replyTo.to) : null,
      JSON.stringify({ messageId: turn.id, reply, model: answer.model, usage: answer.usage }),
      OUTBOX_CHANNEL,
    ],
  );
  if (rowCount !== 1) throw new LeaseLostError(turn.id);
}

/** The turn cannot run (no provider, a missing secret, every model failing): it ends here, for good. */
export async function failTurn(pool: Pool, turn: ClaimedTurn, problem: TurnProblem): Promise<void> {
  const { rowCount } = await pool.query(
    `WITH message AS (
       UPDATE messages SET status = 'failed', error = $3, turn_state = NULL, completed_at = now(), updated_at = now(),
              lease_expires_at = NULL
        WHERE id = $1 AND lease_token = $2 AND status = 'running'
       RETURNING id, conversation_id
     ),
     ${eventSql('reply.failed', '$4::jsonb')}
     SELECT 1 FROM message`,
    [turn.id, turn.leaseToken, storableJson(problem), storableJson({ messageId: turn.id, error: problem })],
  );
  if (rowCount !== 1) throw new LeaseLostError(turn.id);
}

/** `at` (a timestamptz) as JavaScript's toISOString writes it. */
const isoOf = (at: string) => `to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The statement part that appends one event of type `type` with data `data` (an SQL expression
 * that may read the CTE `message`) to the conversation of the message that the CTE `message`
 * returns: its number taken from the conversation's row (locked after the message's, the order
 * every writer of a turn takes them in).
 */
function eventSql(type: string, data: string): string {
  return `numbered AS (
       UPDATE conversations c SET last_seq = c.last_seq + 1 FROM message m WHERE c.id = m.conversation_id
       RETURNING c.id, c.last_seq
     ),
     event AS (
       INSERT INTO conversation_events (conversation_id, seq, message_id, type, data)
       SELECT n.id, n.last_seq, m.id, '${type}', ${data} FROM numbered n, message m
     )`;
}

/**
 * Gives a turn back untouched, for another worker (graceful shutdown): the attempt it used is
 * returned too, since the turn did not fail.
 */
export async function handBack(pool: Pool, turn: ClaimedTurn): Promise<void> {
  await whileLeased(pool, turn, async (client) => {
    await client.query(
      `UPDATE messages SET status = 'queued', attempts = attempts - 1, lease_expires_at = NULL,
              claimed_by = NULL, updated_at = now()
        WHERE id = $1`,
      [turn.id],
    );
    await client.query('SELECT pg_notify($1, $2)', [WORK_CHANNEL, '']);
  });
}

export const REAP_TURNS_LOCK = 7_306_918_275;
export const EXPIRE_APPROVALS_LOCK = 7_306_918_276;

/** Takes this transaction's turn at a reaping job, or answers false when another replica has it. */
export async function reaperTurn(client: PoolClient, lock: number): Promise<boolean> {
  await client.query("SET LOCAL lock_timeout = '5s'");
  const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [lock]);
  return rows[0]?.ok === true;
}

/**
 * The reaper: turns whose lease lapsed (their worker died or lost the database) go back to the
 * queue, or fail once they have used `maxAttempts`. One batched statement per call, safe on every
 * replica at once (SKIP LOCKED); the turns it requeues wake the workers.
 */
export async function reapLapsedTurns(
  pool: Pool,
  maxAttempts: number,
): Promise<{ requeued: number; failed: number }> {
  return transaction(pool, async (client) => {
    // One reaper at a time across the deployment: two taking conversation locks in other orders
    // could deadlock each other. The others skip this round.
    if (!(await reaperTurn(client, REAP_TURNS_LOCK))) {
      return rollback({ requeued: 0, failed: 0 });
    }
    const { rows } = await client.query<{
      id: string;
      conversation_id: string;
      status: string;
      error: unknown;
    }>(
      `WITH lapsed AS (
         SELECT id FROM messages WHERE status = 'running' AND lease_expires_at < now()
          ORDER BY lease_expires_at LIMIT 100 FOR UPDATE SKIP LOCKED
       )
       UPDATE messages m
          SET status = CASE WHEN m.attempts >= $1 THEN 'failed' ELSE 'queued' END,
              error = CASE WHEN m.attempts >= $1 THEN jsonb_build_object(
                        'code', 'turn_abandoned',
                        'detail', 'the turn was started ' || m.attempts || ' times and its worker stopped each time; '
                                  || 'the server log says why. Send the message again to retry')
                      ELSE m.error END,
              completed_at = CASE WHEN m.attempts >= $1 THEN now() END,
              lease_expires_at = NULL, claimed_by = NULL, updated_at = now()
         FROM lapsed l WHERE m.id = l.id
       RETURNING m.id, m.conversation_id, m.status, m.error`,
      [maxAttempts],
    );
    for (const row of rows) {
      if (row.status === 'failed') {
        await appendEvent(client, row.conversation_id, row.id, 'reply.failed', {
          messageId: row.id,
          error: row.error,
        });
      }
    }
    if (rows.some((row) => row.status === 'queued')) {
      await client.query('SELECT pg_notify($1, $2)', [WORK_CHANNEL, '']);
    }
    const failed = rows.filter((row) => row.status === 'failed').length;
    return { requeued: rows.length - failed, failed };
  });
}
