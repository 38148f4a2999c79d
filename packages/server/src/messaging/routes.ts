import { createHash } from 'node:crypto';
import { idSchema, messageAcceptedSchema, messageSchema, messageSendSchema } from '@svc/core';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { problemResponse, problemResponses } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App, OrgRef } from '../http/types.js';
import type { Announcer } from '../turns/events.js';
import type { ConversationHub } from '../turns/hub.js';
import { MESSAGES_AUTH, orgOfMessagesCaller, toMessage } from './answers.js';
import type { MessagingOptions } from './options.js';
import {
  type ConversationKey,
  enqueueMessage,
  findConversation,
  getMessage,
  type MessageRow,
} from './queries.js';
import { parseRateLimit } from './rate-limit.js';
import { DEFAULT_UPLOAD_LIMITS, registerUploads, type Upload } from './uploads.js';
import { ownerOf, privateViewOf, visibleTo } from './visibility.js';

/** `Prefer: wait=N`, N from 0 to 60 (RFC 7240); null without it. */
function preferredWait(prefer: string | undefined): number | null {
  const match = /(?:^|[,;]\s*)wait=(\d+)/i.exec(prefer ?? '');
  return match ? Math.min(60, Number(match[1])) : null;
}

const tags = ['messages'];

/**
 * What an `Idempotency-Key` replay must match: the agent, the body, the files (content, name and
 * type), and the sender, since a replay answers the first message, which may be in the first
 * sender's private conversation.
 */
function requestFingerprint(agentId: string, body: unknown, files: Upload[], owner: string): string {
  const fileFacts = files.map((file) => [
    file.name,
    file.contentType,
    createHash('sha256').update(file.data).digest('hex'),
  ]);
  return createHash('sha256')
    .update(JSON.stringify([agentId, body, fileFacts, owner]))
    .digest('hex');
}

/** The multipart form of a message: the JSON body's fields, and its files as `files` parts. */
const MULTIPART_MESSAGE = {
  type: 'object',
  required: ['platform', 'content'],
  properties: {
    platform: { type: 'string', description: 'api, team_chat, messenger or internal.<name>' },
    content: { type: 'string' },
    channel: {
      type: 'string',
      description:
        'platform api: a conversation shared by every token of the org that names it (history included); ' +
        "without it, the calling token's own conversation",
    },
    conversationId: {
      type: 'string',
      format: 'uuid',
      description: 'platform api: continue this conversation',
    },
    team_chat: { type: 'string', description: 'JSON text: {"channel": "...", "thread": "..."}' },
    messenger: { type: 'string', description: 'JSON text: {"chat": "..."}' },
    files: {
      type: 'array',
      items: { type: 'string', format: 'binary' },
      description:
        'each at most SVC_UPLOAD_MAX_FILE_BYTES (10 MiB), together SVC_UPLOAD_MAX_TOTAL_BYTES (25 MiB), 10 at most',
    },
  },
};
const auth = MESSAGES_AUTH;
const agentParams = z.object({ agentId: idSchema.describe('agentId') });

