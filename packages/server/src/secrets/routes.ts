import {
  isReservedSecretName,
  RESERVED_SECRET_RULE,
  secretNameSchema,
  secretPutSchema,
  secretSchema,
} from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { iso, orgParams, problemResponse, problemResponses } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { deleteSecret, listSecrets, putSecret, type SecretRow } from './queries.js';

const tags = ['secrets'];
const secretParams = orgParams.extend({
  name: secretNameSchema.describe('the name references use, e.g. OPENAI_API_KEY'),
});

const toSecret = (row: SecretRow) => ({
  name: row.name,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

/** What the routes of this file need from the server that mounts them. */
export interface SecretRouteOptions {
  pool: Pool;
  /** Opens what the server keeps and must read back: SVC_ENCRYPTION_KEY. */
  encryptionKey: Buffer;
}

export function secretRoutes(options: SecretRouteOptions) {
  return async (app: App) => {
    app.put(
      '/api/:org/secrets/:name',
      {
        config: { auth: { scope: 'admin', org: true } },
        schema: {
          tags,
          operationId: 'putSecret',
          summary: 'Store an org secret; references ($NAME) of this org resolve to it before the environment',
          description:
            "The value is encrypted at rest (AES-256-GCM) and never returned. Names of the server's own " +
            'settings (SVC_*, PG*, NODE_*, DATABASE_URL) are refused with 422 `secret_reserved`.',
          params: secretParams,
          body: secretPutSchema,
          response: {
            200: z.object({ result: z.enum(['updated', 'unchanged']), secret: secretSchema }),
            201: z.object({ result: z.literal('created'), secret: secretSchema }),
            422: problemResponse('The name is reserved for the server'),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        const { name } = request.params;
        if (isReservedSecretName(name)) {
          throw new ProblemError(
            422,
            'secret_reserved',
            `"${name}" cannot be an org secret: ${RESERVED_SECRET_RULE}`,
            [{ path: '/params/name', message: 'reserved' }],
          );
        }
        const outcome = await putSecret(
          options.pool,
          options.encryptionKey,
          org.id,
          name,
          request.body.value,
        );
        const secret = toSecret(outcome.row);
        if (outcome.result === 'created') return reply.code(201).send({ result: 'created' as const, secret });
        return { result: outcome.result, secret };
      },
    );

    app.get(
      '/api/:org/secrets',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listSecrets',
          summary: "The org's secrets: names and times, never values",
          description: "The names of the org's secrets and when each was set. Values are never answered.",
          params: orgParams,
          response: { 200: z.object({ secrets: z.array(secretSchema) }), ...problemResponses },
        },
      },
      async (request) => {
        return { secrets: (await listSecrets(options.pool, orgOf(request).id)).map(toSecret) };
      },
    );

    app.delete(
      '/api/:org/secrets/:name',
      {
        config: { auth: { scope: 'admin', org: true } },
        schema: {
          tags,
          operationId: 'deleteSecret',
          summary: 'Delete an org secret; references to it stop resolving at once',
          description:
            'Removes the secret. A setting or platform that refers to it stops resolving at once and says `secret_missing`.',
          params: secretParams,
          response: {
            200: z.object({ result: z.literal('deleted'), name: z.string() }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { name } = request.params;
        if (!(await deleteSecret(options.pool, orgOf(request).id, name))) throw notFound(`secret "${name}"`);
        return { result: 'deleted' as const, name };
      },
    );
  };
}
