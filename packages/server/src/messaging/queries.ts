import type { AgentConfig, MessageSend } from '@svc/core';
import type { Pool } from 'pg';
import { rollback, transaction } from '../db/transaction.js';
import type { ReplyTarget } from '../outbox/queue.js';
import { type Announcer, appendEvent } from '../turns/events.js';
import { guardInput } from '../turns/guardrails.js';
import type { TurnProblem } from '../turns/turn.js';
import {
  paymentParams,
  paymentSql,
  type RateLimit,
  retryAfterSeconds,
  takeFromBudget,
} from './rate-limit.js';
import type { Upload } from './uploads.js';
import { SHARED, visibleTo } from './visibility.js';

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
  delivery: 'pending' | 'delivered' | 'failed' | null;
  delivery_error: { code: string; detail: string } | null;
  request_hash: string | null;
  created_at: Date;
  started_at: Date | null;
  first_token_at: Date | null;
  completed_at: Date | null;
  updated_at: Date;
  files: { id: string; name: string; contentType: string; size: number }[];
}

const BASE_COLUMNS =
  'id, conversation_id, agent_id, status, content, reply, error, model, usage, attempts, delivery, delivery_error, ' +
  'request_hash, ' +
  'created_at, started_at, first_token_at, completed_at, updated_at';
const COLUMNS =
  `${BASE_COLUMNS}, ` +
  `(SELECT coalesce(json_agg(json_build_object('id', f.id, 'name', f.name, 'contentType', f.content_type, 'size', f.size)
            ORDER BY f.position), '[]') FROM message_files f WHERE f.message_id = messages.id) AS files`;

/** A conversation is (agent, platform, channel, thread, owner); these are the last four. */
export interface ConversationKey {
  platform: string;
  channel: string;
  thread: string;
  owner: string;
}

/**
 * The conversation a message goes to, but for `conversationId` (the route finds that one). On
 * platform `api` without `channel`: the sender's own (`owner`, see visibility.ts), whose channel
 * is '', a name no `channel` can take.
 */
export function conversationKey(body: MessageSend, owner: string | undefined): ConversationKey {
  const shared = (channel: string, thread = '') => ({
    platform: body.platform,
    channel,
    thread,
    owner: SHARED,
  });
  if (body.team_chat) return shared(body.team_chat.channel, body.team_chat.thread ?? '');
  if (body.messenger) return shared(body.messenger.chat);
  if (body.platform === 'api' && body.channel === undefined) {
    // Never a shared conversation by default: that is the leak private conversations close.
    if (!owner) throw new Error('a message to a private conversation needs its sender');
    return { platform: 'api', channel: '', thread: '', owner };
  }
  return shared(body.channel ?? 'default');
}

type EnqueueInput = {
  orgId: string;
  agentId: string;
  body: MessageSend;
  idempotencyKey: string | null;
  requestHash: string;
  /** Files of a multipart message, stored with it. */
  files: Upload[];
  /** The sender as the owner of private conversations (visibility.ts); chat platforms have none. */
  owner?: string;
  /** The conversation when the route knows it already (`conversationId`); otherwise from the body. */
  conversation?: ConversationKey;
  /** The sender's budget, paid only for a message this call queues (never for a replay or a 404). */
  budget: { limit: RateLimit; key: string } | null;
  /**
   * A message from a chat platform's webhook: where its reply is delivered, and the platform's own
   * id of it (a second message with that id, the platform's retry, is a `duplicate`).
   */
  fromPlatform?: {
    replyTo: ReplyTarget;
    dedupKey: string;
    /**
     * The version of the platform (its row, its org's and its secrets') that the call was checked
     * with (`platformVersionSql`): nothing is queued, `platform_changed`, unless it is still that.
     */
    version?: string;
  };
  /** The agent's guardrails when the caller has read them already (null: none), saving a query. */
  guardrails?: AgentConfig['guardrails'] | null;
};

type EnqueueOutcome =
  | { row: MessageRow; replayed: boolean }
  | 'agent_missing'
  | 'duplicate'
  | 'platform_changed'
  | { retryAfterSeconds: number }
  | { refused: TurnProblem };

type Guardrails = AgentConfig['guardrails'] | null;

