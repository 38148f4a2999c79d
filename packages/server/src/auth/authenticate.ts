import { ID_PATTERN } from '@svc/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { ProblemError } from '../http/problem.js';
import type { App, Caller, OrgRef, RouteAuth } from '../http/types.js';
import { findSession, matchesCsrf, SESSION_COOKIE, type Session } from '../sessions/store.js';
import { type AuthThrottle, clientKey, createAuthThrottle } from './throttle.js';
import type { TokenLookup } from './token-lookup.js';
import { expandScopes, hashToken, isWellFormedToken, matchesPassword } from './tokens.js';

const unauthorized = (detail: string) => new ProblemError(401, 'unauthorized', detail);

function bearer(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header === undefined) throw unauthorized('send "Authorization: Bearer <API token>"');
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('the Authorization header must be "Bearer <API token>"');
  return match[1] as string;
}

/** Failed attempts a client may make in a minute before it is answered 429 (README, Authentication). */
export const AUTH_FAILURES_PER_MINUTE = 20;

async function identify(
  passwordDigest: Buffer | null,
  tokens: TokenLookup,
  value: string,
  digest: Buffer,
): Promise<Caller> {
  if (passwordDigest !== null && matchesPassword(digest, passwordDigest)) {
    return { kind: 'admin_password', scopes: expandScopes(['admin']), token: null };
  }
  if (!isWellFormedToken(value))
    throw unauthorized('the bearer value is neither an svc API token (svc_...) nor the admin password');
  const token = await tokens.find(digest);
  if (!token) throw unauthorized('unknown API token');
  if (token.revoked) throw unauthorized('this API token was revoked');
  if (token.expiresAt !== null && token.expiresAt <= Date.now())
    throw unauthorized('this API token has expired');
  // Only a token that got through counts as used.
  tokens.recordUse(token);
  return {
    kind: 'token',
    scopes: expandScopes(token.scopes),
    token: { id: token.id, name: token.name, orgId: token.orgId, orgSlug: token.orgSlug },
  };
}

/** What the routes of this file need from the server that mounts them. */
export interface AuthenticationOptions {
  pool: Pool;
  /** The deployment admin password accepted as a bearer value, when local admin is enabled. */
  adminPassword: string | null;
  /** Failed authentications a client may make in a minute before it is answered 429. */
  authFailuresPerMinute?: number;
}

async function resolveOrg(options: AuthenticationOptions, caller: Caller, slug: string): Promise<OrgRef> {
  // A token never learns whether another org exists: its own org or 404.
  if (caller.token) {
    if (caller.token.orgSlug !== slug)
      throw new ProblemError(404, 'not_found', `org "${slug}" does not exist`);
    return { id: caller.token.orgId, slug };
  }
  // A slug that breaks the rule names no org: answer without asking the database.
  if (!ID_PATTERN.test(slug)) throw new ProblemError(404, 'not_found', `org "${slug}" does not exist`);
  const { rows } = await options.pool.query<{ id: string }>('SELECT id FROM orgs WHERE slug = $1', [slug]);
  if (!rows[0]) throw new ProblemError(404, 'not_found', `org "${slug}" does not exist`);
  return { id: String(rows[0].id), slug };
}

function authorize(caller: Caller, auth: Exclude<RouteAuth, 'public'>): void {
  if (auth.scope === 'deployment_admin') {
    if (caller.kind !== 'admin_password') {
      throw new ProblemError(403, 'forbidden', 'only the deployment admin password may do this');
    }
    return;
  }
  if (auth.scope === 'authenticated') return;
  if (!caller.scopes.has(auth.scope)) {
    throw new ProblemError(403, 'forbidden', `this token lacks the "${auth.scope}" scope`);
  }
}

/**
 * Checks a bearer value, counting each one refused against its client. A client over its budget
 * is answered 429 without a check, so that guesses (at the admin password above all) go no faster
 * than the budget allows. API tokens are the exception: 256 random bits are not guessed, so a
 * valid one from a busy address (a NAT, a proxy) still works.
 */
