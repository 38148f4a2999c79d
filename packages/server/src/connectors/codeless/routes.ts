import type { ConnectorDefinition, EntityLinkOverrides } from '@svc/connector-sdk';
import { recordIdSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../../auth/authenticate.js';
import { readCredentials } from '../../connections/credentials.js';
import { grantCredentialHosts } from '../../connections/grants.js';
import { transaction } from '../../db/transaction.js';
import type { DeploymentEgress } from '../../egress/deployment.js';
import { orgParams, problemResponse, problemResponses } from '../../http/common.js';
import { notFound, ProblemError } from '../../http/problem.js';
import type { App } from '../../http/types.js';
import { getInstall, type InstallRow, upsertInstall } from '../queries.js';
import { authored, checkCodelessDefinition, readUpstream } from './install.js';

export interface CodelessOptions {
  pool: Pool;
  egress: DeploymentEgress;
  encryptionKey: Buffer;
}

/** `POST /api/:org/connectors {definition}`: checked, its upstream read, installed or upgraded. */
export async function installCodeless(
  options: CodelessOptions,
  orgId: string,
  input: unknown,
  extra: {
    approvalOverrides?: Record<string, boolean> | undefined;
    entityLinkOverrides?: EntityLinkOverrides | undefined;
  },
) {
  const checked = checkCodelessDefinition(input);
  const current = await getInstall(options.pool, orgId, checked.key);
  const { definition, generated } = await readUpstream(checked, {
    egress: options.egress.policy,
    // An upgrade keeps the org's overrides unless the request gives new ones.
    approvalOverrides: extra.approvalOverrides ?? current?.approval_overrides ?? {},
    previous: current,
  });
  return upsertInstall(
    options.pool,
    orgId,
    definition,
    { generated, approvalOverrides: extra.approvalOverrides },
    extra.entityLinkOverrides,
  );
}

/**
 * Reads a code-less connector's upstream again, with a connection's credentials: the one named,
 * else the org's first active connection of the connector that holds some, else none. An action
 * the upstream no longer offers stops being a tool. Answers the keys added and removed.
 */
export async function refreshCodeless(
  options: CodelessOptions,
  orgId: string,
  key: string,
  connectionId?: string,
): Promise<{ result: 'updated' | 'unchanged'; row: InstallRow; added: string[]; removed: string[] }> {
  const row = await getInstall(options.pool, orgId, key);
  if (!row) throw notFound(`connector "${key}"`);
  if (!row.generated) {
    throw new ProblemError(
      422,
      'validation_failed',
      `connector "${key}" has code: its actions come from it`,
      [
        {
          path: '/params/key',
          message: 'refresh reads the upstream of a connector without code (mcpConfig, openapiConfig)',
        },
      ],
    );
  }
  const connection = await credentialedConnection(options.pool, orgId, key, connectionId);
  const stored = connection
    ? await readCredentials(options.pool, options.encryptionKey, {
        orgId,
        connectionId: connection.id,
        definition: row.definition,
      })
    : null;
  if (connection && stored && row.definition.mcpConfig) {
    await refuseUngranted(options.pool, connection, row.definition);
  }
  const read = await readUpstream(authored(row.definition), {
    egress: options.egress.policy,
    credentials: flatStored(stored),
    approvalOverrides: row.approval_overrides,
    previous: row,
  });
  const { definition, generated } = read;
  const written = await upsertInstall(
    options.pool,
    orgId,
    definition,
    { generated, approvalOverrides: undefined },
    undefined,
    row.updated_at,
  );
  const before = Object.keys(row.definition.actions ?? {});
  const after = Object.keys(definition.actions ?? {});
  return {
    result: written.result === 'unchanged' ? 'unchanged' : 'updated',
    row: written.row,
    added: after.filter((name) => !before.includes(name)),
    removed: before.filter((name) => !after.includes(name)),
  };
}

async function credentialedConnection(
  pool: Pool,
  orgId: string,
  key: string,
  connectionId: string | undefined,
): Promise<{ id: string; granted_hosts: string[] | null } | null> {
  const { rows } = await pool.query<{ id: string; granted_hosts: string[] | null }>(
    `SELECT c.id, c.granted_hosts FROM connections c
      WHERE c.org_id = $1 AND c.connector_key = $2 AND ($3::bigint IS NULL OR c.id = $3)
        AND ($3::bigint IS NOT NULL OR (c.status = 'active' AND c.credentials IS NOT NULL))
      ORDER BY c.id LIMIT 1`,
    [orgId, key, connectionId ?? null],
  );
  if (connectionId !== undefined && !rows[0])
    throw notFound(`connection ${connectionId} of connector "${key}"`);
  return rows[0] ?? null;
}

/**
 * A connection's credentials go where they were granted for when set (connections/grants.ts): an
 * MCP server the admin moved since is not one of those, so a refresh does not send them there.
 */
async function refuseUngranted(
  pool: Pool,
  connection: { id: string; granted_hosts: string[] | null },
  definition: ConnectorDefinition,
): Promise<void> {
  const granted =
    connection.granted_hosts ??
    ((await transaction(pool, (client) =>
      grantCredentialHosts(client, connection.id, definition),
    )) as string[]);
  const host = new URL(definition.mcpConfig?.upstreamUrl as string).hostname.replace(/^\[|\]$/g, '');
  if (!granted.includes(host)) {
    throw new ProblemError(
      422,
      'validation_failed',
      `the credentials of connection ${connection.id} were not given for ${host}`,
      [
        {
          path: '/body/connectionId',
          message: `they may go to ${granted.join(', ') || 'no host'}; set the connection's credentials again to let them go to ${host}`,
        },
      ],
    );
  }
}

/**
 * Stored credentials as the child sends them: an OAuth grant as its `access_token` (its scope and
 * expiry are not credentials), else every field as it is (env_keys).
 */
function flatStored(stored: Record<string, unknown> | null): Record<string, string> {
  if (typeof stored?.accessToken === 'string') return { access_token: stored.accessToken };
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(stored ?? {})) if (typeof value === 'string') flat[name] = value;
  return flat;
}

