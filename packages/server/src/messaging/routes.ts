import { createHash } from 'node:crypto';
import { idSchema, messageAcceptedSchema, messageSchema, messageSendSchema } from '@svc/core';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { iso, problemResponse, problemResponses } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App, AppOptions, OrgRef } from '../http/types.js';
import { enqueueMessage, getMessage, type MessageRow } from './queries.js';
import { parseRateLimit } from './rate-limit.js';

const tags = ['messages'];
const auth = { auth: { scope: 'messages' as const, org: false } };
const agentParams = z.object({ agentId: idSchema.describe('agentId') });

export function messagingRoutes(options: AppOptions) {
  const limit = options.messageRateLimit === undefined ? parseRateLimit(undefined) : options.messageRateLimit;
  /** The path carries no org: a token speaks for its own org; the admin password for `default`. */
  async function orgOfCaller(request: FastifyRequest): Promise<OrgRef> {
    const token = request.caller?.token;
    if (token) return { id: token.orgId, slug: token.orgSlug };
    const { rows } = await options.pool.query<{ id: string }>("SELECT id FROM orgs WHERE slug = 'default'");
    if (!rows[0]) throw notFound('org "default"');
    return { id: String(rows[0].id), slug: 'default' };
  }
  const selfLink = (agentId: string, id: string) =>
    `${options.basePath}/api/v1/agents/${agentId}/messages/${id}`;
  const toMessage = (row: MessageRow) => ({
    id: row.id,
    conversationId: row.conversation_id,
    agentId: row.agent_id,
    status: row.status,
    content: row.content,
    reply: row.reply,
    error: row.error,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  });

  return async (app: App) => {
    app.post(
      '/api/v1/agents/:agentId/messages',
      {
        config: auth,
        schema: {
          tags,
          operationId: 'sendMessage',
          summary: "Send a message to an agent; it is queued for the agent's next turn",
          description:
            'With `Idempotency-Key`, the same key and body within 24 hours replays the first answer ' +
            '(`Idempotent-Replayed: true`); the same key with another body is 422.',
          params: agentParams,
          headers: z.object({ 'idempotency-key': z.string().min(1).max(200).optional() }),
          body: messageSendSchema,
          response: {
            202: messageAcceptedSchema,
            422: problemResponse('The Idempotency-Key was used with another body'),
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
        const requestHash = createHash('sha256')
          .update(JSON.stringify([agentId, body]))
          .digest('hex');
        const idempotencyKey = request.headers['idempotency-key'] ?? null;
        const outcome = await enqueueMessage(options.pool, {
          orgId: org.id,
          agentId,
          body,
          idempotencyKey,
          requestHash,
          // Each token pays for the messages it queues (the admin password has a budget of its own):
          // every message will cost a model call, so a leaked or looping client must not spend
          // without bound. A replay or a refused request costs nothing.
          budget: limit && { limit, key: `messages:${request.caller?.token?.id ?? 'admin_password'}` },
        });
        if (outcome === 'agent_missing') throw notFound(`agent "${agentId}"`);
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
        return reply.code(202).send({
          id: outcome.row.id,
          conversationId: outcome.row.conversation_id,
          status: outcome.row.status,
          links: { self: selfLink(agentId, outcome.row.id) },
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
          params: agentParams.extend({ messageId: z.uuid() }),
          response: { 200: messageSchema, ...problemResponses },
        },
      },
      async (request) => {
        const { agentId, messageId } = request.params;
        const org = await orgOfCaller(request);
        const row = await getMessage(options.pool, org.id, agentId, messageId);
        if (!row) throw notFound(`message "${messageId}"`);
        return toMessage(row);
      },
    );
  };
}