/**
 * The guardrails last seen for each agent (per pool: per database), a guess that saves the read:
 * the statement that queues a message checks that the agent's guardrails are still these, and
 * queues nothing when they are not (see `enqueueInOneStatement`). Never trusted alone.
 */
const lastSeenGuardrails = new WeakMap<Pool, Map<string, Guardrails>>();
const GUARDRAILS_KEPT = 10_000;

function seenGuardrails(pool: Pool) {
  let seen = lastSeenGuardrails.get(pool);
  if (!seen) {
    seen = new Map();
    lastSeenGuardrails.set(pool, seen);
  }
  return seen;
}

function rememberGuardrails(pool: Pool, agentKey: string, guardrails: Guardrails) {
  const seen = seenGuardrails(pool);
  seen.delete(agentKey);
  if (seen.size >= GUARDRAILS_KEPT) seen.delete(seen.keys().next().value as string);
  seen.set(agentKey, guardrails);
}

/** The agent's guardrails read now; undefined when there is no such agent. */
async function readGuardrails(pool: Pool, orgId: string, agentId: string): Promise<Guardrails | undefined> {
  const agent = await pool.query<{ guardrails: Guardrails }>(
    "SELECT config->'guardrails' AS guardrails FROM agents WHERE org_id = $1 AND agent_id = $2",
    [orgId, agentId],
  );
  if (agent.rowCount === 0) return undefined;
  return agent.rows[0]?.guardrails ?? null;
}

/**
 * Queues a message: the conversation, the message, its `message.queued` event and the payment
 * from the sender's budget commit together or not at all (refused by the budget, nothing is
 * queued). A plain message takes one statement, one round trip: the agent's guardrails are
 * checked in JavaScript against the ones last seen (or the caller's), and the statement queues
 * the message only if the agent's guardrails are still those, in its snapshot; otherwise it
 * answers the agent's current ones, and the message is checked again against them. A message
 * with an idempotency key or files takes a transaction, after reading the guardrails (with a key,
 * a second request finds the first message instead, `replayed`, even when both arrive at once:
 * the unique index decides). The event is announced after commit.
 */
export async function enqueueMessage(
  pool: Pool,
  announcer: Announcer,
  input: EnqueueInput,
): Promise<EnqueueOutcome> {
  const agentKey = `${input.orgId}\0${input.agentId}`;
  try {
    let outcome: EnqueueOutcome;
    if (input.idempotencyKey || input.files.length > 0) {
      const guardrails =
        input.guardrails === undefined
          ? await readGuardrails(pool, input.orgId, input.agentId)
          : input.guardrails;
      if (guardrails === undefined) return 'agent_missing';
      const guarded = guardInput(input.body.content, guardrails ?? undefined);
      if ('refused' in guarded) return { refused: guarded.refused };
      outcome = await enqueueInTransaction(pool, input, guarded.content);
    } else {
      // Read for sure (not a guess) once a guess refused the message or turned out stale.
      let guardrails: Guardrails | undefined = input.guardrails;
      let read = guardrails !== undefined;
      if (guardrails === undefined) guardrails = seenGuardrails(pool).get(agentKey) ?? null;
      let changes = 0;
      for (;;) {
        const guarded = guardInput(input.body.content, guardrails ?? undefined);
        if ('refused' in guarded) {
          if (read) return { refused: guarded.refused };
          guardrails = await readGuardrails(pool, input.orgId, input.agentId);
          if (guardrails === undefined) return 'agent_missing';
          rememberGuardrails(pool, agentKey, guardrails);
          read = true;
          continue;
        }
        const result = await enqueueInOneStatement(pool, input, guarded.content, guardrails);
        if (typeof result === 'object' && 'changed' in result) {
          // Each time, the guardrails were changed between two statements a few ms apart.
          if (++changes > 10)
            throw new Error("the agent's guardrails keep changing; could not queue the message");
          guardrails = result.changed;
          rememberGuardrails(pool, agentKey, guardrails);
          read = true;
          continue;
        }
        if (input.guardrails === undefined && result !== 'agent_missing') {
          rememberGuardrails(pool, agentKey, guardrails);
        }
        outcome = result;
        break;
      }
    }
    if (typeof outcome === 'object' && 'row' in outcome && !outcome.replayed) {
      announcer.announce(outcome.row.conversation_id, { wakeWorkers: true });
    }
    return outcome;
  } catch (error) {
    // The agent was deleted since it was read: its foreign key refuses the conversation.
    if ((error as { code?: string }).code === '23503') return 'agent_missing';
    throw error;
  }
}

