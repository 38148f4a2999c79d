/**
 * A connection's OAuth token, refreshed when it must be: when it is due (`tokenRenewAt`: 5 minutes before it expires, or half its life for a short-lived one) and
 * once after the service refused it (401). Single-flight across every process: the refresh holds
 * the row of the credentials (the connection's, or the org's one grant) locked from the read to
 * the write, so a second process needing the same refresh waits, then finds the new token and
 * makes no call (NangoHQ/nango#1005: an in-process de-dupe lets two processes spend the same
 * refresh token, and the provider answers the second with `invalid_grant`).
 *
 * A refresh never falls back to the old token in silence: `invalid_grant` moves the connection
 * (every connection of an org-wide grant) to `revoked`, any other failure to `error`, each with a
 * message that says to reconnect and how.
 */
import type { ConnectorDefinition } from '@svc/connector-sdk';
import type { Pool } from 'pg';
import {
  credentialScope,
  forgetCredentials,
  lockCredentials,
  openCredentials,
  storeCredentials,
  tokenRenewAt,
} from '../connections/credentials.js';
import { fitFeedsToScopes } from '../connections/scopes.js';
import { transaction } from '../db/transaction.js';
import type { SecretResolver } from '../secrets/resolve.js';
import { clientFor } from './client.js';
import { grantedScopesOf, OAuthError, type OAuthToken, oauthMethodOf, refreshToken } from './flow.js';

export interface OAuthDeps {
  pool: Pool;
  encryptionKey: Buffer;
  secrets: SecretResolver;
  /** The egress client's fetch: token endpoints are URLs an org writes. */
  fetch: typeof globalThis.fetch;
}

export interface TokenOwner {
  orgId: string;
  orgSlug: string;
  connectionId: string;
  definition: ConnectorDefinition;
}

/** The refresh failed; the connection was moved (`revoked` or `error`) with `message`. */
export class RefreshFailedError extends Error {
  override name = 'RefreshFailedError';
  constructor(
    message: string,
    readonly status: 'revoked' | 'error',
  ) {
    super(message);
  }
}

/** What the connection's `errorMessage` says after a failed refresh. */
export const reconnectMessage = (connectionId: string, why: string) =>
  `${why}: reconnect it with \`svc connection connect ${connectionId}\` (or POST /api/:org/connections/${connectionId}/oauth/start)`;

/** After a renewal failed for a reason that may pass (a timeout, a 5xx), the next try, at the earliest. */
export const RENEWAL_RETRY_MS = 60_000;

/**
 * The token a run of the connection should use now: the held one until it is due for renewal
 * (`tokenRenewAt`), else a renewed one. `refused`: the access token the service just refused; it is
 * renewed unless another process already replaced it. `chore`: the renewal chore's call, which
 * skips a grant another process is renewing rather than wait. Null when the connection holds no
 * OAuth token (or the chore skipped it).
 *
 * A failure that may pass (the provider timed out or answered 5xx) changes no status while the
 * held token has not expired: the run goes on with it (`warn` says so, for its log), and the
 * renewal is tried again in RENEWAL_RETRY_MS. Once the token expired, or when the provider says
 * the grant is gone (`invalid_grant`), the connection is moved and RefreshFailedError thrown.
 */
