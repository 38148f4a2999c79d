import type { ConnectorDefinition } from '@svc/connector-sdk';
import { recordIdSchema } from '@svc/core';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { refreshOnConnect } from '../connections/codeless-refresh.js';
import { storeCredentials } from '../connections/credentials.js';
import { connectionById } from '../connections/queries.js';
import { fitFeedsToScopes } from '../connections/scopes.js';
import { getInstall } from '../connectors/queries.js';
import { transaction } from '../db/transaction.js';
import type { DeploymentEgress } from '../egress/deployment.js';
import { iso, orgParams, problemResponse, problemResponses, recordIdParam } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { seal, unseal } from '../secrets/cipher.js';
import type { SecretResolver } from '../secrets/resolve.js';
import { clientFor } from './client.js';
import { oauthFetch } from './egress.js';
import {
  askableScopes,
  authorizationUrl,
  exchangeCode,
  grantedScopesOf,
  nonce,
  oauthMethodOf,
  scopesToRequest,
  sha256,
  userinfo,
} from './flow.js';
import { CALLBACK_PAGE_HEADERS, type CallbackPage, renderCallbackPage } from './page.js';

const tags = ['connections'];

/** How long a `state` is good for: the person has this long to consent. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;

/** The public route the provider sends the person back to, under `{base}`. */
export const OAUTH_CALLBACK_PATH = '/api/v1/oauth/callback';

export interface OAuthRouteOptions {
  pool: Pool;
  encryptionKey: Buffer;
  secrets: SecretResolver;
  egress: DeploymentEgress;
  basePath: string;
  /** SVC_PUBLIC_URL: makes the callback URL absolute whatever address a request came in on. */
  publicUrl?: string;
}

const verifierContext = (attemptId: string) => `oauth_attempt:${attemptId}`;

const attemptSchema = z.object({
  id: recordIdSchema,
  connectionId: recordIdSchema,
  status: z
    .enum(['pending', 'connected', 'denied', 'failed', 'expired'])
    .describe('`pending` until the provider sends the person back; `expired` when nobody came back in time'),
  message: z.string().nullable().describe('what happened, and what to do next when it did not work'),
  scopes: z.array(z.string()).describe('the scopes asked for'),
  expiresAt: z.string(),
  createdAt: z.string(),
});

interface AttemptRow {
  id: string;
  connection_id: string;
  outcome: 'pending' | 'connected' | 'denied' | 'failed';
  outcome_message: string | null;
  scopes: string[];
  expires_at: Date;
  created_at: Date;
}

const toAttempt = (row: AttemptRow) => ({
  id: Number(row.id),
  connectionId: Number(row.connection_id),
  status:
    row.outcome === 'pending' && new Date(row.expires_at).getTime() <= Date.now()
      ? ('expired' as const)
      : row.outcome,
  message:
    row.outcome === 'pending' && new Date(row.expires_at).getTime() <= Date.now()
      ? 'nobody came back from the provider within 10 minutes: start again'
      : row.outcome_message,
  scopes: row.scopes,
  expiresAt: iso(row.expires_at),
  createdAt: iso(row.created_at),
});

