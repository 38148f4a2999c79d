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
  const text = JSON.stringify(input.credentials);
  const keys = Object.keys(input.credentials).sort();
  let connections: string[] = [connectionId];
  if (credentialScope(definition, input.method) === 'organization') {
    await client.query(
      `INSERT INTO org_credentials (org_id, connector_key, credentials, credential_keys, granted_scopes, account_id)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (org_id, connector_key) DO UPDATE
          SET credentials = EXCLUDED.credentials, credential_keys = EXCLUDED.credential_keys,
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
              account_id = coalesce($6, account_id), updated_at = now()
        WHERE id = $1`,
      [
        connectionId,
        seal(key, text, credentialsContext(orgId, connectionId)),
        keys,
        input.grantedScopes !== undefined,
        input.grantedScopes ?? null,
        input.accountId ?? null,
      ],
    );
  }
  if (input.displayName) {
    await client.query(
      'UPDATE connections SET display_name = coalesce(display_name, $2) WHERE id = ANY ($1)',
      [connections, input.displayName],
    );
  }
  if (!input.renewal) for (const id of connections) await grantCredentialHosts(client, id, definition);
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
 * Forgets a connection's credentials and browser session (and the org-wide grant it uses, which moves every connection
 * of the connector) and sets `status` with `message` saying what to do. Answers the connections moved.
 */
export async function forgetCredentials(
  client: PoolClient,
  input: { orgId: string; connectionId: string; definition: ConnectorDefinition },
  status: 'revoked' | 'error',
  message: string,
): Promise<string[]> {
  let connections = [input.connectionId];
  if (usesOrgGrant(input.definition)) {
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
    `UPDATE connections SET credentials = NULL, credential_keys = '{}', granted_scopes = NULL,
            session_state = NULL, session_captured_at = NULL, session_cookie_counts = NULL,
            status = $2, error_message = $3, updated_at = now()
      WHERE id = ANY ($1)`,
    [connections, status, message],
  );
  return connections;
}
