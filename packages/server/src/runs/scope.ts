import type {
  ConnectorDefinition,
  EntityLinkOverrides,
  EntityLinkRule,
  SyncCredentials,
} from '@svc/connector-sdk';
import type { Pool, PoolClient } from 'pg';
import {
  credentialScope,
  credentialsContext,
  lockCredentials,
  methodOf,
  openCredentials,
  orgCredentialsContext,
  tokenRenewAt,
} from '../connections/credentials.js';
import { openSession } from '../connections/session-store.js';
import { codelessModule } from '../connectors/codeless/install.js';
import type { Generated } from '../connectors/codeless/types.js';
import { installedSourceFile } from '../connectors/compile.js';
import type { ConnectorModule } from '../connectors/protocol.js';
import { BUNDLED_CONNECTORS } from '../connectors/sandbox.js';
import { seal, unseal } from '../secrets/cipher.js';
import type { ClaimedRun } from './queue.js';

/** Everything a run needs from the database, read once when it starts. */
export interface RunScope {
  orgId: string;
  orgSlug: string;
  connectionId: string;
  connectorKey: string;
  definition: ConnectorDefinition;
  overrides: EntityLinkOverrides;
  feedId: string | null;
  feedKey: string | null;
  checkpoint: Record<string, unknown> | null;
  entityIds: number[];
  actionKey: string | null;
  actionInput: Record<string, unknown>;
  /** The connection's options, the feed's config, then the env_keys values, merged in that order. */
  config: Record<string, unknown>;
  /** For `oauth`: the token the connection holds. */
  credentials: SyncCredentials | null;
  /** The credential values, to keep out of the run's log. */
  secrets: string[];
  /**
   * The hosts the credentials were granted for (connections/grants.ts); null when the connection
   * holds none (its runs may reach any host the egress policy allows) or when never computed.
   */
  grantedHosts: string[] | null;
  hasCredentials: boolean;
  /** For `browser`: the captured session (`{cookies}`), handed to syncs as `ctx.sessionState`. */
  sessionState: Record<string, unknown> | null;
  package: string | null;
  source: string | null;
  /** A connector without code: what svc read from its upstream (connectors/codeless/). */
  generated: Generated | null;
}

export async function loadRunScope(pool: Pool, run: ClaimedRun, key: Buffer): Promise<RunScope | null> {
  const { rows } = await pool.query<{
    org_id: string;
    org_slug: string;
    connection_id: string;
    connector_key: string;
    definition: ConnectorDefinition;
    entity_link_overrides: EntityLinkOverrides;
    package: string | null;
    source: string | null;
    generated: Generated | null;
    connection_config: Record<string, unknown>;
    credentials: Buffer | null;
    shared_credentials: Buffer | null;
    feed_id: string | null;
    feed_key: string | null;
    feed_config: Record<string, unknown> | null;
    checkpoint: Record<string, unknown> | null;
    entity_ids: string[] | null;
    action_key: string | null;
    action_input: Record<string, unknown> | null;
    granted_hosts: string[] | null;
    session_state: Buffer | null;
  }>(
    `SELECT c.org_id, o.slug AS org_slug, c.id AS connection_id, c.connector_key, d.definition, d.entity_link_overrides, d.package,
            d.source, d.generated, c.config AS connection_config, c.credentials, f.id AS feed_id, f.feed_key,
            f.config AS feed_config, f.checkpoint, coalesce(f.entity_ids, c.entity_ids) AS entity_ids,
            r.action_key, r.action_input, c.granted_hosts, g.credentials AS shared_credentials, c.session_state
       FROM runs r
       JOIN connections c ON c.id = r.connection_id
       JOIN orgs o ON o.id = c.org_id
       LEFT JOIN org_credentials g ON g.org_id = c.org_id AND g.connector_key = c.connector_key
       JOIN connector_definitions d ON d.org_id = c.org_id AND d.connector_key = c.connector_key
       LEFT JOIN feeds f ON f.id = r.feed_id
      WHERE r.id = $1`,
    [run.id],
  );
  const row = rows[0];
  if (!row) return null;
  const stored =
    openCredentials(
      key,
      { orgId: String(row.org_id), connectionId: String(row.connection_id), definition: row.definition },
      row.credentials,
      row.shared_credentials,
    ) ?? {};
  const oauth = row.definition.authSchema?.methods.find((m) => m.type === 'oauth');
  // Interactive credentials (an AuthResult's) are merged into the config like env_keys values,
  // unless they hold an `accessToken`: then they are `ctx.credentials`, the provider the connector.
  const interactive = row.definition.authSchema?.methods.some((m) => m.type === 'interactive');
  const token =
    typeof stored.accessToken === 'string' && (oauth?.type === 'oauth' || interactive) ? stored : null;
  return {
    orgId: String(row.org_id),
    orgSlug: row.org_slug,
    connectionId: String(row.connection_id),
    connectorKey: row.connector_key,
    definition: row.definition,
    overrides: row.entity_link_overrides ?? {},
    feedId: row.feed_id,
    feedKey: row.feed_key,
    checkpoint: row.checkpoint,
    entityIds: (row.entity_ids ?? []).map(Number),
    actionKey: row.action_key,
    actionInput: row.action_input ?? {},
    config: { ...row.connection_config, ...(row.feed_config ?? {}), ...(token ? {} : stored) },
    credentials: token
      ? {
          provider: oauth?.type === 'oauth' ? oauth.provider : row.connector_key,
          accessToken: String(token.accessToken),
          refreshToken: typeof token.refreshToken === 'string' ? token.refreshToken : null,
          expiresAt: typeof token.expiresAt === 'string' ? token.expiresAt : null,
          scope: typeof token.scope === 'string' ? token.scope : null,
        }
      : null,
    // A token's scope, type and expiry are not secrets: kept out of every log line and action
    // output, "repo" or "Bearer" would be blotted out wherever they appear.
    secrets: Object.entries(stored)
      .filter(([name]) => !(token && TOKEN_METADATA.has(name)))
      .map(([, value]) => value)
      .filter((v): v is string => typeof v === 'string' && v.length >= 4),
    grantedHosts: row.granted_hosts,
    hasCredentials: Object.keys(stored).length > 0,
    sessionState: openSession(
      key,
      String(row.org_id),
      String(row.connection_id),
      row.session_state,
    ) as Record<string, unknown> | null,
    package: row.package,
    source: row.source,
    generated: row.generated,
  };
}

