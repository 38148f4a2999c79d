import { z } from 'zod';
import { countSchema, recordIdSchema } from './ids.js';

/** `api`, `team_chat`, `messenger`, or an internal route `internal.<name>` (admin tokens only). */
export const messagePlatformSchema = z
  .string()
  .regex(/^(api|team_chat|messenger|internal\.[a-z0-9_-]{1,63})$/, {
    message: 'must be api, team_chat, messenger or internal.<name>',
  });

const routingText = z.string().min(1).max(200);

/**
 * The body of `POST /api/v1/agents/{agentId}/messages`. Routing is platform-aware: on `api`, no
 * `channel` is the caller's own conversation, a `channel` one shared by the org, a
 * `conversationId` one to continue; internal routes use `channel` (default `default`);
 * `team_chat` needs `team_chat.channel`; `messenger` needs `messenger.chat`.
 */
export const messageSendSchema = z
  .strictObject({
    platform: messagePlatformSchema,
    content: z.string().min(1).max(100_000),
    channel: routingText
      .optional()
      .describe(
        'platform `api`: a conversation shared on purpose. Warning: every token of the org that ' +
          'names this channel reads and writes the same conversation, its history included (the ' +
          'model sees it). Without it (and without `conversationId`), the message goes to a ' +
          'conversation of the calling token alone. Internal routes: default `default`.',
      ),
    conversationId: z
      .uuid()
      .optional()
      .describe(
        "platform `api`: continue this conversation (one of the agent's `api` conversations that " +
          'the caller may see, as `conversationId` of an earlier answer); not with `channel`',
      ),
    team_chat: z.strictObject({ channel: routingText, thread: routingText.optional() }).optional(),
    messenger: z.strictObject({ chat: routingText }).optional(),
  })
  .superRefine((body, ctx) => {
    const kind = body.platform.startsWith('internal.') ? 'internal' : body.platform;
    const misplaced = (key: 'channel' | 'conversationId' | 'team_chat' | 'messenger') =>
      ctx.addIssue({ code: 'custom', path: [key], message: `does not apply to platform "${body.platform}"` });
    if (kind === 'team_chat' && !body.team_chat) {
      ctx.addIssue({ code: 'custom', path: ['team_chat'], message: 'required with platform "team_chat"' });
    }
    if (kind === 'messenger' && !body.messenger) {
      ctx.addIssue({ code: 'custom', path: ['messenger'], message: 'required with platform "messenger"' });
    }
    if (kind !== 'team_chat' && body.team_chat) misplaced('team_chat');
    if (kind !== 'messenger' && body.messenger) misplaced('messenger');
    if ((kind === 'team_chat' || kind === 'messenger') && body.channel !== undefined) misplaced('channel');
    if (kind !== 'api' && body.conversationId !== undefined) misplaced('conversationId');
    if (body.channel !== undefined && body.conversationId !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['conversationId'],
        message: 'names the conversation already: send either `channel` or `conversationId`',
      });
    }
  });
export type MessageSend = z.infer<typeof messageSendSchema>;

/**
 * `queued` -> `running` -> `completed` | `failed`; `running` -> `awaiting_approval` -> `running`
 * while a tool call waits for a decision. A worker that dies puts `running` back to `queued`
 * (bounded attempts, then `failed`).
 */
export const MESSAGE_STATUSES = ['queued', 'running', 'awaiting_approval', 'completed', 'failed'] as const;

/** Tokens a turn used, as the provider reported them. */
export const usageSchema = z.object({
  inputTokens: countSchema.nullable(),
  outputTokens: countSchema.nullable(),
  totalTokens: countSchema.nullable(),
});

/** Why a turn failed: a problem (`code`, `detail` saying what to do), as HTTP errors are. */
export const turnErrorSchema = z.object({
  code: z.string(),
  detail: z.string(),
});

export const messageSchema = z.object({
  id: z.uuid(),
  conversationId: z.uuid(),
  agentId: z.string(),
  status: z.enum(MESSAGE_STATUSES),
  content: z.string(),
  reply: z.string().nullable(),
  error: turnErrorSchema.nullable(),
  model: z.string().nullable().describe('"provider/model" that answered'),
  usage: usageSchema.nullable(),
  attempts: countSchema.describe('times a worker took the turn up'),
  delivery: z
    .enum(['pending', 'delivered', 'failed'])
    .nullable()
    .describe('of the reply to the chat platform the message came from (null for other messages)'),
  deliveryError: turnErrorSchema.nullable().describe('why the reply did not reach the platform: its error'),
  files: z
    .array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        contentType: z.string(),
        size: countSchema,
        url: z.string(),
      }),
    )
    .describe('files sent with the message (multipart), each downloadable at its url'),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  firstTokenAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  updatedAt: z.string(),
});
export type Message = z.infer<typeof messageSchema>;

