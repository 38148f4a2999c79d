import type { Pool, PoolClient } from 'pg';
import { transaction, whileFenced } from '../db/transaction.js';
import { MAX_MESSAGE_CHARS, splitReply } from './send.js';

/** Where a message that came through a webhook is answered: its platform, and the place on it. */
export interface ReplyTarget {
  stableId: string;
  /** `team_chat`, `messenger` (Telegram) or `whatsapp`: how long a message may be. */
  kind: keyof typeof MAX_MESSAGE_CHARS;
  to: Record<string, string>;
}

/** A delivery a worker holds: `leaseToken` fences every write it makes. */
export interface ClaimedDelivery {
  id: string;
  messageId: string;
  stableId: string;
  text: string;
  replyTo: Record<string, string>;
  attempts: number;
  leaseToken: number;
}

export const OUTBOX_CHANNEL = 'svc_outbox';

/**
 * The reply's parts as the platform takes them, for `queuedReplySql`: nothing to post for an
 * empty reply (a turn that ended after its tools), since platforms refuse an empty message.
 */
export function replyParts(target: ReplyTarget | null, reply: string): string[] | null {
  if (!target || reply.trim() === '') return null;
  return splitReply(reply, MAX_MESSAGE_CHARS[target.kind]);
}

/**
 * The statement part that writes a reply to the outbox, in the statement (and so the transaction)
 * that stores the reply: one row per part from the text array `$parts` (NULL: nothing to post),
 * for the message that the CTE `message` (id, conversation_id) returns. Workers are told at
 * commit by the statement's `pg_notify(OUTBOX_CHANNEL)`.
 */
export function queuedReplySql(params: { parts: number; stableId: number; to: number }): string {
  return `INSERT INTO outbox (message_id, conversation_id, part, stable_id, text, reply_to)
     SELECT m.id, m.conversation_id, p.n - 1, $${params.stableId}, p.part, $${params.to}
       FROM message m, unnest($${params.parts}::text[]) WITH ORDINALITY AS p(part, n) ORDER BY p.n`;
}

/**
 * Claims the oldest due delivery whose conversation has nothing older still to deliver, in one
 * statement: replies of a conversation, and parts of a reply, go out in order, one at a time. The
 * attempt is counted and the fencing token raised as it is taken. An older row is seen as open
 * whether or not another worker's claim of it has committed, so two workers never hold two rows of
 * one conversation.
 */
export async function claimDelivery(pool: Pool, leaseMs: number): Promise<ClaimedDelivery | null> {
  const { rows } = await pool.query<{
    id: string;
    message_id: string;
    stable_id: string;
    text: string;
    reply_to: Record<string, string>;
    attempts: number;
    lease_token: string;
  }>(
    `WITH candidate AS (
       SELECT o.id FROM outbox o
        WHERE o.status = 'pending' AND o.next_attempt_at <= now()
          AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.conversation_id = o.conversation_id
                            AND e.status IN ('pending', 'sending') AND e.seq < o.seq)
        ORDER BY o.next_attempt_at, o.seq
        LIMIT 1
        FOR UPDATE SKIP LOCKED
     )
     UPDATE outbox o
        SET status = 'sending', attempts = o.attempts + 1, lease_token = o.lease_token + 1,
            lease_expires_at = now() + make_interval(secs => $1 / 1000.0)
       FROM candidate c WHERE o.id = c.id
     RETURNING o.id, o.message_id, o.stable_id, o.text, o.reply_to, o.attempts, o.lease_token`,
    [leaseMs],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    messageId: row.message_id,
    stableId: row.stable_id,
    text: row.text,
    replyTo: row.reply_to,
    attempts: row.attempts,
    leaseToken: Number(row.lease_token),
  };
}

/**
 * Records what became of a delivery, only while the claim is this worker's (false otherwise: its
 * lease lapsed and the row may be another's now). Delivered: once every part of the message is,
 * the message says `delivered`. Failed for good: the message says `failed`, with the error.
 */
