/**
 * Where a connection's credentials live and how they are written, read and forgotten: sealed on
 * the connection, or, for an auth method whose `scope` is `organization`, on the org's one grant
 * for that connector, which every connection of that connector in the org uses. Every flow that
 * obtains credentials (env_keys values, an OAuth token, an interactive `AuthResult`) ends here, so
 * that each one moves the connection back to `active` and fixes its granted hosts the same way.
 */
import type { AuthScope, ConnectorDefinition } from '@svc/connector-sdk';
import type { PoolClient } from 'pg';
import { seal, unseal } from '../secrets/cipher.js';
import { grantCredentialHosts } from './grants.js';

/** The auth methods whose credentials svc keeps (browser sessions are kept apart). */
export type CredentialMethod = 'env_keys' | 'oauth' | 'interactive';

/** Binds sealed credentials to their connection: copied into another row, they do not open. */
export const credentialsContext = (orgId: string, connectionId: string) =>
  `connection:${orgId}:${connectionId}`;

/** Binds an org-wide grant to its org and connector: copied elsewhere, it does not open. */
export const orgCredentialsContext = (orgId: string, connectorKey: string) =>
  `org_credentials:${orgId}:${connectorKey}`;

/** How long before its expiry a token is renewed, at most: a run that starts then may use it that long. */
export const RENEWAL_MARGIN_MS = 5 * 60_000;

/**
 * When an OAuth token is due for renewal: RENEWAL_MARGIN_MS before `expiresAt`, or half its
 * lifetime before it for a token that lives less than twice that (else a 1-minute token would be
 * renewed at every use). Null: it does not expire, or this is not a token.
 */
export function tokenRenewAt(credentials: Record<string, unknown>): Date | null {
  const expires = typeof credentials.expiresAt === 'string' ? Date.parse(credentials.expiresAt) : Number.NaN;
  if (!Number.isFinite(expires)) return null;
  const obtained =
    typeof credentials.obtainedAt === 'string' ? Date.parse(credentials.obtainedAt) : Number.NaN;
  const lifetime = Number.isFinite(obtained) ? expires - obtained : Number.POSITIVE_INFINITY;
  return new Date(expires - Math.min(RENEWAL_MARGIN_MS, Math.max(0, lifetime / 2)));
}

/** Where the credentials of `method` live for this connector: `connection` unless it says otherwise. */
export function credentialScope(definition: ConnectorDefinition, method: CredentialMethod): AuthScope {
  const found = definition.authSchema?.methods.find((m) => m.type === method);
  return found && 'scope' in found && found.scope === 'organization' ? 'organization' : 'connection';
}

/** Whether any of the connector's methods keeps its credentials for the whole org. */
const usesOrgGrant = (definition: ConnectorDefinition) =>
  (['env_keys', 'oauth', 'interactive'] as const).some(
    (method) => credentialScope(definition, method) === 'organization',
  );

/**
 * The method whose credentials a stored value is: `oauth` for a token of a connector that has an
 * oauth method, else its interactive method's, else its env_keys'.
 */
export function methodOf(
  definition: ConnectorDefinition,
  credentials: Record<string, unknown>,
): CredentialMethod {
  const has = (type: string) => definition.authSchema?.methods.some((m) => m.type === type) ?? false;
  if (typeof credentials.accessToken === 'string' && has('oauth')) return 'oauth';
  return has('interactive') ? 'interactive' : 'env_keys';
}

/**
 * Serialises every change to the credentials of one connector in one org (its connections' own
 * and the org's grant), in the caller's transaction, before any row lock: the writers (a PATCH, a
 * revoke, a renewal, the OAuth callback, an auth run) lock rows in different orders, and without
 * one lock taken first, two of them deadlock, and the loser may be a renewal whose rotated refresh
 * token is then lost. `wait: false` answers false instead of waiting (the renewal chore skips a
 * grant someone else is renewing).
 */
