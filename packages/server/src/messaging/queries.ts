import type { AgentConfig, MessageSend } from '@svc/core';
import type { Pool } from 'pg';
import { appendEvent } from '../turns/events.js';
import { guardInput } from '../turns/guardrails.js';
import type { TurnProblem } from '../turns/queue.js';
import { type RateLimit, takeFromBudget } from './rate-limit.js';
import type { Upload } from './uploads.js';

export interface MessageRow {
  id: string;
  conversation_id: string;
  agent_id: string;
  status: 'queued' | 'running' | 'awaiting_approval' | 'completed' | 'failed';
  content: string;
  reply: string | null;
  error: { code: string; detail: string } | null;
  model: string | null;
  usage: { inputTokens: number | null; outputTokens: number | null; totalTokens: number | null } | null;
  attempts: number;
  request_hash: string | null;
  created_at: Date;
  started_at: Date | null;
  first_token_at: Date | null;
  completed_at: Date | null;
  updated_at: Date;
  files: { id: string; name: string; contentType: string; size: number }[];
}

const COLUMNS =
  'id, conversation_id, agent_id, status, content, reply, error, model, usage, attempts, request_hash, ' +
  'created_at, started_at, first_token_at, completed_at, updated_at, ' +
  `(SELECT coalesce(json_agg(json_build_object('id', f.id, 'name', f.name, 'contentType', f.content_type, 'size', f.size)
            ORDER BY f.position), '[]') FROM message_files f WHERE f.message_id = messages.id) AS files`;

/** The conversation key: (agent, platform, channel[, thread]). */
export function conversationKey(body: MessageSend): { channel: string; thread: string } {
  if (body.team_chat) return { channel: body.team_chat.channel, thread: body.team_chat.thread ?? '' };
  if (body.messenger) return { channel: body.messenger.chat, thread: '' };
  return { channel: body.channel ?? 'default', thread: '' };
}

/**
 * Queues a message in one transaction. With an idempotency key, a second request finds the first
 * message instead (`replayed`), even when both arrive at once: the unique index decides. A new
 * message is paid for from the sender's budget in the same transaction: refused, nothing is queued.
 */
export async function enqueueMessage(
  pool: Pool,
  input: {
    orgId: string;
    agentId: string;
    body: MessageSend;
    idempotencyKey: string | null;
    requestHash: string;
    /** Files of a multipart message, stored with it. */
    files: Upload[];
    /** The sender's budget, paid only for a message this call queues (never for a replay or a 404). */
    budget: { limit: RateLimit; key: string } | null;
  },
): Promise<
  | { row: MessageRow; replayed: boolean }
  | 'agent_missing'
  | { retryAfterSeconds: number }
  | { refused: TurnProblem }
> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // KEY SHARE: a concurrent delete of the agent either waits for this message or wins first.
    const agent = await client.query<{ guardrails: AgentConfig['guardrails'] }>(
      "SELECT config->'guardrails' AS guardrails FROM agents WHERE org_id = $1 AND agent_id = $2 FOR KEY SHARE",
      [input.orgId, input.agentId],
    );
    if (agent.rowCount === 0) {
      await client.query('ROLLBACK');
      return 'agent_missing';
    }
    const guarded = guardInput(input.body.content, agent.rows[0]?.guardrails);
    if ('refused' in guarded) {
      await client.query('ROLLBACK');
      return { refused: guarded.refused };
    }
    if (input.idempotencyKey) {
      // Keys live for 24 hours; an older use frees the key for a new message.
      await client.query(
        `UPDATE messages SET idempotency_key = NULL
          WHERE org_id = $1 AND idempotency_key = $2 AND created_at < now() - interval '24 hours'`,
        [input.orgId, input.idempotencyKey],
      );
    }
    const { channel, thread } = conversationKey(input.body);
    // The conversation (taken, and so locked, first) and the message in one statement.
    // clock_timestamp(), not now(): read once the conversation's row is locked, so the order of
    // created_at is the order in which messages of a conversation commit.
    const inserted = await client.query<MessageRow>(
      `WITH conversation AS (
         INSERT INTO conversations (org_id, agent_id, platform, channel, thread) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (org_id, agent_id, platform, channel, thread) DO UPDATE SET platform = excluded.platform
         RETURNING id
       )
       INSERT INTO messages (conversation_id, org_id, agent_id, content, idempotency_key, request_hash, created_at)
       SELECT conversation.id, $1, $2, $6, $7, $8, clock_timestamp() FROM conversation
       ON CONFLICT (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        input.orgId,
        input.agentId,
        input.body.platform,
        channel,
        thread,
        guarded.content,
        input.idempotencyKey,
        input.requestHash,
      ],
    );
    if (inserted.rows[0]) {
      const paid = input.budget ? await takeFromBudget(client, input.budget.limit, input.budget.key) : null;
      if (paid && !paid.allowed) {
        await client.query('ROLLBACK');
        return { retryAfterSeconds: paid.retryAfterSeconds };
      }
      const message = inserted.rows[0];
      for (const [position, file] of input.files.entries()) {
        await client.query(
          `INSERT INTO message_files (message_id, position, name, content_type, size, data)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [message.id, position, file.name, file.contentType, file.data.length, file.data],
        );
      }
      await appendEvent(
        client,
        message.conversation_id,
        message.id,
        'message.queued',
        { messageId: message.id, content: message.content },
        { wakeWorkers: true },
      );
      await client.query('COMMIT');
      return { row: inserted.rows[0], replayed: false };
    }
    const existing = await client.query<MessageRow>(
      `SELECT ${COLUMNS} FROM messages WHERE org_id = $1 AND idempotency_key = $2`,
      [input.orgId, input.idempotencyKey],
    );
    // The conversation upsert above may have created a row for the replay; drop it with the rest.
    await client.query('ROLLBACK');
    return { row: existing.rows[0] as MessageRow, replayed: true };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export async function getMessage(
  pool: Pool,
  orgId: string,
  agentId: string,
  id: string,
): Promise<MessageRow | null> {
  const { rows } = await pool.query<MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE org_id = $1 AND agent_id = $2 AND id = $3`,
    [orgId, agentId, id],
  );
  return rows[0] ?? null;
}

export interface ConversationRow {
  id: string;
  agent_id: string;
  platform: string;
  channel: string;
  thread: string;
  created_at: Date;
  last_message_at: Date | null;
  cursor_at: string;
}

/** The agent's conversations, newest first, after `cursor` ([createdAt, id]). */
export async function listConversations(
  pool: Pool,
  orgId: string,
  agentId: string,
  cursor: [string, string] | null,
  limit: number,
): Promise<ConversationRow[]> {
  const { rows } = await pool.query<ConversationRow>(
    `SELECT c.id, c.agent_id, c.platform, c.channel, c.thread, c.created_at, c.created_at::text AS cursor_at,
            (SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = c.id) AS last_message_at
       FROM conversations c
      WHERE c.org_id = $1 AND c.agent_id = $2
        AND ($3::timestamptz IS NULL OR (c.created_at, c.id) < ($3::timestamptz, $4::uuid))
      ORDER BY c.created_at DESC, c.id DESC
      LIMIT $5`,
    [orgId, agentId, cursor?.[0] ?? null, cursor?.[1] ?? null, limit],
  );
  return rows;
}

/** A conversation's messages, oldest first, after `cursor` ([createdAt, id]); null when it is not the caller's. */
export async function listConversationMessages(
  pool: Pool,
  orgId: string,
  agentId: string,
  conversationId: string,
  cursor: [string, string] | null,
  limit: number,
): Promise<(MessageRow & { cursor_at: string })[] | null> {
  const owned = await pool.query(
    'SELECT 1 FROM conversations WHERE id = $1 AND org_id = $2 AND agent_id = $3',
    [conversationId, orgId, agentId],
  );
  if (owned.rowCount === 0) return null;
  const { rows } = await pool.query<MessageRow & { cursor_at: string }>(
    `SELECT ${COLUMNS}, created_at::text AS cursor_at FROM messages
      WHERE conversation_id = $1
        AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::uuid))
      ORDER BY created_at, id
      LIMIT $4`,
    [conversationId, cursor?.[0] ?? null, cursor?.[1] ?? null, limit],
  );
  return rows;
}
