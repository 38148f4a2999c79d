import type { ConversationEventType } from '@svc/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Pool, PoolClient } from 'pg';
import { storableJson } from './turn.js';

/**
 * Events of conversations are announced here (payload: conversation ids, comma-separated; as many
 * as fit in one notification); readers then query.
 */
export const EVENTS_CHANNEL = 'svc_conversation_events';
/** A message was queued or handed back (payload empty): idle workers look for work. */
export const WORK_CHANNEL = 'svc_turn_work';

export interface StoredEvent {
  seq: number;
  type: ConversationEventType;
  messageId: string | null;
  data: Record<string, unknown>;
}

/**
 * Appends an event inside the caller's transaction. The sequence number comes from the
 * conversation's row, which stays locked until commit: numbers become visible in order, so a
 * reader that asks for `seq > n` never skips one that commits later. The NOTIFY is delivered at
 * commit, and only then.
 */
export async function appendEvent(
  client: PoolClient,
  conversationId: string,
  messageId: string | null,
  type: ConversationEventType,
  data: Record<string, unknown>,
  /**
   * Also wake idle workers (a message was queued): in the same statement, one round trip.
   * `notify: false` leaves the announcement to the caller, after commit (see `Announcer`).
   */
  options: { wakeWorkers?: boolean; notify?: boolean } = {},
): Promise<number> {
  const { rows } = await client.query<{ seq: string }>(
    `WITH next AS (UPDATE conversations SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq),
          added AS (
            INSERT INTO conversation_events (conversation_id, seq, message_id, type, data)
            SELECT $1, last_seq, $2, $3, $4 FROM next
            RETURNING seq
          )
     SELECT seq, CASE WHEN $8 THEN pg_notify($5, $1::text) END, CASE WHEN $6 AND $8 THEN pg_notify($7, '') END
       FROM added`,
    [
      conversationId,
      messageId,
      type,
      storableJson(data),
      EVENTS_CHANNEL,
      options.wakeWorkers === true,
      WORK_CHANNEL,
      options.notify !== false,
    ],
  );
  return Number(rows[0]?.seq);
}

/**
 * Events of many conversations at once, each after its own position, at most `limit` each, oldest
 * first: what the event streams of a process read in one query when many are woken together.
 */
export async function eventsAfterMany(
  client: Pick<PoolClient, 'query'>,
  after: Map<string, number>,
  limit: number,
): Promise<Map<string, StoredEvent[]>> {
  const { rows } = await client.query<{
    conversation_id: string;
    seq: string;
    type: ConversationEventType;
    message_id: string | null;
    data: Record<string, unknown>;
  }>(
    `SELECT w.id AS conversation_id, e.seq, e.type, e.message_id, e.data
       FROM unnest($1::uuid[], $2::bigint[]) WITH ORDINALITY AS w(id, after, n)
      CROSS JOIN LATERAL (
        SELECT seq, type, message_id, data FROM conversation_events
         WHERE conversation_id = w.id AND seq > w.after ORDER BY seq LIMIT $3
      ) e
      ORDER BY w.n, e.seq`,
    [[...after.keys()], [...after.values()], limit],
  );
  const found = new Map<string, StoredEvent[]>();
  for (const row of rows) {
    const list = found.get(row.conversation_id) ?? [];
    found.set(row.conversation_id, list);
    list.push({ seq: Number(row.seq), type: row.type, messageId: row.message_id, data: row.data });
  }
  return found;
}

/**
 * Announces events after their transaction committed, many in one NOTIFY transaction. A commit
 * that notifies holds PostgreSQL's one notification lock while it flushes to disk, so one NOTIFY
 * per accepted message would put every message of the deployment in one line (a quarter of the
 * INSERTs a second, measured); batched, the line is one commit per batch. A notification lost to
 * a crash between the commit and the batch only delays readers and workers until they next look
 * in the database (streams: the next sweep, 15 s, see messaging/sse.ts; workers: 1 s): the events
 * themselves are stored.
 */
export interface Announcer {
  announce(conversationId: string, options?: { wakeWorkers?: boolean }): void;
  /** Sends what is pending. */
  close(): Promise<void>;
}

/**
 * Conversation ids joined into as few payloads as PostgreSQL takes (8,000 bytes each): 500 turns
 * streaming at once announce in 3 notifications per batch, not 500 that each listener parses.
 */
function payloads(ids: string[]): string[] {
  const out: string[] = [];
  const perPayload = Math.floor(7900 / 37);
  for (let i = 0; i < ids.length; i += perPayload) out.push(ids.slice(i, i + perPayload).join(','));
  return out;
}

export function createAnnouncer(pool: Pool, log: FastifyBaseLogger): Announcer {
  const pending = new Set<string>();
  let wake = false;
  let flushing: Promise<void> | null = null;
  const flush = async () => {
    // Whatever arrives while a batch is sent goes in the next one.
    while (pending.size > 0 || wake) {
      const ids = [...pending];
      const wakeWorkers = wake;
      pending.clear();
      wake = false;
      try {
        await pool.query(
          `SELECT pg_notify($1, ids) FROM unnest($2::text[]) AS ids
           UNION ALL SELECT pg_notify($3, '') WHERE $4`,
          [EVENTS_CHANNEL, payloads(ids), WORK_CHANNEL, wakeWorkers],
        );
      } catch (error) {
        log.warn({ err: error }, 'could not announce events; readers and workers will find them by polling');
      }
    }
    flushing = null;
  };
  return {
    announce(conversationId, options = {}) {
      pending.add(conversationId);
      wake ||= options.wakeWorkers === true;
      flushing ??= flush();
    },
    async close() {
      await flushing;
    },
  };
}