export async function lockCredentials(
  client: Pick<PoolClient, 'query'>,
  orgId: string,
  connectorKey: string,
  wait = true,
): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>(
    wait
      ? `SELECT pg_advisory_xact_lock(hashtextextended('svc.credentials:' || $1 || ':' || $2, 0)) IS NULL AS locked`
      : `SELECT pg_try_advisory_xact_lock(hashtextextended('svc.credentials:' || $1 || ':' || $2, 0)) AS locked`,
    [orgId, connectorKey],
  );
  return wait || rows[0]?.locked === true;
}

export interface StoredCredentials {
  orgId: string;
  connectionId: string;
  definition: ConnectorDefinition;
  method: CredentialMethod;
  credentials: Record<string, unknown>;
  accountId?: string | null;
  displayName?: string | null;
  /** The OAuth scopes granted; undefined leaves what was recorded. */
  grantedScopes?: string[] | null;
  /**
   * The same grant renewed (an OAuth refresh): the hosts it was granted for stay as they were.
   * Only credentials someone sets again are granted for the config of that moment; else a `write`
   * token that points a feed elsewhere would have the next refresh grant the token there.
   */
  renewal?: boolean;
}

/**
 * Replaces the credentials of `method` where they live, in the caller's transaction, and makes the
 * connection (every connection of the connector, for an org-wide grant) `active` with no error,
 * its hosts granted for the config of this moment. Answers the ids of the connections it moved.
 */
export async function storeCredentials(
  client: PoolClient,
  key: Buffer,
  input: StoredCredentials,
): Promise<string[]> {
  const { orgId, connectionId, definition } = input;
  await lockCredentials(client, orgId, definition.key);
  const text = JSON.stringify(input.credentials);
  const keys = Object.keys(input.credentials).sort();
  // Only svc renews OAuth tokens: any other `expiresAt` is the connector's business.
  const expiry = input.method === 'oauth' ? tokenRenewAt(input.credentials) : null;
  let connections: string[] = [connectionId];
  if (credentialScope(definition, input.method) === 'organization') {
    await client.query(
      `INSERT INTO org_credentials (org_id, connector_key, credentials, credential_keys, granted_scopes, account_id, token_renew_at)
       VALUES ($1, $2, $3, $4, $5, $6, $8)
       ON CONFLICT (org_id, connector_key) DO UPDATE
          SET credentials = EXCLUDED.credentials, credential_keys = EXCLUDED.credential_keys,
              token_renew_at = EXCLUDED.token_renew_at,
              granted_scopes = CASE WHEN $7 THEN EXCLUDED.granted_scopes ELSE org_credentials.granted_scopes END,
              account_id = coalesce(EXCLUDED.account_id, org_credentials.account_id), updated_at = now()`,
      [
        orgId,
        definition.key,
        seal(key, text, orgCredentialsContext(orgId, definition.key)),
        keys,
        input.grantedScopes ?? null,
        input.accountId ?? null,
        input.grantedScopes !== undefined,
        expiry,
      ],
    );
    const { rows } = await client.query<{ id: string }>(
      'SELECT id FROM connections WHERE org_id = $1 AND connector_key = $2 ORDER BY id FOR UPDATE',
      [orgId, definition.key],
    );
    connections = rows.map((row) => row.id);
    await client.query(
      `UPDATE connections SET status = CASE WHEN status = 'paused' THEN status ELSE 'active' END,
              error_message = NULL, credential_keys = $2,
              granted_scopes = CASE WHEN $3 THEN $4 ELSE granted_scopes END,
              account_id = coalesce($5, account_id), updated_at = now()
        WHERE id = ANY ($1)`,
      [
        connections,
        keys,
        input.grantedScopes !== undefined,
        input.grantedScopes ?? null,
        input.accountId ?? null,
      ],
    );
  } else {
    await client.query(
      `UPDATE connections SET credentials = $2, credential_keys = $3, error_message = NULL,
              status = CASE WHEN status = 'paused' THEN status ELSE 'active' END,
              granted_scopes = CASE WHEN $4 THEN $5 ELSE granted_scopes END,
              account_id = coalesce($6, account_id), token_renew_at = $7, updated_at = now()
        WHERE id = $1`,
      [
        connectionId,
        seal(key, text, credentialsContext(orgId, connectionId)),
        keys,
        input.grantedScopes !== undefined,
        input.grantedScopes ?? null,
        input.accountId ?? null,
        expiry,
      ],
    );
  }
  if (input.displayName) {
    await client.query(
      'UPDATE connections SET display_name = coalesce(display_name, $2) WHERE id = ANY ($1)',
      [connections, input.displayName],
    );
  }
  if (input.renewal) return connections;
  const hosts = await grantCredentialHosts(client, connectionId, definition);
  if (connections.length > 1 || credentialScope(definition, input.method) === 'organization') {
    // An org-wide grant goes where it was given for, from the connection the person connected:
    // another connection's config (which a `write` token may have written) grants it nothing new.
    await client.query(
      'UPDATE org_credentials SET granted_hosts = $3 WHERE org_id = $1 AND connector_key = $2',
      [orgId, definition.key, hosts],
    );
    await client.query('UPDATE connections SET granted_hosts = $2 WHERE id = ANY ($1)', [connections, hosts]);
  }
  return connections;
}

