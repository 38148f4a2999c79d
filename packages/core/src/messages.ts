import { z } from 'zod';

/** `api`, `team_chat`, `messenger`, or an internal route `internal.<name>` (admin tokens only). */
export const messagePlatformSchema = z
  .string()
  .regex(/^(api|team_chat|messenger|internal\.[a-z0-9_-]{1,63})$/, {
    message: 'must be api, team_chat, messenger or internal.<name>',
  });

const routingText = z.string().min(1).max(200);

/**
 * The body of `POST /api/v1/agents/{agentId}/messages`. Routing is platform-aware: `api` and
 * internal routes use `channel` (default `default`); `team_chat` needs `team_chat.channel`;
 * `messenger` needs `messenger.chat`.
 */
export const messageSendSchema = z
  .strictObject({
    platform: messagePlatformSchema,
    content: z.string().min(1).max(100_000),
    channel: routingText.optional(),
    team_chat: z.strictObject({ channel: routingText, thread: routingText.optional() }).optional(),
    messenger: z.strictObject({ chat: routingText }).optional(),
  })
  .superRefine((body, ctx) => {
    const kind = body.platform.startsWith('internal.') ? 'internal' : body.platform;
    const misplaced = (key: 'channel' | 'team_chat' | 'messenger') =>
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
  });
export type MessageSend = z.infer<typeof messageSendSchema>;

export const MESSAGE_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;

export const messageSchema = z.object({
  id: z.uuid(),
  conversationId: z.uuid(),
  agentId: z.string(),
  status: z.enum(MESSAGE_STATUSES),
  content: z.string(),
  reply: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const messageAcceptedSchema = z.object({
  id: z.uuid(),
  conversationId: z.uuid(),
  status: z.enum(MESSAGE_STATUSES),
  links: z.object({ self: z.string() }),
});
