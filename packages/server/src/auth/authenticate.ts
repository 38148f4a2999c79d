import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { ProblemError } from '../http/problem.js';
import type { App, Caller, OrgRef, RouteAuth } from '../http/types.js';
import { orgBySlug } from '../orgs/lookup.js';
import { type SessionReading, sessionCaller, sessionSecretOf, sessionStillLive } from '../sessions/caller.js';
import { passwordCheck } from '../sessions/store.js';
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
  /** Keys what an admin's console session keeps of the password (sessions/store.ts). */
  encryptionKey: Buffer;
  /** Mount prefix: the console session cookie's path. */
  basePath: string;
  /** SVC_PUBLIC_URL: the console's origin, and whether its cookie is Secure. */
  publicUrl?: string;
}

async function resolveOrg(options: AuthenticationOptions, caller: Caller, slug: string): Promise<OrgRef> {
  // A token never learns whether another org exists: its own org or 404.
  if (caller.token) {
    if (caller.token.orgSlug !== slug)
      throw new ProblemError(404, 'not_found', `org "${slug}" does not exist`);
    return { id: caller.token.orgId, slug };
  }
  return orgBySlug(options.pool, slug);
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

/** What the sign-in route needs: the same checks and the same throttle as a bearer value. */
export interface Authenticator {
  /** The caller `value` (the admin password or an API token) authenticates; 401 or 429 otherwise. */
  identify(request: FastifyRequest, reply: FastifyReply, value: string): Promise<Caller>;
  /** What an admin session keeps of the admin password (`passwordCheck`), or null where there is none. */
  adminPasswordCheck: Buffer | null;
}

/**
 * A check that concurrent askers share while it runs (a stream asks before each batch of events
 * it sends). A database that does not answer does not end a stream.
 */
function shared(check: () => Promise<boolean>): () => Promise<boolean> {
  let running: Promise<boolean> | null = null;
  return () => {
    running ??= check()
      .catch(() => true)
      .finally(() => {
        running = null;
      });
    return running;
  };
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
  const reading: SessionReading = {
    pool: options.pool,
    basePath: options.basePath,
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    adminPasswordCheck: passwordDigest && passwordCheck(options.encryptionKey, passwordDigest),
  };
  app.decorateRequest('caller', null);
  app.decorateRequest('org', null);
  app.decorateRequest('stillAuthorized', null);
  app.addHook('onRequest', async (request, reply) => {
    const auth = request.routeOptions.config.auth;
    if (auth === undefined || auth === 'public') return;
    const secret = sessionSecretOf(request, reading);
    let caller: Caller;
    if (secret !== undefined) {
      caller = await sessionCaller(request, secret, reading);
      request.stillAuthorized = shared(() => sessionStillLive(secret, reading));
    } else {
      const value = bearer(request);
      caller = await identifyThrottled(request, reply, throttle, check, value);
      // Only a stream asks, so the digest is taken then, not on every request's path.
      request.stillAuthorized =
        caller.kind === 'admin_password'
          ? async () => true
          : shared(async () => {
              const token = await tokens.find(hashToken(value));
              return !!token && !token.revoked && (token.expiresAt === null || token.expiresAt > Date.now());
            });
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
    adminPasswordCheck: reading.adminPasswordCheck,
  };
}

/** The org of an org-scoped route; the hook above guarantees it is set. */
export function orgOf(request: FastifyRequest): OrgRef {
  if (!request.org) throw new Error('route is not org-scoped');
  return request.org;
}