/**
 * The credentials a connection's runs get: the org-wide grant's (when one of its methods is
 * scoped to the organization) under the connection's own. Null when it holds none.
 */
export async function readCredentials(
  client: Pick<PoolClient, 'query'>,
  key: Buffer,
  input: { orgId: string; connectionId: string; definition: ConnectorDefinition },
): Promise<Record<string, unknown> | null> {
  const { rows } = await client.query<{ own: Buffer | null; shared: Buffer | null }>(
    `SELECT c.credentials AS own,
            (SELECT g.credentials FROM org_credentials g WHERE g.org_id = c.org_id AND g.connector_key = c.connector_key AND $3) AS shared
       FROM connections c WHERE c.org_id = $1 AND c.id = $2`,
    [input.orgId, input.connectionId, usesOrgGrant(input.definition)],
  );
  return openCredentials(key, input, rows[0]?.own ?? null, rows[0]?.shared ?? null);
}

/** Both sealed values opened and merged (the connection's own over the org's), or null. */
export function openCredentials(
  key: Buffer,
  input: { orgId: string; connectionId: string; definition: ConnectorDefinition },
  own: Buffer | null,
  shared: Buffer | null,
): Record<string, unknown> | null {
  if (!own && !shared) return null;
  return {
    ...(shared
      ? (JSON.parse(unseal(key, shared, orgCredentialsContext(input.orgId, input.definition.key))) as object)
      : {}),
    ...(own
      ? (JSON.parse(unseal(key, own, credentialsContext(input.orgId, input.connectionId))) as object)
      : {}),
  };
}

/**
 * Forgets a connection's credentials and browser session and sets `status` with `message` saying
 * what to do; when `method` is kept for the whole org (or, without `method`, when any is), the
 * org's grant goes too, which moves every connection of the connector. Answers the connections moved.
 */
export async function forgetCredentials(
  client: PoolClient,
  input: { orgId: string; connectionId: string; definition: ConnectorDefinition },
  status: 'revoked' | 'error',
  message: string,
  method?: CredentialMethod,
): Promise<string[]> {
  await lockCredentials(client, input.orgId, input.definition.key);
  let connections = [input.connectionId];
  const orgWide = method
    ? credentialScope(input.definition, method) === 'organization'
    : usesOrgGrant(input.definition);
  if (orgWide) {
    const { rowCount } = await client.query(
      'DELETE FROM org_credentials WHERE org_id = $1 AND connector_key = $2',
      [input.orgId, input.definition.key],
    );
    if (rowCount) {
      const { rows } = await client.query<{ id: string }>(
        'SELECT id FROM connections WHERE org_id = $1 AND connector_key = $2 ORDER BY id',
        [input.orgId, input.definition.key],
      );
      connections = rows.map((row) => row.id);
    }
  }
  await client.query(
    `UPDATE connections SET credentials = CASE WHEN id = $4 OR NOT $5 THEN NULL ELSE credentials END,
            credential_keys = '{}', granted_scopes = NULL,
            session_state = NULL, session_captured_at = NULL, session_cookie_counts = NULL, token_renew_at = NULL,
            status = $2, error_message = $3, updated_at = now()
      WHERE id = ANY ($1)`,
    [connections, status, message, input.connectionId, method !== undefined],
  );
  return connections;
}