export async function freshToken(
  deps: OAuthDeps,
  owner: TokenOwner,
  options: { refused?: string; now?: () => number; chore?: boolean; warn?: (text: string) => void } = {},
): Promise<OAuthToken | null> {
  const method = oauthMethodOf(owner.definition);
  if (!method) return null;
  const now = options.now ?? Date.now;
  const orgWide = credentialScope(owner.definition, 'oauth') === 'organization';
  const outcome = await transaction(
    deps.pool,
    async (client): Promise<{ token: OAuthToken | null } | { failure: Error }> => {
      if (!(await lockCredentials(client, owner.orgId, owner.definition.key, !options.chore)))
        return { token: null };
      const { rows } = orgWide
        ? await client.query<{ sealed: Buffer; status: string }>(
            `SELECT g.credentials AS sealed, c.status FROM org_credentials g, connections c
            WHERE g.org_id = $1 AND g.connector_key = $2 AND c.id = $3`,
            [owner.orgId, owner.definition.key, owner.connectionId],
          )
        : await client.query<{ sealed: Buffer | null; status: string }>(
            'SELECT credentials AS sealed, status FROM connections WHERE org_id = $1 AND id = $2',
            [owner.orgId, owner.connectionId],
          );
      const row = rows[0];
      // Revoked or errored meanwhile (the chore read its list before): nothing to renew.
      if (!row?.sealed || (options.chore && row.status !== 'active')) return { token: null };
      const held = openCredentials(
        deps.encryptionKey,
        owner,
        orgWide ? null : row.sealed,
        orgWide ? row.sealed : null,
      ) as Partial<OAuthToken> | null;
      if (!held || typeof held.accessToken !== 'string') return { token: null };
      const token = held as OAuthToken;
      const expiresAt = token.expiresAt ? Date.parse(token.expiresAt) : Number.NaN;
      const renewAt = tokenRenewAt(token as unknown as Record<string, unknown>);
      const due =
        options.refused !== undefined
          ? options.refused === token.accessToken
          : renewAt !== null && renewAt.getTime() <= now();
      if (!due) return { token };
      /** The next renewal of this grant, at the earliest. */
      const later = (at: Date | null) =>
        orgWide
          ? client.query(
              'UPDATE org_credentials SET token_renew_at = $3 WHERE org_id = $1 AND connector_key = $2',
              [owner.orgId, owner.definition.key, at],
            )
          : client.query('UPDATE connections SET token_renew_at = $2 WHERE id = $1', [
              owner.connectionId,
              at,
            ]);
      if (!token.refreshToken) {
        // Nothing to renew it with: a token that may still work is used until it expires (a refused
        // one fails its run, which says its credentials were refused); an expired one is gone.
        if (options.refused !== undefined) return { token };
        if (expiresAt > now()) {
          await later(new Date(expiresAt));
          return { token };
        }
        const why = 'the token expired, and the provider gave no refresh token to renew it';
        await forgetCredentials(client, owner, 'revoked', reconnectMessage(owner.connectionId, why), 'oauth');
        return { failure: new RefreshFailedError(reconnectMessage(owner.connectionId, why), 'revoked') };
      }
      let renewed: OAuthToken;
      try {
        const oauthClient = await clientFor(deps.secrets, { id: owner.orgId, slug: owner.orgSlug }, method);
        renewed = await refreshToken(deps.fetch, method, oauthClient, token, now());
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        if (error instanceof OAuthError && error.error === 'invalid_grant') {
          const message = reconnectMessage(
            owner.connectionId,
            `the provider refused to renew the token (invalid_grant; ${text}), so the grant is gone`,
          );
          await forgetCredentials(client, owner, 'revoked', message, 'oauth');
          return { failure: new RefreshFailedError(message, 'revoked') };
        }
        // A timeout, a refused connection, a 5xx or 429 may pass; anything else the provider said will not.
        const mayPass =
          !(error instanceof OAuthError) ||
          /^http_(5\d\d|429)$/.test(error.error) ||
          error.error === 'temporarily_unavailable';
        const stillGood = mayPass && options.refused === undefined && expiresAt > now();
        if (stillGood) {
          await later(new Date(Math.min(now() + RENEWAL_RETRY_MS, expiresAt)));
          options.warn?.(
            `the token could not be renewed (${text}); it is good until ${new Date(expiresAt).toISOString()}, and the renewal is tried again`,
          );
          return { token };
        }
        const message = reconnectMessage(owner.connectionId, `the token could not be renewed (${text})`);
        await client.query(
          `UPDATE connections SET status = 'error', error_message = $3, updated_at = now()
          WHERE org_id = $1 AND (id = $2 OR ($4 AND connector_key = $5)) AND status = 'active'`,
          [owner.orgId, owner.connectionId, message, orgWide, owner.definition.key],
        );
        // Tried again when someone reconnects or retries; not by the chore in a loop.
        await later(null);
        return { failure: new RefreshFailedError(message, 'error') };
      }
      const granted = renewed.scope ? grantedScopesOf(renewed, []) : undefined;
      const moved = await storeCredentials(client, deps.encryptionKey, {
        orgId: owner.orgId,
        connectionId: owner.connectionId,
        definition: owner.definition,
        method: 'oauth',
        credentials: { ...renewed },
        ...(granted ? { grantedScopes: granted } : {}),
        renewal: true,
      });
      if (granted) await fitFeedsToScopes(client, moved, owner.definition, granted);
      return { token: renewed };
    },
  );
  if ('failure' in outcome) throw outcome.failure;
  return outcome.token;
}

/**
 * Renews the tokens due for renewal (`tokenRenewAt`) of active connections and org-wide grants,
 * whether or not a sync is due: a grant the provider withdrew shows on the connection within a
 * chore's interval, not when a sync next breaks, and an idle refresh token keeps being used. Safe
 * on every replica at once (each renewal is single-flight). Answers how many it looked at.
 */
export async function renewExpiringTokens(deps: OAuthDeps, limit = 50): Promise<number> {
  const { rows } = await deps.pool.query<{
    org_id: string;
    org_slug: string;
    connection_id: string;
    definition: ConnectorDefinition;
  }>(
    `SELECT * FROM (SELECT DISTINCT ON (c.org_id, c.connector_key, coalesce(g.connector_key, c.id::text))
            c.org_id, o.slug AS org_slug, c.id AS connection_id, d.definition,
            coalesce(g.token_renew_at, c.token_renew_at) AS due
       FROM connections c
       JOIN orgs o ON o.id = c.org_id
       JOIN connector_definitions d ON d.org_id = c.org_id AND d.connector_key = c.connector_key
       LEFT JOIN org_credentials g ON g.org_id = c.org_id AND g.connector_key = c.connector_key
      WHERE c.status = 'active'
        AND coalesce(g.token_renew_at, c.token_renew_at) <= now()
      ORDER BY c.org_id, c.connector_key, coalesce(g.connector_key, c.id::text), c.id) due
      ORDER BY due LIMIT $1`,
    [limit],
  );
  for (const row of rows) {
    await freshToken(
      deps,
      {
        orgId: String(row.org_id),
        orgSlug: row.org_slug,
        connectionId: String(row.connection_id),
        definition: row.definition,
      },
      { chore: true },
    ).catch((error) => {
      // Recorded on the connection (revoked or error, saying how to reconnect) by freshToken.
      if (!(error instanceof RefreshFailedError)) throw error;
    });
  }
  return rows.length;
}
