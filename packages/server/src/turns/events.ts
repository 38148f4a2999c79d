import type { ConversationEventType } from '@svc/core';
import type { PoolClient } from 'pg';

/** Events of conversations are announced here (payload: the conversation id); readers then query. */
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
  /** Also wake idle workers (a message was queued): in the same statement, one round trip. */
  options: { wakeWorkers?: boolean } = {},
): Promise<number> {
  const { rows } = await client.query<{ seq: string }>(
    `WITH next AS (UPDATE conversations SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq),
          added AS (
            INSERT INTO conversation_events (conversation_id, seq, message_id, type, data)
            SELECT $1, last_seq, $2, $3, $4 FROM next
            RETURNING seq
          )
     SELECT seq, pg_notify($5, $1::text), CASE WHEN $6 THEN pg_notify($7, '') END FROM added`,
    [
      conversationId,
      messageId,
      type,
      JSON.stringify(data),
      EVENTS_CHANNEL,
      options.wakeWorkers === true,
      WORK_CHANNEL,
    ],
  );
  return Number(rows[0]?.seq);
}

/** Events after `afterSeq`, oldest first, at most `limit`. */
export async function eventsAfter(
  client: Pick<PoolClient, 'query'>,
  conversationId: string,
  afterSeq: number,
  limit = 500,
): Promise<StoredEvent[]> {
  const { rows } = await client.query<{
    seq: string;
    type: ConversationEventType;
    message_id: string | null;
    data: Record<string, unknown>;
  }>(
    `SELECT seq, type, message_id, data FROM conversation_events
      WHERE conversation_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [conversationId, afterSeq, limit],
  );
  return rows.map((row) => ({
    seq: Number(row.seq),
    type: row.type,
    messageId: row.message_id,
    data: row.data,
  }));
}