export const messageAcceptedSchema = z.object({
  id: z.uuid(),
  conversationId: z.uuid(),
  status: z.enum(MESSAGE_STATUSES),
  links: z.object({
    self: z.string(),
    events: z.string().describe("the conversation's event stream (SSE)"),
  }),
});

/** Names of the events of a conversation's stream (SSE `event:`). */
export const CONVERSATION_EVENT_TYPES = [
  'message.queued',
  'message.started',
  'reply.delta',
  'tool.call',
  'tool.result',
  'approval.requested',
  'approval.resolved',
  'reply.completed',
  'reply.failed',
] as const;
export type ConversationEventType = (typeof CONVERSATION_EVENT_TYPES)[number];

export const conversationSchema = z.object({
  id: z.uuid(),
  agentId: z.string(),
  platform: z.string(),
  channel: z
    .string()
    .nullable()
    .describe(
      "null for a private conversation: an `api` one of a single token's messages sent without `channel`",
    ),
  private: z
    .boolean()
    .describe(
      'of one caller alone: tokens without the `read` scope see only their own private conversations and the shared ones',
    ),
  thread: z.string().nullable(),
  createdAt: z.string(),
  lastMessageAt: z.string().nullable(),
});

/** A page of a list; `nextCursor` is null on the last one. */
export const pageQuerySchema = z.object({
  cursor: z.string().max(500).optional().describe('the `nextCursor` of the previous page'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** The body of `POST /api/v1/agents/{agentId}/approvals/{approvalId}`. */
export const approvalDecisionSchema = z.strictObject({
  decision: z.enum(['approve', 'reject']),
  reason: z.string().max(2000).optional().describe('told to the model with a rejection'),
});

/** What an approval's status can be: `expired` is one nobody decided within `SVC_APPROVAL_TTL`. */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;

export const approvalSchema = z.object({
  id: z.uuid(),
  messageId: z.uuid(),
  toolCallId: z.string(),
  tool: z.string(),
  input: z.unknown(),
  status: z.enum(APPROVAL_STATUSES),
  reason: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().nullable(),
});

/**
 * Where a decision on an item of the approvals inbox is posted: a route of this API, relative to
 * its base (a client mounted under `SVC_BASE_PATH` adds that prefix, as it does to every route).
 */
const decidePath = (what: string) =>
  z.string().describe(`${what}, relative to the API base (no SVC_BASE_PATH)`);

/** A tool call that paused a turn, as the approvals inbox lists it (`GET /api/{org}/approvals`). */
export const toolCallApprovalItemSchema = z.object({
  kind: z.literal('tool_call'),
  id: z.uuid().describe('the approval id'),
  agentId: z.string(),
  conversationId: z.uuid(),
  messageId: z.uuid(),
  tool: z.string().describe('`<server>.<tool>` or `<connectorKey>.<actionKey>`'),
  input: z.unknown(),
  status: z
    .enum(APPROVAL_STATUSES)
    .describe('`expired` as soon as `expiresAt` has passed undecided, whether or not it was recorded yet'),
  reason: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().nullable(),
  decide: z
    .object({
      method: z.literal('POST'),
      path: decidePath('`/api/v1/agents/{agentId}/approvals/{approvalId}`'),
      scope: z.literal('messages').describe('the scope the decision takes'),
    })
    .describe('post `{decision: "approve" | "reject", reason?}` here; decided once (409 after)'),
});

/** A connector action run that waits for approval (or did), as the approvals inbox lists it. */
export const actionRunApprovalItemSchema = z.object({
  kind: z.literal('action_run'),
  id: recordIdSchema.describe('the run id'),
  connectionId: recordIdSchema,
  connectorKey: z.string(),
  actionKey: z.string(),
  input: z.record(z.string(), z.unknown()),
  status: z
    .enum(APPROVAL_STATUSES)
    .describe(
      'its `approvalStatus`: `pending` while it waits; `rejected` also for a run cancelled while it waited (it never runs); never `expired`',
    ),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
  decide: z
    .object({
      method: z.literal('POST'),
      approvePath: decidePath('`/api/{org}/runs/{runId}/approve`'),
      rejectPath: decidePath('`/api/{org}/runs/{runId}/reject`'),
      scope: z.literal('write').describe('the scope the decision takes'),
    })
    .describe('post to one of these, with no body; decided once (409 after)'),
});

export const approvalItemSchema = z.discriminatedUnion('kind', [
  toolCallApprovalItemSchema,
  actionRunApprovalItemSchema,
]);
export type ApprovalItem = z.infer<typeof approvalItemSchema>;

/** The answer of `GET /api/{org}/approvals`: newest first; `nextCursor` is null on the last page. */
export const approvalListSchema = z.object({
  approvals: z.array(approvalItemSchema),
  nextCursor: z.string().nullable(),
});
