import { timingSafeEqual } from 'node:crypto';
import {
  isReservedSecretName,
  RESERVED_SECRET_RULE,
  secretNameSchema,
  secretPutSchema,
  secretSchema,
} from '@svc/core';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { iso, orgParams, problemResponse, problemResponses } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App, AppOptions } from '../http/types.js';
import { seal, unseal } from './cipher.js';
import { secretContext } from './resolve.js';

const tags = ['secrets'];
const secretParams = orgParams.extend({
  name: secretNameSchema.describe('the name references use, e.g. OPENAI_API_KEY'),
});

interface SecretRow {
  name: string;
  value: Buffer;
  created_at: Date;
  updated_at: Date;
}
const toSecret = (row: Omit<SecretRow, 'value'>) => ({
  name: row.name,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

/** Same bytes, compared without leaking where they differ. */
function sameValue(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function secretRoutes(options: AppOptions) {
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
        const context = secretContext(org.id, name);
        const sealed = seal(options.encryptionKey, request.body.value, context);
        const client = await options.pool.connect();
        try {
          await client.query('BEGIN');
          // Locked, so that two PUTs of one name compare against what the other wrote.
          const current = (
            await client.query<SecretRow>(
              'SELECT name, value, created_at, updated_at FROM org_secrets WHERE org_id = $1 AND name = $2 FOR UPDATE',
              [org.id, name],
            )
          ).rows[0];
          if (
            current &&
            sameValue(unseal(options.encryptionKey, current.value, context), request.body.value)
          ) {
            await client.query('COMMIT');
            return { result: 'unchanged' as const, secret: toSecret(current) };
          }
          const { rows } = await client.query<SecretRow & { created: boolean }>(
            `INSERT INTO org_secrets (org_id, name, value) VALUES ($1, $2, $3)
             ON CONFLICT (org_id, name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
             RETURNING name, created_at, updated_at, (xmax = 0) AS created`,
            [org.id, name, sealed],
          );
          await client.query('COMMIT');
          const row = rows[0] as SecretRow & { created: boolean };
          if (row.created) return reply.code(201).send({ result: 'created' as const, secret: toSecret(row) });
          return { result: 'updated' as const, secret: toSecret(row) };
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        } finally {
          client.release();
        }
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
          params: orgParams,
          response: { 200: z.object({ secrets: z.array(secretSchema) }), ...problemResponses },
        },
      },
      async (request) => {
        const { rows } = await options.pool.query<SecretRow>(
          'SELECT name, created_at, updated_at FROM org_secrets WHERE org_id = $1 ORDER BY name',
          [orgOf(request).id],
        );
        return { secrets: rows.map(toSecret) };
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
          params: secretParams,
          response: {
            200: z.object({ result: z.literal('deleted'), name: z.string() }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { name } = request.params;
        const { rowCount } = await options.pool.query(
          'DELETE FROM org_secrets WHERE org_id = $1 AND name = $2',
          [orgOf(request).id, name],
        );
        if (rowCount === 0) throw notFound(`secret "${name}"`);
        return { result: 'deleted' as const, name };
      },
    );
  };
}