/**
 * The version of a platform as SQL, of `platform` and `org` (aliases of platforms and orgs): it
 * changes with any change of either row, and with any change, addition or deletion of an org
 * secret whose name is in the platform's config (xmin is the transaction that wrote a row's
 * version). A name in the config's text that is no reference only makes the version change more
 * often.
 */
export const platformVersionSql = (platform: string, org: string) =>
  `(${platform}.xmin::text || '/' || ${org}.xmin::text || '/' || (
     SELECT coalesce(string_agg(s.name || ':' || s.xmin::text, ',' ORDER BY s.name), '')
       FROM org_secrets s WHERE s.org_id = ${platform}.org_id AND strpos(${platform}.config::text, s.name) > 0))`;

/**
 * The plain message in one statement, which PostgreSQL runs as one transaction. It writes only
 * when the agent's guardrails are `checked` (those the content was let in by), and then first
 * takes a platform's message receipt (the platform's id of it): a second one finds it taken, and
 * nothing else is written. The conversation is taken (and its row locked) next, with its next
 * event number; clock_timestamp(), not now(), is read once that row is locked, so the order of
 * created_at is the order in which the messages of a conversation commit. `changed`: the agent's
 * guardrails are not `checked` any more, nothing was written; `platform_changed`: the platform
 * (or its org, or its secrets) is not the version the call was checked with, nothing was written.
 */
async function enqueueInOneStatement(
  pool: Pool,
  input: EnqueueInput,
  content: string,
  checked: Guardrails,
): Promise<EnqueueOutcome | { changed: Guardrails }> {
  const key = input.conversation ?? conversationKey(input.body, input.owner);
  const { rows } = await pool.query<
    MessageRow & { agent_guardrails: Guardrails; guardrails_checked: boolean; platform_current: boolean }
  >({
    // Prepared once per connection: planning this statement cost as much as running it.
    name: 'svc_enqueue_message',
    text: `WITH agent AS (
       SELECT config->'guardrails' AS guardrails FROM agents WHERE org_id = $1 AND agent_id = $2
     ),
     platform AS (
       SELECT 1 FROM platforms p JOIN orgs o ON o.id = p.org_id
        WHERE p.stable_id = $11 AND ${platformVersionSql('p', 'o')} = $16
     ),
     checked AS (
       SELECT 1 FROM agent WHERE coalesce(guardrails, 'null') = $15::jsonb
          AND ($16::text IS NULL OR EXISTS (SELECT 1 FROM platform))
     ),
     receipt AS (
       INSERT INTO webhook_receipts (stable_id, dedup_key)
       SELECT $11, $12 WHERE $11::text IS NOT NULL AND EXISTS (SELECT 1 FROM checked)
       ON CONFLICT DO NOTHING RETURNING 1
     ),
     payment AS (${paymentSql(7, 8, 9, 'EXISTS (SELECT 1 FROM checked)')}),
     conversation AS (
       INSERT INTO conversations (org_id, agent_id, platform, channel, thread, owner, last_seq)
       SELECT $1, $2, $3, $4, $5, $14, 1
        WHERE EXISTS (SELECT 1 FROM checked)
          AND ($7::text IS NULL OR EXISTS (SELECT 1 FROM payment))
          AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM receipt))
       ON CONFLICT (org_id, agent_id, platform, channel, thread, owner)
         DO UPDATE SET last_seq = conversations.last_seq + 1
       RETURNING id, last_seq
     ),
     message AS (
       INSERT INTO messages (conversation_id, org_id, agent_id, content, request_hash, created_at,
                             platform_stable_id, reply_to)
       SELECT id, $1, $2, $6, $10, clock_timestamp(), $11, $13 FROM conversation
       RETURNING ${BASE_COLUMNS}, '[]'::json AS files
     ),
     event AS (
       INSERT INTO conversation_events (conversation_id, seq, message_id, type, data)
       SELECT m.conversation_id, c.last_seq, m.id, 'message.queued',
              jsonb_build_object('messageId', m.id, 'content', m.content)
         FROM message m CROSS JOIN conversation c
     )
     SELECT message.*, agent.guardrails AS agent_guardrails,
            EXISTS (SELECT 1 FROM checked) AS guardrails_checked,
            $16::text IS NULL OR EXISTS (SELECT 1 FROM platform) AS platform_current
       FROM agent LEFT JOIN message ON true`,
    values: [
      input.orgId,
      input.agentId,
      key.platform,
      key.channel,
      key.thread,
      content,
      input.budget?.key ?? null,
      ...(input.budget ? paymentParams(input.budget.limit) : [0, 0]),
      input.requestHash,
      input.fromPlatform?.replyTo.stableId ?? null,
      input.fromPlatform?.dedupKey ?? null,
      input.fromPlatform
        ? JSON.stringify({ kind: input.fromPlatform.replyTo.kind, to: input.fromPlatform.replyTo.to })
        : null,
      key.owner,
      JSON.stringify(checked ?? null),
      input.fromPlatform?.version ?? null,
    ],
  });
  const found = rows[0];
  if (!found) return 'agent_missing';
  const { agent_guardrails: current, guardrails_checked: matched, platform_current, ...message } = found;
  if (!platform_current) return 'platform_changed';
  if (!matched) return { changed: current ?? null };
  if (message.id !== null) return { row: message as MessageRow, replayed: false };
  if (!input.budget) return 'duplicate';
  const budget = input.budget as NonNullable<EnqueueInput['budget']>;
  return { retryAfterSeconds: await retryAfterSeconds(pool, budget.limit, budget.key) };
}