export function messagingRoutes(options: MessagingOptions, hub: ConversationHub, announcer: Announcer) {
  const limit = options.messageRateLimit === undefined ? parseRateLimit(undefined) : options.messageRateLimit;
  const orgOfCaller = (request: FastifyRequest) => orgOfMessagesCaller(options.pool, request);
  const selfLink = (agentId: string, id: string) =>
    `${options.basePath}/api/v1/agents/${agentId}/messages/${id}`;
  const eventsLink = (agentId: string, conversationId: string) =>
    `${options.basePath}/api/v1/agents/${agentId}/conversations/${conversationId}/events`;
  /**
   * Waits up to `seconds` for the message's turn to end (or to pause for an approval), woken by
   * its conversation's events: the message as it then is, or null when it is still going.
   */
  async function waitForTurn(org: OrgRef, agentId: string, row: MessageRow, seconds: number) {
    const ended = (r: MessageRow | null) =>
      r !== null && ['completed', 'failed', 'awaiting_approval'].includes(r.status) ? r : null;
    if (ended(row)) return row;
    // Set by an event that arrives while the message is being read, so that it is not missed.
    let woken = false;
    let wake: () => void = () => {
      woken = true;
    };
    const unsubscribe = hub.subscribe(row.conversation_id, () => wake());
    const deadline = Date.now() + seconds * 1000;
    try {
      for (;;) {
        woken = false;
        const current = ended(await getMessage(options.pool, org.id, agentId, row.id, null));
        const left = deadline - Date.now();
        if (current || left <= 0) return current;
        if (woken) continue;
        // Woken by an event of the conversation, or by the poll floor: 2 s while notifications
        // are not coming (the listener is down), 10 s for one never sent (see sse.ts).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, hub.listening ? 10_000 : 2000));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = () => {
          woken = true;
        };
      }
    } finally {
      unsubscribe();
    }
  }

  return async (app: App) => {
    await registerUploads(app, options.uploadLimits ?? DEFAULT_UPLOAD_LIMITS);
    app.post(
      '/api/v1/agents/:agentId/messages',
      {
        config: { ...auth, multipartBody: MULTIPART_MESSAGE },
        schema: {
          tags,
          operationId: 'sendMessage',
          summary: "Send a message to an agent; it is queued for the agent's next turn",
          description:
            'On platform `api`, a message without `channel` goes to a conversation of the calling token ' +
            'alone (the admin password is a caller of its own): another token never sees it, and the ' +
            "model sees none of the other tokens' messages. `conversationId` continues one of them. " +
            '**Warning:** a `channel` names a conversation shared by every token of the org that names ' +
            'it, its history included; use one only to share on purpose.\n\n' +
            'With `Idempotency-Key`, the same key, body and files from the same token within 24 hours ' +
            'replays the first answer (`Idempotent-Replayed: true`); the same key otherwise is 422.',
          params: agentParams,
          headers: z.object({
            'idempotency-key': z.string().min(1).max(200).optional(),
            prefer: z
              .string()
              .max(200)
              .optional()
              .describe(
                '`wait=N` (N up to 60): answer 200 with the message once its turn ended, or 202 after N s',
              ),
          }),
          body: messageSendSchema,
          response: {
            200: messageSchema.describe('With `Prefer: wait=N`: the turn ended within N seconds'),
            202: messageAcceptedSchema,
            422: problemResponse(
              "The Idempotency-Key was used with another body, or the agent's guardrails refuse the message",
            ),
            429: problemResponse("The token's message budget is spent; see Retry-After"),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const { agentId } = request.params;
        const body = request.body;
        if (body.platform.startsWith('internal.') && !request.caller?.scopes.has('admin')) {
          throw new ProblemError(403, 'forbidden', `internal platform routes need an admin token`);
        }
        const org = await orgOfCaller(request);
        const owner = ownerOf(request.caller);
        const requestHash = requestFingerprint(agentId, body, request.uploads, owner);
        const idempotencyKey = request.headers['idempotency-key'] ?? null;
        let conversation: ConversationKey | undefined;
        if (body.conversationId !== undefined) {
          const found = await findConversation(
            options.pool,
            org.id,
            agentId,
            body.conversationId,
            privateViewOf(request.caller),
          );
          if (!found) throw notFound(`conversation "${body.conversationId}"`);
          if (found.platform !== 'api') {
            throw new ProblemError(400, 'validation_failed', `conversation "${found.id}" is not an api one`, [
              {
                path: '/body/conversationId',
                message: `a ${found.platform} conversation continues on its platform`,
              },
            ]);
          }
          conversation = {
            platform: found.platform,
            channel: found.channel,
            thread: found.thread,
            owner: found.owner,
          };
        }
        const outcome = await enqueueMessage(options.pool, announcer, {
          orgId: org.id,
          agentId,
          body,
          idempotencyKey,
          requestHash,
          files: request.uploads,
          owner,
          ...(conversation ? { conversation } : {}),
          // Each token pays for the messages it queues (the admin password has a budget of its own):
          // every message will cost a model call, so a leaked or looping client must not spend
          // without bound. A replay or a refused request costs nothing.
          budget: limit && { limit, key: `messages:${request.caller?.token?.id ?? 'admin_password'}` },
        });
        if (outcome === 'agent_missing') throw notFound(`agent "${agentId}"`);
        // Only a platform's message (webhooks/) can be a duplicate or find its platform changed.
        if (outcome === 'duplicate' || outcome === 'platform_changed') {
          throw new Error(`a message from no platform was answered ${outcome}`);
        }
        if ('refused' in outcome) {
          throw new ProblemError(422, 'guardrail_blocked', outcome.refused.detail, [
            { path: '/body/content', message: "refused by the agent's guardrails" },
          ]);
        }
        if ('retryAfterSeconds' in outcome) {
          reply.header('retry-after', String(outcome.retryAfterSeconds));
          throw new ProblemError(
            429,
            'rate_limited',
            `this token may send ${limit?.count} messages per ${(limit?.periodMs ?? 0) / 1000} s; retry in ${outcome.retryAfterSeconds} s`,
          );
        }
        if (outcome.replayed) {
          if (outcome.row.request_hash !== requestHash) {
            throw new ProblemError(
              422,
              'idempotency_key_reused',
              'this Idempotency-Key was used in the last 24 hours with another request; use a new key',
              [{ path: '/headers/idempotency-key', message: 'already used with another body' }],
            );
          }
          reply.header('idempotent-replayed', 'true');
        }
        const wait = preferredWait(request.headers.prefer);
        if (wait !== null) {
          reply.header('preference-applied', `wait=${wait}`);
          const done = await waitForTurn(org, agentId, outcome.row, wait);
          if (done) return reply.code(200).send(toMessage(done, options.basePath));
        }
        return reply.code(202).send({
          id: outcome.row.id,
          conversationId: outcome.row.conversation_id,
          status: outcome.row.status,
          links: {
            self: selfLink(agentId, outcome.row.id),
            events: eventsLink(agentId, outcome.row.conversation_id),
          },
        });
      },
    );

    app.get(
      '/api/v1/agents/:agentId/messages/:messageId',
      {
        config: auth,
        schema: {
          tags,
          operationId: 'getMessage',
          summary: "A message's status and, once the turn completed, its reply",
          description:
            "The message's status (`queued`, `running`, `awaiting_approval`, `completed`, `failed`), its reply once completed, its usage and its files.",
          params: agentParams.extend({ messageId: z.uuid() }),
          response: { 200: messageSchema, ...problemResponses },
        },
      },
      async (request) => {
        const { agentId, messageId } = request.params;
        const org = await orgOfCaller(request);
        const row = await getMessage(options.pool, org.id, agentId, messageId, privateViewOf(request.caller));
        if (!row) throw notFound(`message "${messageId}"`);
        return toMessage(row, options.basePath);
      },
    );

    app.get(
      '/api/v1/agents/:agentId/messages/:messageId/files/:fileId',
      {
        config: auth,
        schema: {
          tags,
          operationId: 'downloadMessageFile',
          summary: 'A file sent with a message, as it was uploaded',
          description:
            'The bytes of a file sent with the message, with the content type it was uploaded with.',
          params: agentParams.extend({ messageId: z.uuid(), fileId: z.uuid() }),
          response: {
            200: {
              description: "The file's bytes; its type is in the message's `files`",
              content: { 'application/octet-stream': { schema: z.string() } },
            },
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const { agentId, messageId, fileId } = request.params;
        const org = await orgOfCaller(request);
        const { rows } = await options.pool.query<{ name: string; data: Buffer }>(
          `SELECT f.name, f.data FROM message_files f JOIN messages m ON m.id = f.message_id
             JOIN conversations c ON c.id = m.conversation_id
            WHERE f.id = $1 AND f.message_id = $2 AND m.org_id = $3 AND m.agent_id = $4 AND ${visibleTo('c', 5)}`,
          [fileId, messageId, org.id, agentId, privateViewOf(request.caller)],
        );
        const file = rows[0];
        if (!file) throw notFound(`file "${fileId}"`);
        // Served as bytes to download, never rendered: a file is whatever its sender said it is.
        return reply
          .type('application/octet-stream')
          .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`)
          .send(file.data as never);
      },
    );
  };
}
