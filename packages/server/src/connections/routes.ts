import { countSchema, recordIdSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { getInstall } from '../connectors/queries.js';
import { transaction } from '../db/transaction.js';
import {
  iso,
  isoOrNull,
  orgParams,
  problemResponse,
  problemResponses,
  recordIdParam,
} from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { type RefreshOnConnectOptions, refreshOnConnect } from './codeless-refresh.js';
import { forgetCredentials, storeCredentials } from './credentials.js';
import { deleteConnectionRoute } from './delete-route.js';
import { credentialProblems, pendingAuth, renderDisplayName, runConfig, schemaDetails } from './model.js';
import {
  type ConnectionRow,
  connectionById,
  createConnection,
  type FeedRow,
  feedById,
  feedsOf,
  listConnections,
} from './queries.js';
import { fitFeedsToScopes } from './scopes.js';

const tags = ['connections'];
const object = z.record(z.string(), z.unknown());

/** The spec's `Connection`, field for field; `credentials` are never returned, only which are set. */
export const connectionSchema = z.object({
  id: recordIdSchema,
  organizationId: z.string().describe("the org's slug"),
  connectorKey: z.string(),
  displayName: z.string().nullable(),
  status: z.enum(['active', 'paused', 'error', 'revoked']),
  accountId: z.string().nullable(),
  credentialKeys: z
    .array(z.string())
    .describe('the fields of its credentials that hold a value (never the values)'),
  grantedScopes: z
    .array(z.string())
    .nullable()
    .describe('the OAuth scopes the provider granted; null when it holds no OAuth grant'),
  entityIds: z.array(recordIdSchema).nullable(),
  config: object,
  errorMessage: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** The spec's `Feed`, field for field, and its rendered `displayName`. */
const feedSchema = z.object({
  id: recordIdSchema,
  organizationId: z.string(),
  connectionId: recordIdSchema,
  feedKey: z.string(),
  displayName: z
    .string()
    .nullable()
    .describe("the feed definition's displayNameTemplate, filled from config"),
  status: z.enum(['active', 'paused', 'error']),
  entityIds: z.array(recordIdSchema).nullable(),
  config: object,
  checkpoint: object.nullable(),
  syncIntervalMs: countSchema,
  nextSyncAt: z.string().nullable(),
  lastSyncAt: z.string().nullable(),
  lastSyncStatus: z.string().nullable(),
  lastError: z.string().nullable(),
  consecutiveFailures: countSchema,
  itemsCollected: countSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const toConnection = (row: ConnectionRow) => ({
  id: Number(row.id),
  organizationId: row.org_slug,
  connectorKey: row.connector_key,
  displayName: row.display_name,
  status: row.status,
  accountId: row.account_id,
  credentialKeys: row.credential_keys,
  grantedScopes: row.granted_scopes,
  entityIds: row.entity_ids?.map(Number) ?? null,
  config: row.config,
  errorMessage: row.error_message,
  createdBy: row.created_by,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const toFeed = (row: FeedRow) => ({
  id: Number(row.id),
  organizationId: row.org_slug,
  connectionId: Number(row.connection_id),
  feedKey: row.feed_key,
  displayName: row.display_name,
  status: row.status,
  entityIds: row.entity_ids?.map(Number) ?? null,
  config: row.config,
  checkpoint: row.checkpoint,
  syncIntervalMs: Number(row.sync_interval_ms),
  nextSyncAt: isoOrNull(row.next_sync_at),
  lastSyncAt: isoOrNull(row.last_sync_at),
  lastSyncStatus: row.last_sync_status,
  lastError: row.last_error,
  consecutiveFailures: row.consecutive_failures,
  itemsCollected: Number(row.items_collected),
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const invalid = (detail: string, errors: { path: string; message: string }[]) =>
  new ProblemError(422, 'validation_failed', detail, errors);

/** What the routes of this file need from the server that mounts them. */
export interface ConnectionRouteOptions extends RefreshOnConnectOptions {
  pool: Pool;
  /** Opens what the server keeps and must read back: SVC_ENCRYPTION_KEY. */
  encryptionKey: Buffer;
}

export function connectionRoutes(options: ConnectionRouteOptions) {
  return async (app: App) => {
    app.post(
      '/api/:org/connections',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'createConnection',
          summary: 'Connect an installed connector; its feeds are created with it',
          description:
            "`credentials` holds the values of the connector's env_keys fields: encrypted at rest, merged into " +
            "the connector's config under their keys when it runs, never returned. For an `oauth` connector it " +
            'holds a token obtained outside svc (`accessToken`, optionally `refreshToken`, `expiresAt`, `scope`), ' +
            'handed to the connector as `ctx.credentials`; a sync that rotates it (`auth_update`) replaces it. A feed whose config ' +
            'schema needs values is created paused, saying which; PATCH its config to start it.',
          params: orgParams,
          body: z.strictObject({
            connectorKey: z.string().min(1).max(200),
            displayName: z.string().min(1).max(200).optional(),
            config: object.optional().describe("checked against the connector's optionsSchema"),
            credentials: z.record(z.string().min(1).max(200), z.string().min(1).max(65_536)).optional(),
          }),
          response: {
            201: z.object({ connection: connectionSchema, feeds: z.array(feedSchema) }),
            422: problemResponse(
              'The connector is not installed, or the config or credentials are not what it takes',
            ),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        const body = request.body;
        const install = await getInstall(options.pool, org.id, body.connectorKey);
        if (!install) {
          throw invalid(`connector "${body.connectorKey}" is not installed in this org`, [
            { path: '/body/connectorKey', message: 'install it first: POST /api/:org/connectors' },
          ]);
        }
        const problems = [
          ...schemaDetails(install.definition.optionsSchema, body.config ?? {}, '/body/config'),
          ...credentialProblems(install.definition, body.credentials),
        ];
        if (problems.length > 0) throw invalid(`the connection cannot be made as asked`, problems);
        const row = await createConnection(options.pool, options.encryptionKey, {
          orgId: org.id,
          definition: install.definition,
          displayName: body.displayName ?? null,
          config: body.config ?? {},
          credentials: body.credentials,
          createdBy: request.caller?.token?.name ?? 'admin',
        });
        // An MCP server without code lists its tools to the connection's credentials.
        if (body.credentials) {
          await refreshOnConnect(options, request.log, org.id, body.connectorKey, String(row.id));
        }
        const feeds = await feedsOf(options.pool, org.id, row.id);
        return reply.code(201).send({ connection: toConnection(row), feeds: feeds.map(toFeed) });
      },
    );

    app.get(
      '/api/:org/connections',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listConnections',
          summary: "The org's connections",
          description: "The org's connections with their status and their connector.",
          params: orgParams,
          response: { 200: z.object({ connections: z.array(connectionSchema) }), ...problemResponses },
        },
      },
      async (request) => ({
        connections: (await listConnections(options.pool, orgOf(request).id)).map(toConnection),
      }),
    );

    app.get(
      '/api/:org/connections/:connectionId',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'getConnection',
          summary: 'One connection',
          description: 'The connection, its status and its connector. Its credentials are never answered.',
          params: orgParams.extend({ connectionId: recordIdParam }),
          response: { 200: z.object({ connection: connectionSchema }), ...problemResponses },
        },
      },
      async (request) => {
        const row = await connectionById(options.pool, orgOf(request).id, request.params.connectionId);
        if (!row) throw notFound(`connection ${request.params.connectionId}`);
        return { connection: toConnection(row) };
      },
    );

    app.patch(
      '/api/:org/connections/:connectionId',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'updateConnection',
          summary: 'Pause or resume a connection, rename it, or give it new credentials',
          description:
            '`paused`: none of its feeds syncs and none of its actions runs until it is `active` again. ' +
            '`credentials` replaces all of its credentials (checked as on create); a connection in `error` or ' +
            '`revoked` is made `active` again only by new credentials.',
          params: orgParams.extend({ connectionId: recordIdParam }),
          body: z.strictObject({
            displayName: z.string().min(1).max(200).optional(),
            status: z.enum(['active', 'paused']).optional(),
            credentials: z.record(z.string().min(1).max(200), z.string().min(1).max(65_536)).optional(),
          }),
          response: {
            200: z.object({ result: z.enum(['updated', 'unchanged']), connection: connectionSchema }),
            409: problemResponse('The connection is in error or revoked: it needs new credentials'),
            422: problemResponse('The credentials are not what the connector takes'),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { connectionId } = request.params;
        const updated = await transaction(options.pool, async (client) => {
          if (!/^\d{1,18}$/.test(connectionId)) throw notFound(`connection ${connectionId}`);
          await client.query('SELECT 1 FROM connections WHERE id = $1 FOR UPDATE', [connectionId]);
          const current = await connectionById(client, org.id, connectionId);
          if (!current) throw notFound(`connection ${connectionId}`);
          const renewed = request.body.credentials;
          if (renewed) {
            const install = await getInstall(options.pool, org.id, current.connector_key);
            const problems = install ? credentialProblems(install.definition, renewed) : [];
            if (problems.length > 0)
              throw invalid('the credentials are not what the connector takes', problems);
            if (install) {
              // New credentials are granted for the hosts the config names now (grants.ts).
              const token = renewed.accessToken !== undefined;
              const granted = token ? renewed.scope?.split(/[\s,]+/).filter(Boolean) : undefined;
              const moved = await storeCredentials(client, options.encryptionKey, {
                orgId: org.id,
                connectionId,
                definition: install.definition,
                method: token ? 'oauth' : 'env_keys',
                credentials: renewed,
                ...(granted ? { grantedScopes: granted } : {}),
              });
              if (granted) await fitFeedsToScopes(client, moved, install.definition, granted);
            }
            current.status =
              current.status === 'error' || current.status === 'revoked' ? 'active' : current.status;
          }
          const status = request.body.status ?? current.status;
          if (status !== current.status && (current.status === 'error' || current.status === 'revoked')) {
            throw new ProblemError(
              409,
              'conflict',
              `connection ${connectionId} is ${current.status}${current.error_message ? ` (${current.error_message})` : ''}: connect it again with new credentials`,
            );
          }
          const { rowCount } = await client.query(
            `UPDATE connections SET status = $2, display_name = $3, updated_at = now()
              WHERE id = $1 AND (status, display_name) IS DISTINCT FROM ($2, $3)`,
            [connectionId, status, request.body.displayName ?? current.display_name],
          );
          const after = (await connectionById(client, org.id, connectionId)) as ConnectionRow;
          return {
            result: rowCount === 1 || renewed ? ('updated' as const) : ('unchanged' as const),
            connection: toConnection(after),
          };
        });
        // Committed: an MCP server without code lists its tools to the new credentials.
        if (request.body.credentials) {
          await refreshOnConnect(options, request.log, org.id, updated.connection.connectorKey, connectionId);
        }
        return updated;
      },
    );

    app.post(
      '/api/:org/connections/:connectionId/revoke',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'revokeConnection',
          summary: "Forget a connection's credentials; it is `revoked` until connected again",
          description:
            'The connection forgets its credentials (tokens, env_keys values, a browser session) and becomes `revoked`: ' +
            'none of its feeds syncs and none of its actions runs. An org-wide grant (an auth method with `scope: organization`) ' +
            'is forgotten for every connection of the connector. Connecting again (OAuth, a browser session, the interactive ' +
            'flow, or new credentials through PATCH) makes it `active` again.',
          params: orgParams.extend({ connectionId: recordIdParam }),
          body: z
            .strictObject({ reason: z.string().min(1).max(500).optional() })
            .nullish()
            .describe('why, kept in its errorMessage; the body may be left out'),
          response: { 200: z.object({ connection: connectionSchema }), ...problemResponses },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { connectionId } = request.params;
        const reason = request.body?.reason;
        return transaction(options.pool, async (client) => {
          if (!/^\d{1,18}$/.test(connectionId)) throw notFound(`connection ${connectionId}`);
          await client.query('SELECT 1 FROM connections WHERE org_id = $1 AND id = $2 FOR UPDATE', [
            org.id,
            connectionId,
          ]);
          const current = await connectionById(client, org.id, connectionId);
          if (!current) throw notFound(`connection ${connectionId}`);
          const install = await getInstall(options.pool, org.id, current.connector_key);
          const who = request.caller?.token?.name ?? 'the admin';
          const moved = await forgetCredentials(
            client,
            {
              orgId: org.id,
              connectionId,
              definition: install?.definition ?? { key: current.connector_key, name: '', version: '0.0.0' },
            },
            'revoked',
            `revoked by ${who}${reason ? ` (${reason})` : ''}: ${pendingAuth(install?.definition ?? { key: '', name: '', version: '0.0.0' }, connectionId, false)?.replace(/^not connected yet: /, '') ?? 'give it credentials again (PATCH credentials)'}`,
          );
          // The OAuth links handed out before (or being answered now) connect nothing any more:
          // whoever holds one would bind their own account to the revoked connection.
          await client.query(
            `UPDATE oauth_attempts SET used_at = coalesce(used_at, now()), outcome = 'failed',
                    outcome_message = 'the connection was revoked before the provider sent the person back: start again'
              WHERE org_id = $1 AND connection_id = ANY ($2) AND outcome = 'pending'`,
            [org.id, moved],
          );
          return {
            connection: toConnection((await connectionById(client, org.id, connectionId)) as ConnectionRow),
          };
        });
      },
    );

    app.get(
      '/api/:org/connections/:connectionId/feeds',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags: ['feeds'],
          operationId: 'listFeeds',
          summary: "A connection's feeds",
          description: "The connection's feeds with their config, schedule, last sync and failures.",
          params: orgParams.extend({ connectionId: recordIdParam }),
          response: { 200: z.object({ feeds: z.array(feedSchema) }), ...problemResponses },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { connectionId } = request.params;
        if (!(await connectionById(options.pool, org.id, connectionId)))
          throw notFound(`connection ${connectionId}`);
        return { feeds: (await feedsOf(options.pool, org.id, connectionId)).map(toFeed) };
      },
    );

    app.patch(
      '/api/:org/feeds/:feedId',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags: ['feeds'],
          operationId: 'updateFeed',
          summary: "Change a feed's config, schedule or status",
          description:
            "`config` replaces the feed's config and is checked against the feed's configSchema; a feed " +
            'paused for want of config starts once it is valid. `status`: `paused` stops its syncs, ' +
            '`active` resumes them (and clears an `error` after its failures).',
          params: orgParams.extend({ feedId: recordIdParam }),
          body: z.strictObject({
            config: object.optional(),
            syncIntervalMs: z
              .int()
              .min(60_000)
              .max(30 * 86_400_000)
              .optional(),
            status: z.enum(['active', 'paused']).optional(),
          }),
          response: {
            200: z.object({ result: z.enum(['updated', 'unchanged']), feed: feedSchema }),
            422: problemResponse("The config is not what the feed's configSchema asks"),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { feedId: id } = request.params;
        const body = request.body;
        return transaction(options.pool, async (client) => {
          if (!/^\d{1,18}$/.test(id)) throw notFound(`feed ${id}`);
          // Locked before it is read: a status a run moved meanwhile is not written back over.
          await client.query('SELECT 1 FROM feeds WHERE id = $1 FOR UPDATE', [id]);
          const feed = await feedById(client, org.id, id);
          if (!feed) throw notFound(`feed ${id}`);
          const { rows } = await client.query<{
            definition: { feeds?: Record<string, never> };
            config: Record<string, unknown>;
          }>(
            `SELECT d.definition, c.config FROM connections c
               JOIN connector_definitions d ON d.org_id = c.org_id AND d.connector_key = c.connector_key
              WHERE c.id = $1`,
            [feed.connection_id],
          );
          const definition = rows[0]?.definition.feeds?.[feed.feed_key] as
            | { configSchema?: Record<string, unknown>; displayNameTemplate?: string }
            | undefined;
          const config = body.config ?? feed.config;
          const runsWith = runConfig(rows[0]?.config ?? {}, config);
          // Paused for want of config (and not asked otherwise): a valid config starts it.
          const waiting = feed.status === 'paused' && feed.last_error?.startsWith('needs config') === true;
          const status = body.status ?? (waiting && body.config ? 'active' : feed.status);
          // A feed only runs with a config its schema takes, whichever field the PATCH changed.
          const problems =
            body.config || status === 'active'
              ? schemaDetails(definition?.configSchema, runsWith, '/body/config')
              : [];
          if (problems.length > 0)
            throw invalid(`the config is not what feed "${feed.feed_key}" takes`, problems);
          const updated = await client.query(
            `UPDATE feeds SET config = $2, display_name = $3, sync_interval_ms = $4, status = $5,
                    last_error = CASE WHEN $5 = 'active' AND status <> 'active' THEN NULL ELSE last_error END,
                    consecutive_failures = CASE WHEN $5 = 'active' AND status = 'error' THEN 0 ELSE consecutive_failures END,
                    next_sync_at = CASE WHEN $5 = 'active' THEN coalesce(next_sync_at, now()) END,
                    updated_at = now()
              WHERE id = $1 AND (config, sync_interval_ms, status) IS DISTINCT FROM ($2::jsonb, $4::bigint, $5::text)`,
            [
              id,
              JSON.stringify(config),
              renderDisplayName(definition?.displayNameTemplate, runsWith),
              body.syncIntervalMs ?? Number(feed.sync_interval_ms),
              status,
            ],
          );
          const after = (await feedById(client, org.id, id)) as FeedRow;
          return {
            result: updated.rowCount === 1 ? ('updated' as const) : ('unchanged' as const),
            feed: toFeed(after),
          };
        });
      },
    );

    deleteConnectionRoute(app, options);
  };
}
