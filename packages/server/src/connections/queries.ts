import type { ConnectorDefinition } from '@svc/connector-sdk';
import type { Pool, PoolClient } from 'pg';
import { transaction } from '../db/transaction.js';
import { lockCredentials, storeCredentials } from './credentials.js';
import { grantCredentialHosts } from './grants.js';
import { pendingAuth, renderDisplayName, runConfig, schemaDetails } from './model.js';
import { fitFeedsToScopes } from './scopes.js';

export interface ConnectionRow {
  id: string;
  org_slug: string;
  connector_key: string;
  display_name: string | null;
  status: 'active' | 'paused' | 'error' | 'revoked';
  account_id: string | null;
  entity_ids: string[] | null;
  config: Record<string, unknown>;
  error_message: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  /** The env_keys fields that hold a value (never the values). */
  credential_keys: string[];
  granted_scopes: string[] | null;
}

export interface FeedRow {
  id: string;
  org_slug: string;
  connection_id: string;
  feed_key: string;
  display_name: string | null;
  status: 'active' | 'paused' | 'error';
  entity_ids: string[] | null;
  config: Record<string, unknown>;
  checkpoint: Record<string, unknown> | null;
  sync_interval_ms: string;
  next_sync_at: Date | null;
  last_sync_at: Date | null;
  last_sync_status: string | null;
  last_error: string | null;
  consecutive_failures: number;
  items_collected: string;
  created_at: Date;
  updated_at: Date;
}

export { credentialsContext } from './credentials.js';

const CONNECTION_COLUMNS = `c.id, o.slug AS org_slug, c.connector_key, c.display_name, c.status, c.account_id,
  c.entity_ids, c.config, c.error_message, c.created_by, c.created_at, c.updated_at, c.credential_keys, c.granted_scopes`;
const FEED_COLUMNS = `f.id, o.slug AS org_slug, f.connection_id, f.feed_key, f.display_name, f.status, f.entity_ids,
  f.config, f.checkpoint, f.sync_interval_ms, f.next_sync_at, f.last_sync_at, f.last_sync_status, f.last_error,
  f.consecutive_failures, f.items_collected, f.created_at, f.updated_at`;

/**
 * A connection and its feeds, in one transaction: each feed the definition does not leave to its
 * users, with an empty config. A feed whose config schema needs more than that is created paused,
 * saying what to set; the others are due at once.
 */
export async function createConnection(
  pool: Pool,
  key: Buffer,
  input: {
    orgId: string;
    definition: ConnectorDefinition;
    displayName: string | null;
    config: Record<string, unknown>;
    credentials: Record<string, string> | undefined;
    createdBy: string | null;
  },
): Promise<ConnectionRow> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO connections (org_id, connector_key, display_name, config, created_by, credential_keys)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [
        input.orgId,
        input.definition.key,
        input.displayName,
        JSON.stringify(input.config),
        input.createdBy,
        Object.keys(input.credentials ?? {}).sort(),
      ],
    );
    const id = (rows[0] as { id: string }).id;
    for (const feed of Object.values(input.definition.feeds ?? {}).filter((f) => !f.userManaged)) {
      await insertFeed(client, input.orgId, id, feed.key, {}, feed, input.config);
    }
    await connectCredentials(client, key, { ...input, connectionId: id });
    return (await connectionById(client, input.orgId, id)) as ConnectionRow;
  });
}

/**
 * A new connection's credentials: those given (env_keys values, or an OAuth token obtained
 * elsewhere), else the org's one grant when the connector keeps one, else none; without any, a
 * connector that a person must connect leaves it in `error` saying how (`pendingAuth`).
 */
