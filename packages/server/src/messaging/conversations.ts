import { conversationSchema, idSchema, messageSchema, pageQuerySchema } from '@svc/core';
import { z } from 'zod';
import { iso, isoOrNull, problemResponses } from '../http/common.js';
import { eventStreamResponse } from '../http/event-stream.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import type { ConversationHub } from '../turns/hub.js';
import { decodeCursor, encodeCursor, MESSAGES_AUTH, orgOfMessagesCaller, toMessage } from './answers.js';
import type { MessagingOptions } from './options.js';
import {
  type ConversationRow,
  findConversation,
  listConversationMessages,
  listConversations,
} from './queries.js';
import { createStreams, lastEventId } from './sse.js';
import { privateViewOf, SHARED } from './visibility.js';

const tags = ['conversations'];
const VISIBILITY =
  "A token without the `read` scope sees the shared conversations and its own private ones (an `api` conversation of its messages sent without `channel`); another token's private conversation is 404 to it. Tokens with `read` (or `write`, `admin`) see every conversation of the org.";
const agentParams = z.object({ agentId: idSchema.describe('agentId') });
const conversationParams = agentParams.extend({ conversationId: z.uuid() });

const toConversation = (row: ConversationRow) => ({
  id: row.id,
  agentId: row.agent_id,
  platform: row.platform,
  channel: row.owner === SHARED ? row.channel : null,
  private: row.owner !== SHARED,
  thread: row.thread === '' ? null : row.thread,
  createdAt: iso(row.created_at),
  lastMessageAt: isoOrNull(row.last_message_at),
});

function cursorOf(raw: string | undefined): [string, string] | null {
  const cursor = decodeCursor(raw);
  if (raw !== undefined && cursor === null) {
    throw new ProblemError(400, 'validation_failed', 'the cursor is not one this API gave out', [
      { path: '/querystring/cursor', message: "use the previous page's nextCursor" },
    ]);
  }
  return cursor;
}

/** An agent's conversations, their message history, and their event streams. */
export function conversationRoutes(options: MessagingOptions, hub: ConversationHub) {
  const streams = createStreams({ pool: options.pool, hub }, options.streamTimings);
  return async (app: App) => {
    app.get(
      '/api/v1/agents/:agentId/conversations',
      {
        config: MESSAGES_AUTH,
        schema: {
          tags,
          operationId: 'listConversations',
          summary:
            "The agent's conversations, newest first, a page at a time; with `q`, those that mention it",
          description: `${VISIBILITY} With \`q\`, only the conversations with a message whose content or reply contains it, ignoring case (\`%\` and \`_\` are matched as written, not as wildcards).`,
          params: agentParams,
          querystring: pageQuerySchema.extend({
            q: z
              .string()
              .min(1)
              .max(200)
              .optional()
              .describe('text a message or its reply contains, in any case'),
          }),
          response: {
            200: z.object({ conversations: z.array(conversationSchema), nextCursor: z.string().nullable() }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { agentId } = request.params;
        const org = await orgOfMessagesCaller(options.pool, request);
        const { limit } = request.query;
        const rows = await listConversations(
          options.pool,
          org.id,
          agentId,
          privateViewOf(request.caller),
          cursorOf(request.query.cursor),
          limit,
          request.query.q ?? null,
        );
        const last = rows.at(-1);
        return {
          conversations: rows.map(toConversation),
          nextCursor: rows.length === limit && last ? encodeCursor(last.cursor_at, last.id) : null,
        };
      },
    );

    app.get(
      '/api/v1/agents/:agentId/conversations/:conversationId/messages',
      {
        config: MESSAGES_AUTH,
        schema: {
          tags,
          operationId: 'listConversationMessages',
          summary: "A conversation's messages with their replies, oldest first, a page at a time",
          description: VISIBILITY,
          params: conversationParams,
          querystring: pageQuerySchema,
          response: {
            200: z.object({ messages: z.array(messageSchema), nextCursor: z.string().nullable() }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { agentId, conversationId } = request.params;
        const org = await orgOfMessagesCaller(options.pool, request);
        const { limit } = request.query;
        const rows = await listConversationMessages(
          options.pool,
          org.id,
          agentId,
          conversationId,
          privateViewOf(request.caller),
          cursorOf(request.query.cursor),
          limit,
        );
        if (rows === null) throw notFound(`conversation "${conversationId}"`);
        const last = rows.at(-1);
        return {
          messages: rows.map((row) => toMessage(row, options.basePath)),
          nextCursor: rows.length === limit && last ? encodeCursor(last.cursor_at, last.id) : null,
        };
      },
    );

    app.get(
      '/api/v1/agents/:agentId/conversations/:conversationId/events',
      {
        config: MESSAGES_AUTH,
        schema: {
          tags,
          operationId: 'streamConversationEvents',
          summary: "The conversation's events as Server-Sent Events, from any replica",
          description:
            "Each event has an `id` (the conversation's sequence number) and JSON `data`: " +
            '`message.queued`, `message.started` (`attempt`: a new attempt restarts the reply), ' +
            '`reply.delta` (`text`), `reply.completed`, `reply.failed` (`error`: a problem). ' +
            'A reconnecting client sends `Last-Event-ID` (or `?after=`) and gets every later event once. ' +
            `A \`: ping\` comment comes every 15 s. ${VISIBILITY}`,
          params: conversationParams,
          querystring: z.object({
            after: z.coerce.number().int().min(0).optional().describe('the last event id the client has'),
          }),
          response: {
            200: eventStreamResponse(
              "The conversation's events as they happen; the stream stays open",
              'retry: 1000\n\nid: 7\nevent: reply.delta\ndata: {"messageId":"0b6f3f4e-2f4b-4c55-9a43-55b0c2b7f1a2","text":"Hello","seq":7}\n\n',
            ),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const { agentId, conversationId } = request.params;
        const org = await orgOfMessagesCaller(options.pool, request);
        const found = await findConversation(
          options.pool,
          org.id,
          agentId,
          conversationId,
          privateViewOf(request.caller),
        );
        if (!found) throw notFound(`conversation "${conversationId}"`);
        const after = lastEventId(request.headers['last-event-id'], request.query.after);
        // As stored (lowercase): the id in the URL may be written in capitals.
        streams.open(reply, found.id, after, request.stillAuthorized ?? (async () => false));
      },
    );

    // Streams never end by themselves: shutting down ends them, and clients reconnect elsewhere.
    app.addHook('preClose', async () => streams.endAll());
  };
}
