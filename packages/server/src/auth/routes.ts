import { scopeSchema, tokenCreateSchema, tokenSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { iso, isoOrNull, orgParams, problemResponse, problemResponses } from '../http/common.js';
import { ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { orgOf } from './authenticate.js';
import type { TokenLookup } from './token-lookup.js';
import { TOKEN_CHANNEL } from './token-lookup.js';
import { hashToken, newTokenId, newTokenSecret } from './tokens.js';

const tags = ['tokens'];
const orgAdmin = { auth: { scope: 'admin' as const, org: true } };

interface TokenRow {
  id: string;
  name: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}
const COLUMNS = 'id, name, scopes, created_at, expires_at, last_used_at, revoked_at';
const toToken = (row: TokenRow) => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes as z.infer<typeof scopeSchema>[],
  createdAt: iso(row.created_at),
  expiresAt: isoOrNull(row.expires_at),
  lastUsedAt: isoOrNull(row.last_used_at),
  revokedAt: isoOrNull(row.revoked_at),
});

/** What the routes of this file need from the server that mounts them. */
export interface TokenRouteOptions {
  pool: Pool;
}

export function tokenRoutes(options: TokenRouteOptions, tokens: TokenLookup) {
  return async (app: App) => {
    app.get(
      '/api/whoami',
      {
        // Any valid credentials may ask, whatever their scopes: `svc login` checks a token with it.
        config: { auth: { scope: 'authenticated', org: false } },
        schema: {
          tags,
          operationId: 'whoami',
          summary: 'Who the bearer credentials belong to',
          description:
            'Whether the bearer credentials are a token or the admin password, their org and their scopes: what a client checks before it starts.',
          response: {
            200: z.object({
              kind: z.enum(['token', 'admin_password']),
              org: z
                .string()
                .nullable()
                .describe("the token's org; null for the admin password, which acts on every org"),
              scopes: z.array(scopeSchema),
              token: z.object({ id: z.string(), name: z.string() }).nullable(),
            }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const caller = request.caller;
        if (!caller) throw new Error('whoami without a caller');
        return {
          kind: caller.kind,
          org: caller.token?.orgSlug ?? null,
          scopes: [...caller.scopes].sort(),
          token: caller.token ? { id: caller.token.id, name: caller.token.name } : null,
        };
      },
    );

    app.post(
      '/api/:org/tokens',
      {
        config: orgAdmin,
        schema: {
          tags,
          operationId: 'createToken',
          summary: 'Create an API token; the secret is in this answer only',
          description:
            'A new token with the given scopes. Its `secret` is in this answer only; the server keeps a digest of it. A name that an active token of the org has answers 409.',
          params: orgParams,
          body: tokenCreateSchema,
          response: {
            201: z.object({
              result: z.literal('created'),
              token: tokenSchema,
              secret: z.string().describe('the bearer value; shown once, stored only as a hash'),
            }),
            409: problemResponse('An active token has this name'),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        const { name, scopes, expiresInDays } = request.body;
        const secret = newTokenSecret();
        const { rows } = await options.pool
          .query<TokenRow>(
            `INSERT INTO api_tokens (id, org_id, name, token_hash, scopes, expires_at)
             VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::int IS NULL THEN NULL ELSE now() + make_interval(days => $6::int) END)
             RETURNING ${COLUMNS}`,
            [
              newTokenId(),
              org.id,
              name,
              hashToken(secret),
              [...new Set(scopes)].sort(),
              expiresInDays ?? null,
            ],
          )
          .catch((error: { code?: string }) => {
            if (error.code === '23505') {
              throw new ProblemError(
                409,
                'token_name_taken',
                `an active token named "${name}" exists; revoke it or pick another name`,
                [{ path: '/body/name', message: 'already used by an active token' }],
              );
            }
            throw error;
          });
        return (
          reply
            .code(201)
            // Every answer is no-store (app.ts); this one above all, whatever changes there.
            .header('cache-control', 'no-store')
            .send({ result: 'created' as const, token: toToken(rows[0] as TokenRow), secret })
        );
      },
    );

    app.get(
      '/api/:org/tokens',
      {
        config: orgAdmin,
        schema: {
          tags,
          operationId: 'listTokens',
          summary: "List the org's API tokens (never their secrets)",
          description:
            "The org's tokens with their names, scopes, expiry, and when they were last used or revoked. Secrets are never shown again.",
          params: orgParams,
          response: { 200: z.object({ tokens: z.array(tokenSchema) }), ...problemResponses },
        },
      },
      async (request) => {
        const { rows } = await options.pool.query<TokenRow>(
          `SELECT ${COLUMNS} FROM api_tokens WHERE org_id = $1 ORDER BY created_at, id`,
          [orgOf(request).id],
        );
        return { tokens: rows.map(toToken) };
      },
    );

    app.delete(
      '/api/:org/tokens/:tokenId',
      {
        config: orgAdmin,
        schema: {
          tags,
          operationId: 'revokeToken',
          summary: 'Revoke an API token; it stops working at once',
          description:
            'Every replica stops accepting the token when this answers. Revoking a revoked token answers `unchanged`.',
          params: orgParams.extend({ tokenId: z.string().max(100) }),
          response: {
            200: z.object({ result: z.enum(['updated', 'unchanged']), token: tokenSchema }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { rows } = await options.pool.query<TokenRow & { changed: boolean }>(
          `WITH rev AS (
             UPDATE api_tokens SET revoked_at = now()
              WHERE org_id = $1 AND id = $2 AND revoked_at IS NULL
              -- Every replica forgets its cached copy when this commits.
              RETURNING ${COLUMNS}, pg_notify('${TOKEN_CHANNEL}', id)
           )
           SELECT ${COLUMNS}, true AS changed FROM rev
           UNION ALL
           SELECT ${COLUMNS}, false FROM api_tokens WHERE org_id = $1 AND id = $2 AND NOT EXISTS (SELECT 1 FROM rev)`,
          [org.id, request.params.tokenId],
        );
        const row = rows[0];
        if (!row)
          throw new ProblemError(404, 'not_found', `token "${request.params.tokenId}" does not exist`);
        tokens.forget(row.id);
        return { result: row.changed ? ('updated' as const) : ('unchanged' as const), token: toToken(row) };
      },
    );
  };
}
