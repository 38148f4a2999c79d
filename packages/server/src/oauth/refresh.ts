/**
 * A connection's OAuth token, refreshed when it must be: before it expires (REFRESH_MARGIN_MS) and
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
  openCredentials,
  storeCredentials,
} from '../connections/credentials.js';
import { transaction } from '../db/transaction.js';
import type { SecretResolver } from '../secrets/resolve.js';
import { clientFor } from './client.js';
import { grantedScopesOf, OAuthError, type OAuthToken, oauthMethodOf, refreshToken } from './flow.js';

/** How long before `expiresAt` a token is refreshed: a run that starts now may use it that long. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

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

/**
 * The token a run of the connection should use now: the held one while it is not close to expiry,
 * else a refreshed one. `refused`: the access token the service just refused; it is refreshed
 * unless another process already replaced it. Null when the connection holds no OAuth token.
 */
export async function freshToken(
  deps: OAuthDeps,
  owner: TokenOwner,
  options: { refused?: string; now?: () => number } = {},
): Promise<OAuthToken | null> {
  const method = oauthMethodOf(owner.definition);
  if (!method) return null;
  const now = options.now ?? Date.now;
  const orgWide = credentialScope(owner.definition, 'oauth') === 'organization';
  const outcome = await transaction(deps.pool, async (client) => {
    const { rows } = orgWide
      ? await client.query<{ sealed: Buffer }>(
          'SELECT credentials AS sealed FROM org_credentials WHERE org_id = $1 AND connector_key = $2 FOR UPDATE',
          [owner.orgId, owner.definition.key],
        )
      : await client.query<{ sealed: Buffer | null }>(
          'SELECT credentials AS sealed FROM connections WHERE org_id = $1 AND id = $2 FOR UPDATE',
          [owner.orgId, owner.connectionId],
        );
    const sealed = rows[0]?.sealed ?? null;
    const held = sealed
      ? (openCredentials(
          deps.encryptionKey,
          owner,
          orgWide ? null : sealed,
          orgWide ? sealed : null,
        ) as Partial<OAuthToken>)
      : null;
    if (!held || typeof held.accessToken !== 'string') return { token: null };
    const token = held as OAuthToken;
    const expiresAt = token.expiresAt ? Date.parse(token.expiresAt) : Number.NaN;
    const due =
      options.refused !== undefined
        ? options.refused === token.accessToken
        : Number.isFinite(expiresAt) && expiresAt - now() < REFRESH_MARGIN_MS;
    if (!due) return { token };
    if (!token.refreshToken) {
      // Nothing to renew it with: a token that may still work is used (a refused one fails its run,
      // and the run says its credentials were refused); an expired one is gone.
      if (options.refused !== undefined || expiresAt > now()) return { token };
      const why = 'the token expired, and the provider gave no refresh token to renew it';
      await forgetCredentials(client, owner, 'revoked', reconnectMessage(owner.connectionId, why));
      return { failure: new RefreshFailedError(reconnectMessage(owner.connectionId, why), 'revoked') };
    }
    try {
      const client_ = await clientFor(deps.secrets, { id: owner.orgId, slug: owner.orgSlug }, method);
      const renewed = await refreshToken(deps.fetch, method, client_, token, now());
      await storeCredentials(client, deps.encryptionKey, {
        orgId: owner.orgId,
        connectionId: owner.connectionId,
        definition: owner.definition,
        method: 'oauth',
        credentials: { ...renewed },
        ...(renewed.scope ? { grantedScopes: grantedScopesOf(renewed, []) } : {}),
        renewal: true,
      });
      return { token: renewed };
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (error instanceof OAuthError && error.error === 'invalid_grant') {
        const message = reconnectMessage(
          owner.connectionId,
          `the provider refused to renew the token (invalid_grant; ${text}), so the grant is gone`,
        );
        await forgetCredentials(client, owner, 'revoked', message);
        return { failure: new RefreshFailedError(message, 'revoked') };
      }
      const message = reconnectMessage(owner.connectionId, `the token could not be renewed (${text})`);
      await client.query(
        `UPDATE connections SET status = 'error', error_message = $3, updated_at = now()
          WHERE org_id = $1 AND (id = $2 OR ($4 AND connector_key = $5)) AND status <> 'revoked'`,
        [owner.orgId, owner.connectionId, message, orgWide, owner.definition.key],
      );
      return { failure: new RefreshFailedError(message, 'error') };
    }
  });
  if ('failure' in outcome) throw outcome.failure;
  return outcome.token;
}