async function connectCredentials(
  client: PoolClient,
  key: Buffer,
  input: {
    orgId: string;
    connectionId: string;
    definition: ConnectorDefinition;
    credentials: Record<string, string> | undefined;
  },
): Promise<void> {
  const { orgId, connectionId, definition } = input;
  if (input.credentials && Object.keys(input.credentials).length > 0) {
    const token = input.credentials.accessToken !== undefined;
    const granted = token ? input.credentials.scope?.split(/[\s,]+/).filter(Boolean) : undefined;
    await storeCredentials(client, key, {
      orgId,
      connectionId,
      definition,
      method: token ? 'oauth' : 'env_keys',
      credentials: input.credentials,
      ...(granted ? { grantedScopes: granted } : {}),
    });
    if (granted) await fitFeedsToScopes(client, [connectionId], definition, granted);
    return;
  }
  // Read under the grant's lock: a revoke at the same moment either comes first or waits.
  await lockCredentials(client, orgId, definition.key);
  const { rows } = await client.query<{
    credential_keys: string[];
    granted_scopes: string[] | null;
    account_id: string | null;
    granted_hosts: string[] | null;
  }>(
    `SELECT credential_keys, granted_scopes, account_id, granted_hosts FROM org_credentials
      WHERE org_id = $1 AND connector_key = $2`,
    [orgId, definition.key],
  );
  const grant = rows[0];
  if (grant) {
    // The grant goes where the person gave it for, not where this new connection's config says.
    await client.query(
      `UPDATE connections SET credential_keys = $2, granted_scopes = $3, account_id = $4, granted_hosts = $5
        WHERE id = $1`,
      [connectionId, grant.credential_keys, grant.granted_scopes, grant.account_id, grant.granted_hosts],
    );
    if (grant.granted_hosts === null) await grantCredentialHosts(client, connectionId, definition);
    if (grant.granted_scopes)
      await fitFeedsToScopes(client, [connectionId], definition, grant.granted_scopes);
    return;
  }
  const pending = pendingAuth(definition, connectionId, false);
  if (pending) {
    await client.query(`UPDATE connections SET status = 'error', error_message = $2 WHERE id = $1`, [
      connectionId,
      pending,
    ]);
  }
}

export async function insertFeed(
  client: PoolClient,
  orgId: string,
  connectionId: string,
  feedKey: string,
  config: Record<string, unknown>,
  feed: { configSchema?: Record<string, unknown>; displayNameTemplate?: string },
  connectionConfig: Record<string, unknown>,
): Promise<void> {
  const runsWith = runConfig(connectionConfig, config);
  const problems = schemaDetails(feed.configSchema, runsWith, '/config');
  await client.query(
    `INSERT INTO feeds (org_id, connection_id, feed_key, display_name, config, status, last_error, next_sync_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $6 = 'active' THEN now() END)`,
    [
      orgId,
      connectionId,
      feedKey,
      renderDisplayName(feed.displayNameTemplate, runsWith),
      JSON.stringify(config),
      problems.length > 0 ? 'paused' : 'active',
      problems.length > 0 ? needsConfig(problems) : null,
    ],
  );
}

/** What a paused feed's `lastError` says until its config is set. */
export const needsConfig = (problems: { path: string; message: string }[]) =>
  `needs config before it can sync: ${problems.map((p) => `${p.path.replace(/^\/config\/?/, '') || 'config'} ${p.message}`).join('; ')} (PATCH the feed's config)`;

export async function connectionById(
  client: Pick<PoolClient, 'query'>,
  orgId: string,
  id: string,
): Promise<ConnectionRow | null> {
  if (!/^\d{1,18}$/.test(id)) return null;
  const { rows } = await client.query<ConnectionRow>(
    `SELECT ${CONNECTION_COLUMNS} FROM connections c JOIN orgs o ON o.id = c.org_id WHERE c.org_id = $1 AND c.id = $2`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

export async function listConnections(pool: Pool, orgId: string): Promise<ConnectionRow[]> {
  const { rows } = await pool.query<ConnectionRow>(
    `SELECT ${CONNECTION_COLUMNS} FROM connections c JOIN orgs o ON o.id = c.org_id WHERE c.org_id = $1 ORDER BY c.id`,
    [orgId],
  );
  return rows;
}

export async function feedsOf(pool: Pool, orgId: string, connectionId: string): Promise<FeedRow[]> {
  const { rows } = await pool.query<FeedRow>(
    `SELECT ${FEED_COLUMNS} FROM feeds f JOIN orgs o ON o.id = f.org_id
      WHERE f.org_id = $1 AND f.connection_id = $2 ORDER BY f.id`,
    [orgId, connectionId],
  );
  return rows;
}

export async function feedById(
  client: Pick<PoolClient, 'query'>,
  orgId: string,
  id: string,
): Promise<FeedRow | null> {
  if (!/^\d{1,18}$/.test(id)) return null;
  const { rows } = await client.query<FeedRow>(
    `SELECT ${FEED_COLUMNS} FROM feeds f JOIN orgs o ON o.id = f.org_id WHERE f.org_id = $1 AND f.id = $2`,
    [orgId, id],
  );
  return rows[0] ?? null;
}