export function codelessRoutes(
  options: CodelessOptions,
  toInstall: (row: InstallRow) => unknown,
  installSchema: z.ZodType,
) {
  return async (app: App) => {
    app.post(
      '/api/:org/connectors/:key/refresh',
      {
        config: { auth: { scope: 'admin', org: true } },
        schema: {
          tags: ['connectors'],
          operationId: 'refreshConnector',
          summary: "Read a connector without code's actions from its upstream again",
          description:
            "Lists the MCP server's tools, or fetches the OpenAPI description, again, with a connection's " +
            'credentials (the one named, else the first active one that has some): new actions become tools, ' +
            "and one the upstream no longer offers stops being one. The org's `requiresApproval` overrides stay.",
          params: orgParams.extend({ key: z.string().max(200) }),
          body: z.strictObject({ connectionId: recordIdSchema.optional() }).optional(),
          response: {
            200: z.object({
              result: z.enum(['updated', 'unchanged']),
              connector: installSchema,
              added: z.array(z.string()).describe('action keys the upstream offers now and did not before'),
              removed: z.array(z.string()).describe('action keys it no longer offers: no longer tools'),
            }),
            409: problemResponse('The connector changed while its upstream was read: nothing was written'),
            422: problemResponse('The connector has code, or its upstream could not be read'),
            429: problemResponse('This server is reading too many upstreams; try again'),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const connectionId = request.body?.connectionId;
        const refreshed = await refreshCodeless(
          options,
          org.id,
          request.params.key,
          connectionId === undefined ? undefined : String(connectionId),
        );
        return {
          result: refreshed.result,
          connector: toInstall(refreshed.row),
          added: refreshed.added,
          removed: refreshed.removed,
        };
      },
    );
  };
}