export function oauthRoutes(options: OAuthRouteOptions) {
  const fetch = oauthFetch(options.egress.policy);
  const callbackUrl = (request: FastifyRequest) =>
    `${options.publicUrl ?? `${request.protocol}://${request.host}`}${options.basePath}${OAUTH_CALLBACK_PATH}`;

  return async (app: App) => {
    app.addHook('onClose', () => fetch.close());

    app.post(
      '/api/:org/connections/:connectionId/oauth/start',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'startOAuth',
          summary: 'Start connecting an OAuth connection: the provider URL to send the person to',
          description:
            "Answers the provider's authorization URL. The person opens it and consents; the provider sends them back to the public " +
            `\`{base}${OAUTH_CALLBACK_PATH}\`, which exchanges the code, makes the connection \`active\` and shows a page saying so. ` +
            '`state` is a random single-use nonce bound to this org, this connection and the PKCE verifier, valid 10 minutes. ' +
            "Scopes asked: the method's `requiredScopes`, every feed's `requiredScopes`, and `scopes` (any of the `optionalScopes`). " +
            'Follow the outcome with `GET .../oauth/attempts/{attemptId}`. The OAuth client id and secret are the org secrets named ' +
            'by `clientIdKey`/`clientSecretKey` (default `<PROVIDER>_CLIENT_ID`/`<PROVIDER>_CLIENT_SECRET`): a missing one is 422 ' +
            '`oauth_client_missing`, before anyone is sent anywhere.',
          params: orgParams.extend({ connectionId: recordIdParam }),
          body: z
            .strictObject({
              scopes: z
                .array(z.string().min(1).max(200))
                .max(100)
                .optional()
                .describe('optional scopes to ask for as well'),
            })
            .optional(),
          response: {
            201: z.object({
              authorizationUrl: z.string(),
              expiresAt: z.string(),
              attemptId: recordIdSchema,
              redirectUri: z.string().describe('the callback URL to register with the provider'),
              scopes: z.array(z.string()),
            }),
            422: problemResponse(
              'The connector has no oauth method, a scope is not one it asks, or the OAuth client is not set up',
            ),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        const { connectionId } = request.params;
        const connection = await connectionById(options.pool, org.id, connectionId);
        if (!connection) throw notFound(`connection ${connectionId}`);
        const install = await getInstall(options.pool, org.id, connection.connector_key);
        const method = install ? oauthMethodOf(install.definition) : null;
        if (!install || !method) {
          throw new ProblemError(
            422,
            'validation_failed',
            `connector "${connection.connector_key}" does not connect with OAuth`,
          );
        }
        if (!method.authorizationUrl || !method.tokenUrl) {
          throw new ProblemError(
            422,
            'validation_failed',
            `connector "${install.definition.key}" names no ${method.authorizationUrl ? 'tokenUrl' : 'authorizationUrl'} in its oauth method: its author must add it`,
          );
        }
        const extra = request.body?.scopes ?? [];
        const askable = askableScopes(install.definition, method);
        const unknown = extra.filter((scope) => !askable.has(scope));
        if (unknown.length > 0) {
          throw new ProblemError(
            422,
            'validation_failed',
            `the connector does not ask for ${unknown.join(', ')}`,
            unknown.map((scope) => ({
              path: '/body/scopes',
              message: `"${scope}" is not one of its scopes (${[...askable].join(', ') || 'none'})`,
            })),
          );
        }
        const client = await clientFor(options.secrets, org, method);
        const scopes = scopesToRequest(install.definition, method, extra);
        const state = nonce();
        const verifier = method.usePkce ? nonce() : null;
        const redirectUri = callbackUrl(request);
        const expiresAt = new Date(Date.now() + OAUTH_STATE_TTL_MS);
        const id = await transaction(options.pool, async (db) => {
          const { rows } = await db.query<{ id: string }>(
            `INSERT INTO oauth_attempts (state_hash, org_id, connection_id, redirect_uri, scopes, expires_at, created_by)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
            [
              sha256(state),
              org.id,
              connectionId,
              redirectUri,
              scopes,
              expiresAt,
              request.caller?.token?.name ?? 'admin',
            ],
          );
          const attemptId = (rows[0] as { id: string }).id;
          if (verifier) {
            await db.query('UPDATE oauth_attempts SET code_verifier = $2 WHERE id = $1', [
              attemptId,
              seal(options.encryptionKey, verifier, verifierContext(attemptId)),
            ]);
          }
          return attemptId;
        });
        return reply.code(201).send({
          authorizationUrl: authorizationUrl(method, {
            clientId: client.clientId,
            redirectUri,
            scopes,
            state,
            verifier,
          }),
          expiresAt: expiresAt.toISOString(),
          attemptId: Number(id),
          redirectUri,
          scopes,
        });
      },
    );

    app.get(
      '/api/:org/connections/:connectionId/oauth/attempts/:attemptId',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'getOAuthAttempt',
          summary: 'How an OAuth connection attempt went',
          description:
            'Whether the OAuth attempt is `pending`, `connected`, `denied`, `failed` or `expired`, and what to do next: what a client polls after it opened the authorization URL.',
          params: orgParams.extend({ connectionId: recordIdParam, attemptId: recordIdParam }),
          response: { 200: z.object({ attempt: attemptSchema }), ...problemResponses },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { connectionId, attemptId } = request.params;
        if (!/^\d{1,18}$/.test(connectionId) || !/^\d{1,18}$/.test(attemptId))
          throw notFound(`attempt ${attemptId}`);
        const { rows } = await options.pool.query<AttemptRow>(
          `SELECT id, connection_id, outcome, outcome_message, scopes, expires_at, created_at
             FROM oauth_attempts WHERE org_id = $1 AND connection_id = $2 AND id = $3`,
          [org.id, connectionId, attemptId],
        );
        const row = rows[0];
        if (!row) throw notFound(`attempt ${attemptId} of connection ${connectionId}`);
        return { attempt: toAttempt(row) };
      },
    );

    app.get(
      OAUTH_CALLBACK_PATH,
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'oauthCallback',
          summary: 'Where the OAuth provider sends the person back (an HTML page saying what happened)',
          description:
            "Public: the provider redirects the person's browser here with `code` and `state` (or `error`). The `state` " +
            'must be one this server issued, unused and under 10 minutes old; it is used up by this call whatever happens. ' +
            'Query: `state`, and `code` or `error` (with `error_description`), as RFC 6749 section 4.1.2 says; whatever ' +
            'arrives, the answer is a page for the person.',
          response: {
            200: {
              description:
                'A page for the person: connected, or refused (a used, expired or unknown `state`, consent declined, a failed exchange) and what to do next',
              content: { 'text/html': { schema: z.string() } },
            },
          },
        },
      },
      async (request, reply) => {
        // Read as the provider sends it, unvalidated: a page answers whatever arrives.
        const query = request.query as Record<string, unknown>;
        const text = (name: string, max: number) =>
          typeof query[name] === 'string' ? (query[name] as string).slice(0, max) : undefined;
        // A person's landing page: whatever happened is said on it (and on the attempt), with 200.
        const page = await callback(request.log, {
          state: text('state', 512),
          code: text('code', 4096),
          error: text('error', 200),
          error_description: text('error_description', 1000),
        }).catch((error: unknown): CallbackPage => {
          request.log.error({ err: error }, 'an OAuth callback failed');
          return {
            ok: false,
            title: 'Not connected',
            lines: ['svc could not finish connecting: try again from the start.'],
          };
        });
        return reply
          .code(200)
          .headers(CALLBACK_PAGE_HEADERS)
          .serializer(String)
          .send(renderCallbackPage(page));
      },
    );
  };

  async function callback(
    log: FastifyBaseLogger,
    query: {
      state?: string | undefined;
      code?: string | undefined;
      error?: string | undefined;
      error_description?: string | undefined;
    },
  ): Promise<CallbackPage> {
    const refused = (title: string, ...lines: string[]): CallbackPage => ({
      ok: false,
      title,
      lines,
    });
    if (!query.state) {
      return refused(
        'Not a connection attempt',
        'This address takes the answer of an OAuth provider, and this request has no `state`.',
      );
    }
    // Used up by the statement that reads it: a second arrival of the same state finds it used.
    const { rows } = await options.pool.query<{
      id: string;
      org_id: string;
      org_slug: string;
      connection_id: string;
      code_verifier: Buffer | null;
      redirect_uri: string;
      scopes: string[];
      expired: boolean;
      first_use: boolean;
    }>(
      `WITH used AS (
         UPDATE oauth_attempts SET used_at = now() WHERE state_hash = $1 AND used_at IS NULL
         RETURNING id, org_id, connection_id, code_verifier, redirect_uri, scopes, expires_at <= now() AS expired
       )
       SELECT u.*, o.slug AS org_slug, true AS first_use FROM used u JOIN orgs o ON o.id = u.org_id
       UNION ALL
       SELECT a.id, a.org_id, a.connection_id, NULL, a.redirect_uri, a.scopes, a.expires_at <= now(), o.slug, false
         FROM oauth_attempts a JOIN orgs o ON o.id = a.org_id
        WHERE a.state_hash = $1 AND NOT EXISTS (SELECT 1 FROM used)`,
      [sha256(query.state)],
    );
    const attempt = rows[0];
    if (!attempt) {
      return refused(
        'Not a connection attempt of this server',
        'The link you followed carries a `state` this server never issued (or one so old it was deleted).',
        'Start again from svc: `svc connection connect <id>`.',
      );
    }
    const again = `Start again: \`svc connection connect ${attempt.connection_id}\`.`;
    if (!attempt.first_use) {
      return refused('This link was already used', 'Each connection link works once.', again);
    }
    const settle = async (outcome: 'connected' | 'denied' | 'failed', message: string) => {
      await options.pool.query('UPDATE oauth_attempts SET outcome = $2, outcome_message = $3 WHERE id = $1', [
        attempt.id,
        outcome,
        message,
      ]);
    };
    if (attempt.expired) {
      await settle('failed', 'the link expired: it is valid 10 minutes; start again');
      return refused('This link expired', 'A connection link is valid for 10 minutes.', again);
    }
    if (query.error) {
      const why =
        query.error === 'access_denied' ? 'consent was declined' : `the provider answered ${query.error}`;
      await settle('denied', `${why}${query.error_description ? `: ${query.error_description}` : ''}`);
      return refused('Not connected', `The provider did not grant access (${why}).`, again);
    }
    if (!query.code) {
      await settle('failed', 'the provider sent no code');
      return refused('Not connected', 'The provider sent back no authorization code.', again);
    }
    const connection = await connectionById(options.pool, attempt.org_id, attempt.connection_id);
    const install = connection
      ? await getInstall(options.pool, attempt.org_id, connection.connector_key)
      : null;
    const method = install ? oauthMethodOf(install.definition) : null;
    if (!connection || !install || !method) {
      await settle('failed', 'the connection or its connector is gone');
      return refused('Not connected', 'The connection this link was for no longer exists.');
    }
    const org = { id: attempt.org_id, slug: attempt.org_slug };
    let outcome: { accountId: string | null; displayName: string | null; granted: string[] };
    try {
      const client = await clientFor(options.secrets, org, method);
      const verifier = attempt.code_verifier
        ? unseal(options.encryptionKey, attempt.code_verifier, verifierContext(attempt.id))
        : null;
      const token = await exchangeCode(fetch.fetch, method, client, {
        code: query.code,
        redirectUri: attempt.redirect_uri,
        verifier,
      });
      const who = method.userinfoUrl
        ? await userinfo(fetch.fetch, method.userinfoUrl, token).catch(() => ({
            accountId: null,
            displayName: null,
          }))
        : { accountId: null, displayName: null };
      const granted = grantedScopesOf(token, attempt.scopes);
      await transaction(options.pool, async (db) => {
        const moved = await storeCredentials(db, options.encryptionKey, {
          orgId: org.id,
          connectionId: connection.id,
          definition: install.definition,
          method: 'oauth',
          credentials: { ...token },
          accountId: who.accountId,
          displayName: who.displayName,
          grantedScopes: granted,
        });
        await fitFeedsToScopes(db, moved, install.definition, granted);
        // Revoked while the provider answered (revoke settles the attempt): nothing is kept.
        const { rows: still } = await db.query<{ outcome: string }>(
          'SELECT outcome FROM oauth_attempts WHERE id = $1 FOR UPDATE',
          [attempt.id],
        );
        if (still[0]?.outcome !== 'pending') throw new RevokedMeanwhile();
        await db.query(`SELECT pg_notify('svc_runs', '')`);
      });
      outcome = { ...who, granted };
    } catch (error) {
      if (error instanceof RevokedMeanwhile) {
        return refused('Not connected', 'The connection was revoked while you were at the provider.', again);
      }
      const text = error instanceof Error ? error.message : String(error);
      await settle('failed', `the code could not be exchanged for a token: ${text}`);
      return refused('Not connected', `The provider's token endpoint did not give a token (${text}).`, again);
    }
    const missing = missingFeedScopes(install.definition, outcome.granted);
    const message = `connected${outcome.displayName ? ` as ${outcome.displayName}` : ''}${
      missing.length > 0 ? `; not granted: ${missing.join(', ')} (the feeds that need them are paused)` : ''
    }`;
    await settle('connected', message);
    // Settled first: an MCP server without code lists its tools to the token (best effort:
    // logged, never failing), before the page that says it is connected.
    await refreshOnConnect(options, log, org.id, connection.connector_key, connection.id);
    return {
      ok: true,
      title: `Connected to ${install.definition.name}`,
      lines: [
        `svc holds the grant${outcome.displayName ? ` of ${outcome.displayName}` : ''} for connection ${connection.id}${
          connection.display_name ? ` (${connection.display_name})` : ''
        }; its feeds sync from now on.`,
        ...(missing.length > 0
          ? [
              `Not granted: ${missing.join(', ')}. The feeds that need them are paused until you connect again and grant them.`,
            ]
          : []),
        'You can close this window.',
      ],
    };
  }
}

class RevokedMeanwhile extends Error {}

function missingFeedScopes(definition: ConnectorDefinition, granted: string[]): string[] {
  const held = new Set(granted);
  const wanted = Object.values(definition.feeds ?? {}).flatMap((feed) => feed.requiredScopes ?? []);
  return [...new Set(wanted.filter((scope) => !held.has(scope)))];
}