async function enqueueInTransaction(
  pool: Pool,
  input: EnqueueInput,
  content: string,
): Promise<EnqueueOutcome> {
  return transaction(pool, async (client) => {
    if (input.idempotencyKey) {
      // Keys live for 24 hours; an older use frees the key for a new message.
      await client.query(
        `UPDATE messages SET idempotency_key = NULL
          WHERE org_id = $1 AND idempotency_key = $2 AND created_at < now() - interval '24 hours'`,
        [input.orgId, input.idempotencyKey],
      );
      // A replay is answered before the conversation's row is touched: taking its lock first and
      // then waiting on the message (which a worker may be updating, holding that same lock
      // next) deadlocked, and the replay answered 500.
      const existing = await client.query<MessageRow>(
        `SELECT ${COLUMNS} FROM messages WHERE org_id = $1 AND idempotency_key = $2`,
        [input.orgId, input.idempotencyKey],
      );
      if (existing.rows[0]) return rollback<EnqueueOutcome>({ row: existing.rows[0], replayed: true });
    }
    const key = input.conversation ?? conversationKey(input.body, input.owner);
    // As in one statement (above): the conversation's row is locked before created_at is read.
    const inserted = await client.query<MessageRow>(
      `WITH conversation AS (
         INSERT INTO conversations (org_id, agent_id, platform, channel, thread, owner)
         VALUES ($1, $2, $3, $4, $5, $9)
         ON CONFLICT (org_id, agent_id, platform, channel, thread, owner) DO UPDATE SET platform = excluded.platform
         RETURNING id
       )
       INSERT INTO messages (conversation_id, org_id, agent_id, content, idempotency_key, request_hash, created_at)
       SELECT conversation.id, $1, $2, $6, $7, $8, clock_timestamp() FROM conversation
       ON CONFLICT (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        input.orgId,
        input.agentId,
        key.platform,
        key.channel,
        key.thread,
        content,
        input.idempotencyKey,
        input.requestHash,
        key.owner,
      ],
    );
    const message = inserted.rows[0];
    if (!message) {
      const existing = await client.query<MessageRow>(
        `SELECT ${COLUMNS} FROM messages WHERE org_id = $1 AND idempotency_key = $2`,
        [input.orgId, input.idempotencyKey],
      );
      // The conversation upsert above may have created a row for the replay; drop it with the rest.
      return rollback<EnqueueOutcome>({ row: existing.rows[0] as MessageRow, replayed: true });
    }
    const paid = input.budget ? await takeFromBudget(client, input.budget.limit, input.budget.key) : null;
    if (paid && !paid.allowed) {
      return rollback<EnqueueOutcome>({ retryAfterSeconds: paid.retryAfterSeconds });
    }
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
      { notify: false },
    );
    return { row: message, replayed: false };
  });
}

/**
 * One message of the agent; null when there is none, or when `view` (visibility.ts: null sees the
 * whole org) may not see its conversation.
 */
export async function getMessage(
  pool: Pool,
  orgId: string,
  agentId: string,
  id: string,
  view: string | null,
): Promise<MessageRow | null> {
  const { rows } = await pool.query<MessageRow>(
    `SELECT ${COLUMNS} FROM messages
      WHERE org_id = $1 AND agent_id = $2 AND id = $3
        AND ($4::text IS NULL OR EXISTS (
              SELECT 1 FROM conversations c WHERE c.id = messages.conversation_id AND ${visibleTo('c', 4)}))`,
    [orgId, agentId, id, view],
  );
  return rows[0] ?? null;
}

export interface ConversationRow {
  id: string;
  agent_id: string;
  platform: string;
  channel: string;
  thread: string;
  owner: string;
  created_at: Date;
  last_message_at: Date | null;
  cursor_at: string;
}

const CONVERSATION_COLUMNS =
  'c.id, c.agent_id, c.platform, c.channel, c.thread, c.owner, c.created_at, c.created_at::text AS cursor_at, ' +
  '(SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = c.id) AS last_message_at';

/** `text` as an ILIKE pattern that matches it anywhere, literally: its `%`, `_` and `\` are no wildcards. */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The agent's conversations that `view` may see, newest first, after `cursor` ([createdAt, id]);
 * with `q`, only those with a message whose content or reply contains it, in any case.
 */
export async function listConversations(
  pool: Pool,
  orgId: string,
  agentId: string,
  view: string | null,
  cursor: [string, string] | null,
  limit: number,
  q: string | null = null,
): Promise<ConversationRow[]> {
  const { rows } = await pool.query<ConversationRow>(
    `SELECT ${CONVERSATION_COLUMNS}
       FROM conversations c
      WHERE c.org_id = $1 AND c.agent_id = $2 AND ${visibleTo('c', 6)}
        AND ($3::timestamptz IS NULL OR (c.created_at, c.id) < ($3::timestamptz, $4::uuid))
        -- No index serves a substring: the agent's messages are read once (a semi-join), which a
        -- person's search in the console can afford.
        AND ($7::text IS NULL OR EXISTS (
              SELECT 1 FROM messages m
               WHERE m.conversation_id = c.id AND m.org_id = $1 AND m.agent_id = $2
                 AND (m.content ILIKE $7::text OR m.reply ILIKE $7::text)))
      ORDER BY c.created_at DESC, c.id DESC
      LIMIT $5`,
    [
      orgId,
      agentId,
      cursor?.[0] ?? null,
      cursor?.[1] ?? null,
      limit,
      view,
      q === null ? null : containsPattern(q),
    ],
  );
  return rows;
}

/** One conversation of the agent, if `view` may see it. */
export async function findConversation(
  pool: Pool,
  orgId: string,
  agentId: string,
  conversationId: string,
  view: string | null,
): Promise<ConversationRow | null> {
  const { rows } = await pool.query<ConversationRow>(
    `SELECT ${CONVERSATION_COLUMNS} FROM conversations c
      WHERE c.id = $1 AND c.org_id = $2 AND c.agent_id = $3 AND ${visibleTo('c', 4)}`,
    [conversationId, orgId, agentId, view],
  );
  return rows[0] ?? null;
}

/** A conversation's messages, oldest first, after `cursor` ([createdAt, id]); null when `view` may not see it. */
export async function listConversationMessages(
  pool: Pool,
  orgId: string,
  agentId: string,
  conversationId: string,
  view: string | null,
  cursor: [string, string] | null,
  limit: number,
): Promise<(MessageRow & { cursor_at: string })[] | null> {
  const owned = await pool.query(
    `SELECT 1 FROM conversations c WHERE c.id = $1 AND c.org_id = $2 AND c.agent_id = $3 AND ${visibleTo('c', 4)}`,
    [conversationId, orgId, agentId, view],
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