export async function settleDelivery(
  pool: Pool,
  delivery: ClaimedDelivery,
  outcome:
    | { delivered: true; platformMessageId: string | null }
    | { delivered: false; retryInMs: number | null; error: { code: string; detail: string } },
): Promise<boolean> {
  const row = {
    table: 'outbox',
    id: delivery.id,
    status: 'sending',
    leaseToken: delivery.leaseToken,
  } as const;
  return whileFenced(
    pool,
    row,
    async (client) => {
      if (outcome.delivered) {
        await client.query(
          `UPDATE outbox SET status = 'delivered', delivered_at = now(), platform_message_id = $2,
                lease_expires_at = NULL, last_error = NULL
          WHERE id = $1`,
          [delivery.id, outcome.platformMessageId],
        );
      } else {
        await client.query(
          `UPDATE outbox SET status = CASE WHEN $2::float8 IS NULL THEN 'failed' ELSE 'pending' END,
                next_attempt_at = now() + make_interval(secs => coalesce($2::float8, 0) / 1000),
                lease_expires_at = NULL, last_error = $3
          WHERE id = $1`,
          [delivery.id, outcome.retryInMs, JSON.stringify(outcome.error)],
        );
      }
      await settleMessage(client, delivery.messageId);
      return true;
    },
    () => false,
  );
}

/** The message's `delivery`: failed as soon as a part failed for good, delivered once all are. */
async function settleMessage(client: PoolClient, messageId: string): Promise<void> {
  await client.query(
    `WITH parts AS (
       SELECT bool_or(status = 'failed') AS failed, bool_and(status = 'delivered') AS delivered,
              (array_agg(last_error ORDER BY part) FILTER (WHERE status = 'failed'))[1] AS error
         FROM outbox WHERE message_id = $1
     )
     UPDATE messages m
        SET delivery = CASE WHEN p.failed THEN 'failed' WHEN p.delivered THEN 'delivered' ELSE 'pending' END,
            delivery_error = CASE WHEN p.failed THEN p.error END
       FROM parts p WHERE m.id = $1`,
    [messageId],
  );
}

/**
 * Deliveries whose worker died (or lost the database) while sending go back to the queue: the
 * platform may have received it, so the next attempt can send it a second time (at most once more
 * per crash). One batched statement, safe on every replica at once (SKIP LOCKED).
 */
export async function reapLapsedDeliveries(pool: Pool, maxAttempts: number): Promise<number> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ message_id: string }>(
      `WITH lapsed AS (
         SELECT id FROM outbox WHERE status = 'sending' AND lease_expires_at < now()
          ORDER BY lease_expires_at LIMIT 100 FOR UPDATE SKIP LOCKED
       )
       UPDATE outbox o
          SET status = CASE WHEN o.attempts >= $1 THEN 'failed' ELSE 'pending' END,
              last_error = CASE WHEN o.attempts >= $1 THEN jsonb_build_object('code', 'delivery_failed',
                             'detail', 'the worker sending it stopped ' || o.attempts || ' times')
                           ELSE o.last_error END,
              next_attempt_at = now(), lease_expires_at = NULL
         FROM lapsed l WHERE o.id = l.id
       RETURNING o.message_id`,
      [maxAttempts],
    );
    for (const messageId of new Set(rows.map((row) => row.message_id)))
      await settleMessage(client, messageId);
    if (rows.length > 0) await client.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, '']);
    return rows.length;
  });
}

/** Receipts older than a week go: no platform retries that late. A bounded batch per call. */
export async function forgetOldReceipts(pool: Pool): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM webhook_receipts WHERE ctid = ANY (ARRAY(
       SELECT ctid FROM webhook_receipts WHERE received_at < now() - interval '7 days' LIMIT 1000))`,
  );
  return rowCount ?? 0;
}