async function identifyThrottled(
  request: FastifyRequest,
  reply: FastifyReply,
  throttle: AuthThrottle,
  check: (value: string, digest: Buffer) => Promise<Caller>,
  value: string,
): Promise<Caller> {
  // One digest serves both the password comparison and the token lookup.
  const digest = hashToken(value);
  const client = clientKey(request.ip);
  const wait = throttle.retryAfter(client);
  if (wait > 0) {
    if (isWellFormedToken(value)) {
      const caller = await check(value, digest).catch((error) => {
        if (error instanceof ProblemError && error.status === 401) return null;
        throw error;
      });
      if (caller?.kind === 'token') return caller;
    }
    reply.header('retry-after', String(wait));
    throw new ProblemError(
      429,
      'rate_limited',
      `too many failed authentication attempts from this address; try again in ${wait} s`,
    );
  }
  try {
    return await check(value, digest);
  } catch (error) {
    if (error instanceof ProblemError && error.status === 401) throttle.fail(client);
    throw error;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The caller a console session's cookie stands for. A request that changes something must also
 * carry the session's CSRF token (which only the console's own script can read, from
 * `GET /api/session`) and, when the browser says where it comes from, come from this origin: the
 * cookie is SameSite=Strict already, this holds where a browser or a proxy gets that wrong.
 */
function sessionCaller(request: FastifyRequest, session: Session): Caller {
  if (!SAFE_METHODS.has(request.method)) {
    const origin = request.headers.origin;
    if (origin !== undefined && originHost(origin) !== request.headers.host) {
      throw new ProblemError(403, 'csrf_failed', `a request from ${origin} may not use this console session`);
    }
    const given = request.headers['x-csrf-token'];
    if (!matchesCsrf(session, typeof given === 'string' ? given : undefined)) {
      throw new ProblemError(
        403,
        'csrf_failed',
        "a console session's request that changes something must send the session's X-CSRF-Token (GET /api/session gives it)",
      );
    }
  }
  const view = {
    id: session.id,
    kind: session.kind,
    csrfToken: session.csrfToken,
    org: session.org,
    expiresAt: session.expiresAt,
  };
  if (session.token) {
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
  return { kind: 'admin_password', scopes: expandScopes(['admin']), token: null, session: view };
}

function originHost(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/** What the sign-in route needs: the same checks and the same throttle as a bearer value. */
export interface Authenticator {
  /** The caller `value` (the admin password or an API token) authenticates; 401 or 429 otherwise. */
  identify(request: FastifyRequest, reply: FastifyReply, value: string): Promise<Caller>;
  /** The digest of the admin password, or null where there is none. */
  passwordDigest: Buffer | null;
}

/**
 * Runs before the body is read: 401 for missing or bad credentials (429 once a client has failed
 * too often), then 404 for an org the caller cannot see, then 403 for a missing scope. A request
 * with no Authorization header may come with a console session's cookie instead.
 */
export function registerAuthentication(
  app: App,
  options: AuthenticationOptions,
  tokens: TokenLookup,
): Authenticator {
  const passwordDigest = options.adminPassword === null ? null : hashToken(options.adminPassword);
  const throttle = createAuthThrottle(options.authFailuresPerMinute ?? AUTH_FAILURES_PER_MINUTE);
  const check = (value: string, digest: Buffer) => identify(passwordDigest, tokens, value, digest);
  app.decorateRequest('caller', null);
  app.decorateRequest('org', null);
  app.addHook('onRequest', async (request, reply) => {
    const auth = request.routeOptions.config.auth;
    if (auth === undefined || auth === 'public') return;
    const cookie = request.headers.authorization === undefined ? request.cookies[SESSION_COOKIE] : undefined;
    let caller: Caller;
    if (cookie !== undefined) {
      const session = await findSession(options.pool, cookie, passwordDigest);
      if (!session) {
        throw unauthorized(
          'this console session has ended (signed out, expired, or its token revoked): sign in again',
        );
      }
      caller = sessionCaller(request, session);
    } else {
      caller = await identifyThrottled(request, reply, throttle, check, bearer(request));
    }
    request.caller = caller;
    if (auth.org) {
      const slug = (request.params as { org?: string }).org ?? '';
      request.org = await resolveOrg(options, caller, slug);
    }
    authorize(caller, auth);
  });
  return {
    identify: (request, reply, value) => identifyThrottled(request, reply, throttle, check, value),
    passwordDigest,
  };
}

/** The org of an org-scoped route; the hook above guarantees it is set. */
export function orgOf(request: FastifyRequest): OrgRef {
  if (!request.org) throw new Error('route is not org-scoped');
  return request.org;
}
