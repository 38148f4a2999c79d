/**
 * Where a `browser` connection's captured session is kept (DESIGN.md sections 6 and 10): sealed
 * with AES-256-GCM under SVC_ENCRYPTION_KEY in `connections.session_state`, bound to org and
 * connection; opened only for the connection's runs (`ctx.sessionState`). Routes are in
 * browser-session.ts.
 */
import type { ConnectorDefinition } from '@svc/connector-sdk';
import type { PoolClient } from 'pg';
import { z } from 'zod';
import type { EgressGrant } from '../connectors/egress-proxy.js';
import { seal, unseal } from '../secrets/cipher.js';
import {
  keepRequiredCookies,
  MAX_SESSION_COOKIES,
  normaliseDomain,
  requiredDomainOf,
  type SessionCookie,
  type SessionState,
  sessionCookieSchema,
} from './browser-cookies.js';
import { grantedHosts, urlHosts } from './grants.js';

/** The spec's default DevTools address when the method names none. */
export const DEFAULT_CDP_URL = 'http://127.0.0.1:9222';

/** Binds a sealed session to its connection: copied into another row (or read as credentials), it does not open. */
export const sessionContext = (orgId: string, connectionId: string) =>
  `browser-session:${orgId}:${connectionId}`;

type BrowserMethod = Extract<
  NonNullable<ConnectorDefinition['authSchema']>['methods'][number],
  { type: 'browser' }
>;

export const browserMethodOf = (definition: ConnectorDefinition): BrowserMethod | null =>
  (definition.authSchema?.methods.find((m) => m.type === 'browser') as BrowserMethod | undefined) ?? null;

/** What to tell a person whose captured session the service no longer takes. */
export const captureAgain = (connectionId: string) =>
  `capture it again: svc memory browser-auth --connection ${connectionId} (or POST /api/:org/connections/${connectionId}/browser-session)`;

/**
 * Seals `cookies` as the connection's session, in the caller's transaction, with when it was
 * captured and how many cookies each required domain has.
 */
export async function storeSession(
  client: Pick<PoolClient, 'query'>,
  key: Buffer,
  orgId: string,
  connectionId: string,
  cookies: SessionCookie[],
  counts: Record<string, number>,
): Promise<Date> {
  const state: SessionState = { cookies };
  const { rows } = await client.query<{ session_captured_at: Date }>(
    `UPDATE connections SET session_state = $2, session_captured_at = now(), session_cookie_counts = $3,
            updated_at = now() WHERE id = $1 RETURNING session_captured_at`,
    [
      connectionId,
      seal(key, JSON.stringify(state), sessionContext(orgId, connectionId)),
      JSON.stringify(counts),
    ],
  );
  return rows[0]?.session_captured_at ?? new Date();
}

/** The connection's session as its runs get it, or null when none was captured. */
export function openSession(
  key: Buffer,
  orgId: string,
  connectionId: string,
  sealed: Buffer | null,
): SessionState | null {
  if (!sealed) return null;
  return JSON.parse(unseal(key, sealed, sessionContext(orgId, connectionId))) as SessionState;
}

/** The cookie values of a session, to keep out of the run's log (as short as credentials are kept: 4). */
export const sessionSecrets = (state: Record<string, unknown> | null | undefined): string[] =>
  Array.isArray(state?.cookies)
    ? (state.cookies as { value?: unknown }[])
        .map((cookie) => cookie.value)
        .filter((value): value is string => typeof value === 'string' && value.length >= 4)
    : [];

/**
 * A sync's `auth_update` for a browser connection: `cookies` (the rotated session, as the SDK's
 * `BrowserCookie`s) replaces the stored session, kept to the required domains, in the caller's
 * transaction. Answers what is left of the update for the other credentials, or null when nothing
 * is. An update that is not a browser connection's, or holds no `cookies`, is answered unchanged.
 */
export async function persistSessionUpdate(
  client: PoolClient,
  key: Buffer,
  scope: { orgId: string; connectionId: string; definition: ConnectorDefinition },
  update: Record<string, unknown>,
): Promise<{ rest: Record<string, unknown> | null; problem: string | null }> {
  const method = browserMethodOf(scope.definition);
  if (!method || !('cookies' in update)) return { rest: update, problem: null };
  const { cookies, ...rest } = update;
  const remaining = Object.keys(rest).length > 0 ? rest : null;
  const parsed = z.array(sessionCookieSchema).max(MAX_SESSION_COOKIES).safeParse(cookies);
  if (!parsed.success) {
    return {
      rest: remaining,
      problem: `auth_update.cookies is not a list of cookies (${parsed.error.issues[0]?.message}): the stored session was kept`,
    };
  }
  const { kept, counts } = keepRequiredCookies(parsed.data, method.requiredDomains ?? []);
  const { rows } = await client.query<{ status: string }>(
    'SELECT status FROM connections WHERE id = $1 FOR UPDATE',
    [scope.connectionId],
  );
  // Revoked while the run went on: its rotated cookies must not bring the session back.
  if (rows[0]?.status === 'revoked') {
    return {
      rest: remaining,
      problem: 'the connection was revoked during the run: its rotated cookies were dropped',
    };
  }
  await storeSession(client, key, scope.orgId, scope.connectionId, kept, counts);
  return { rest: remaining, problem: null };
}

/**
 * Where a run of a connection that holds a browser session (and no other credentials) may
 * connect, as `grants.ts` does for credentials: its cookies are credentials, so a config changed to
 * point elsewhere must not carry them there. The required domains and their subdomains, and the
 * hosts the definition itself names (its schemas' default URLs); a run whose config points at any
 * other host fails, saying so.
 */
export function sessionGrant(scope: {
  definition: ConnectorDefinition;
  config: Record<string, unknown>;
}): EgressGrant {
  const domains = (browserMethodOf(scope.definition)?.requiredDomains ?? [])
    .map(normaliseDomain)
    .filter((d) => d !== '');
  const hosts = grantedHosts(scope.definition, []);
  const outside = [...urlHosts(scope.config)].filter(
    (host) => !hosts.includes(host) && requiredDomainOf(host, domains) === null,
  );
  if (outside.length > 0) {
    throw new Error(
      `the config points at ${outside.join(', ')}, outside the domains of this connection's browser session (${domains.join(', ') || 'none'}): its cookies go nowhere else`,
    );
  }
  return { hosts: new Set(hosts), domains };
}