/** What an OAuth grant holds besides its tokens. */
const TOKEN_METADATA = new Set(['scope', 'expiresAt', 'tokenType', 'provider']);

/**
 * The module the child imports: a bundled package, the installed source as a file, or none (a
 * connector without code, built from what svc read from its upstream).
 */
export async function connectorModule(scope: RunScope): Promise<ConnectorModule> {
  if (scope.generated) return codelessModule(scope.definition, scope.generated);
  if (scope.package) {
    const name = BUNDLED_CONNECTORS[scope.package];
    if (!name) throw new Error(`the bundled connector "${scope.package}" is not part of this svc`);
    return { package: name };
  }
  return {
    file: await installedSourceFile(scope.source ?? ''),
    name: `${scope.connectorKey} (installed source)`,
  };
}

/** The entity link rules of each of the feed's event kinds that has some. */
export function linkRulesByKind(scope: RunScope): Map<string, EntityLinkRule[]> {
  const kinds = scope.definition.feeds?.[scope.feedKey ?? '']?.eventKinds ?? {};
  return new Map(
    Object.entries(kinds)
      .filter(([, kind]) => (kind.entityLinks?.length ?? 0) > 0)
      .map(([name, kind]) => [name, kind.entityLinks as EntityLinkRule[]]),
  );
}

/**
 * A sync's `auth_update` merged onto the connection's sealed credentials (the org's grant, when
 * they are kept for the whole org), in the caller's transaction: rotated tokens are what the next
 * run gets. Compare-and-set: an update is dropped (and the reason answered, for the run's log) when
 * the credentials changed since the run loaded them (a reconnect, svc's own renewal, another
 * account) or the connection was revoked meanwhile: a run's stale rotation never undoes those.
 */
export async function persistAuthUpdate(
  client: PoolClient,
  key: Buffer,
  scope: RunScope,
  update: Record<string, unknown>,
): Promise<string | null> {
  await lockCredentials(client, scope.orgId, scope.connectorKey);
  const { rows: status } = await client.query<{ status: string }>(
    'SELECT status FROM connections WHERE id = $1',
    [scope.connectionId],
  );
  if (status[0]?.status === 'revoked') {
    return 'the connection was revoked during the run: its auth_update was dropped';
  }
  const method = methodOf(scope.definition, { ...update, ...(scope.credentials ?? {}) });
  const orgWide = credentialScope(scope.definition, method) === 'organization';
  const { rows } = orgWide
    ? await client.query<{ sealed: Buffer | null }>(
        'SELECT credentials AS sealed FROM org_credentials WHERE org_id = $1 AND connector_key = $2',
        [scope.orgId, scope.connectorKey],
      )
    : await client.query<{ sealed: Buffer | null }>(
        'SELECT credentials AS sealed FROM connections WHERE id = $1',
        [scope.connectionId],
      );
  const context = orgWide
    ? orgCredentialsContext(scope.orgId, scope.connectorKey)
    : credentialsContext(scope.orgId, scope.connectionId);
  const current = rows[0]?.sealed ? JSON.parse(unseal(key, rows[0].sealed, context)) : {};
  if (scope.credentials && current.accessToken !== scope.credentials.accessToken) {
    return 'the connection got new credentials during the run (a reconnect or a renewal): its auth_update was dropped';
  }
  const merged = { ...current, ...update };
  const sealed = seal(key, JSON.stringify(merged), context);
  const keys = Object.keys(merged).sort();
  const renewAt = method === 'oauth' ? tokenRenewAt(merged) : null;
  if (orgWide) {
    await client.query(
      `INSERT INTO org_credentials (org_id, connector_key, credentials, credential_keys, token_renew_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (org_id, connector_key) DO UPDATE
          SET credentials = EXCLUDED.credentials, credential_keys = EXCLUDED.credential_keys,
              token_renew_at = EXCLUDED.token_renew_at, updated_at = now()`,
      [scope.orgId, scope.connectorKey, sealed, keys, renewAt],
    );
    return null;
  }
  await client.query(
    'UPDATE connections SET credentials = $2, credential_keys = $3, token_renew_at = $4, updated_at = now() WHERE id = $1',
    [scope.connectionId, sealed, keys, renewAt],
  );
  return null;
}
