import type { FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { expandScopes } from '../auth/tokens.js';
import { ProblemError } from '../http/problem.js';
import type { Caller } from '../http/types.js';
import { findSession, matchesCsrf, type Session, sessionCookieCount, sessionCookieName } from './store.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What reading a console session from a request needs from the server. */
export interface SessionReading {
  pool: Pool;
  basePath: string;
  /** SVC_PUBLIC_URL: its origin is the console's, and an `https:` one makes the cookie Secure. */
  publicUrl?: string;
  /** What an admin session must carry of the current admin password (`passwordCheck`), or null. */
  adminPasswordCheck: Buffer | null;
}

/** Whether the session cookie of this request is a Secure one (and so prefixed): see the store. */
export function isSecureRequest(request: FastifyRequest, publicUrl: string | undefined): boolean {
  return (publicUrl?.startsWith('https:') ?? false) || request.protocol === 'https';
}

/** The console's own origin: the public address when one is set, else the one this request reached. */
function ownOrigin(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(publicUrl).origin;
  // request.host honours X-Forwarded-Host from a trusted proxy (SVC_TRUST_PROXY).
  return `${request.protocol}://${request.host}`;
}

function originOf(value: string): string | null {
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

/**
 * The session's secret, when the request brings no Authorization header and one session cookie.
 * Two are refused rather than one picked: a cookie planted from another host (a sibling
 * subdomain, plain HTTP) would otherwise make the console act in the planter's session.
 */
export function sessionSecretOf(request: FastifyRequest, reading: SessionReading): string | undefined {
  if (request.headers.authorization !== undefined) return undefined;
  const count = sessionCookieCount(request.headers.cookie);
  if (count === 0) return undefined;
  if (count > 1) {
    throw new ProblemError(
      401,
      'unauthorized',
      'this request carries more than one svc session cookie (another site may have set one): clear the cookies of this site and sign in again',
    );
  }
  return request.cookies[sessionCookieName(isSecureRequest(request, reading.publicUrl), reading.basePath)];
}

/**
 * A request that changes something with a session must carry the session's CSRF token (which
 * only the console's own script can read, from `GET /api/session`) and must not say it comes from
 * elsewhere: its `Origin` must be the console's (scheme, host and port), and the browser's
 * `Sec-Fetch-Site` must not be another site. The cookie is SameSite=Strict already; these hold
 * where a browser, a proxy or a sibling subdomain gets around it.
 */
function checkCsrf(request: FastifyRequest, session: Session, reading: SessionReading): void {
  if (SAFE_METHODS.has(request.method)) return;
  const refuse = (detail: string) => new ProblemError(403, 'csrf_failed', detail);
  const origin = request.headers.origin;
  if (origin !== undefined && originOf(origin) !== ownOrigin(request, reading.publicUrl)) {
    throw refuse(`a request from ${origin} may not use this console session`);
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw refuse(`a ${site} request may not use this console session`);
  }
  const given = request.headers['x-csrf-token'];
  if (!matchesCsrf(session, typeof given === 'string' ? given : undefined)) {
    throw refuse(
      "a console session's request that changes something must send the session's X-CSRF-Token (GET /api/session gives it)",
    );
  }
}

/** When this process last wrote a token's `last_used_at` for a session's request, in ms. */
const usedAt = new Map<string, number>();

/** A token used through a session counts as used, as a bearer does: at most one write a minute. */
function recordTokenUse(pool: Pool, tokenId: string): void {
  const now = Date.now();
  if (now - (usedAt.get(tokenId) ?? 0) < 60_000) return;
  if (usedAt.size > 10_000) usedAt.clear();
  usedAt.set(tokenId, now);
  pool.query('UPDATE api_tokens SET last_used_at = now() WHERE id = $1', [tokenId]).catch(() => {
    // A lost record of use costs nothing but its own accuracy.
    usedAt.delete(tokenId);
  });
}

/** The caller a live session stands for: its token's scopes and org, or the admin's. */
export async function sessionCaller(
  request: FastifyRequest,
  secret: string,
  reading: SessionReading,
): Promise<Caller> {
  const session = await findSession(reading.pool, secret, reading.adminPasswordCheck);
  if (!session) {
    throw new ProblemError(
      401,
      'unauthorized',
      'this console session has ended (signed out, expired, or its token revoked): sign in again',
    );
  }
  checkCsrf(request, session, reading);
  const view = {
    id: session.id,
    kind: session.kind,
    csrfToken: session.csrfToken,
    org: session.org,
    expiresAt: session.expiresAt,
  };
  if (!session.token) {
    return { kind: 'admin_password', scopes: expandScopes(['admin']), token: null, session: view };
  }
  recordTokenUse(reading.pool, session.token.id);
  return {
    kind: 'token',
    scopes: expandScopes(session.token.scopes),
    token: {
      id: session.token.id,
      name: session.token.name,
      orgId: session.org.id,
      orgSlug: session.org.slug,
    },
    session: view,
  };
}

/** Whether the session is still live: what a stream asks before it sends more. */
export async function sessionStillLive(secret: string, reading: SessionReading): Promise<boolean> {
  return (await findSession(reading.pool, secret, reading.adminPasswordCheck)) !== null;
}
