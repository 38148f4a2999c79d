import { idSchema, scopeSchema } from '@svc/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { z } from 'zod';
import type { Authenticator } from '../auth/authenticate.js';
import { iso, noBody, problemResponse, problemResponses } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App, Caller, CallerSession, OrgRef } from '../http/types.js';
import { orgBySlug } from '../orgs/lookup.js';
import { isSecureRequest } from './caller.js';
import { createSession, moveSession, revokeSession, SESSION_TTL_MS, sessionCookieName } from './store.js';

const tags = ['sessions'];

const sessionSchema = z.object({
  id: z.string(),
  kind: z.enum(['token', 'admin_password']),
  org: z.string().describe('the org this session acts in; an admin session may move to another'),
  scopes: z.array(scopeSchema),
  token: z.object({ id: z.string(), name: z.string() }).nullable(),
  expiresAt: z.string(),
  csrfToken: z
    .string()
    .describe(
      'send it as `X-CSRF-Token` on every request of this session that is not a GET, HEAD or OPTIONS',
    ),
});

/** What the routes of this file need from the server that mounts them. */
export interface SessionRouteOptions {
  pool: Pool;
  basePath: string;
  /** The public address: a `https:` one makes the cookie Secure whatever the request's protocol. */
  publicUrl?: string;
}

const view = (caller: Caller, session: CallerSession) => ({
  id: session.id,
  kind: session.kind,
  org: session.org.slug,
  scopes: [...caller.scopes].sort(),
  token: caller.token ? { id: caller.token.id, name: caller.token.name } : null,
  expiresAt: iso(session.expiresAt),
  csrfToken: session.csrfToken,
});

function sessionOf(request: FastifyRequest): { caller: Caller; session: CallerSession } {
  const caller = request.caller;
  if (!caller?.session) {
    throw new ProblemError(
      404,
      'not_found',
      'this request carried no console session (a bearer token was sent, or no session cookie)',
    );
  }
  return { caller, session: caller.session };
}

/**
 * Console sign-in (DESIGN.md section 12): the admin password or an API token exchanged for an
 * HttpOnly, SameSite=Strict cookie. The session can do exactly what its credential can.
 */
export function sessionRoutes(options: SessionRouteOptions, authenticator: Authenticator) {
  const cookiePath = `${options.basePath}/`;
  const setCookie = (request: FastifyRequest, reply: FastifyReply, value: string, maxAgeMs: number) => {
    const secure = isSecureRequest(request, options.publicUrl);
    return reply.setCookie(sessionCookieName(secure, options.basePath), value, {
      path: cookiePath,
      httpOnly: true,
      sameSite: 'strict',
      secure,
      maxAge: Math.max(0, Math.round(maxAgeMs / 1000)),
    });
  };

  return async (app: App) => {
    app.post(
      '/api/session',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'signIn',
          summary: 'Sign in to the console: exchange the admin password or an API token for a session cookie',
          description:
            'The answer sets the `svc_session` cookie (HttpOnly, SameSite=Strict; over HTTPS Secure and named ' +
            '`__Host-svc_session`, or `__Secure-svc_session` under a base path), valid ' +
            `${SESSION_TTL_MS / 3_600_000} h and never past the token's own expiry. A session can do exactly what its ` +
            "token's scopes allow; the admin password's acts as admin on every org, in `org` (default `default`) for the " +
            'routes whose path has no org. Failed attempts count against the same per-address budget as bearer values (429).',
          body: z.object({
            credential: z.string().min(1).max(512).describe('the admin password or an API token (svc_...)'),
            org: idSchema.optional().describe("the org to act in (an admin's session); a token's is its own"),
          }),
          response: {
            201: z.object({ session: sessionSchema }),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const caller = await authenticator.identify(request, reply, request.body.credential);
        const wanted = request.body.org;
        let org: OrgRef;
        let expiresAt = new Date(Date.now() + SESSION_TTL_MS);
        if (caller.token) {
          // A token's session stays in its token's org; another org is not revealed to exist.
          if (wanted !== undefined && wanted !== caller.token.orgSlug) throw notFound(`org "${wanted}"`);
          org = { id: caller.token.orgId, slug: caller.token.orgSlug };
          const { rows } = await options.pool.query<{ expires_at: Date | null }>(
            'SELECT expires_at FROM api_tokens WHERE id = $1',
            [caller.token.id],
          );
          const tokenExpiry = rows[0]?.expires_at;
          if (tokenExpiry && tokenExpiry < expiresAt) expiresAt = tokenExpiry;
        } else {
          org = await orgBySlug(options.pool, wanted ?? 'default');
        }
        const created = await createSession(options.pool, {
          kind: caller.kind,
          orgId: org.id,
          apiTokenId: caller.token?.id ?? null,
          passwordCheck: caller.kind === 'admin_password' ? authenticator.adminPasswordCheck : null,
          expiresAt,
        });
        setCookie(request, reply, created.secret, expiresAt.getTime() - Date.now());
        const session: CallerSession = { ...created.session, org };
        return reply.code(201).send({ session: view(caller, session) });
      },
    );

    app.get(
      '/api/session',
      {
        config: { auth: { scope: 'authenticated', org: false } },
        schema: {
          tags,
          operationId: 'getSession',
          summary: 'The console session this request came with, and its CSRF token',
          description:
            "The console's session of this cookie: who signed in, the org it shows, and the CSRF token that the console's writes carry.",
          response: { 200: z.object({ session: sessionSchema }), ...problemResponses },
        },
      },
      async (request) => {
        const { caller, session } = sessionOf(request);
        return { session: view(caller, session) };
      },
    );

    app.patch(
      '/api/session',
      {
        config: { auth: { scope: 'authenticated', org: false } },
        schema: {
          tags,
          operationId: 'moveSession',
          summary: "Move an admin's console session to another org",
          description:
            'Points the console session at another org; only a session of the deployment admin may.',
          body: z.object({ org: idSchema }),
          response: {
            200: z.object({ session: sessionSchema }),
            ...problemResponses,
            403: problemResponse("A token's session stays in its token's org"),
          },
        },
      },
      async (request) => {
        const { caller, session } = sessionOf(request);
        if (caller.kind !== 'admin_password') {
          throw new ProblemError(403, 'forbidden', "a token's session stays in its token's org");
        }
        const org = await orgBySlug(options.pool, request.body.org);
        await moveSession(options.pool, session.id, org);
        return { session: view(caller, { ...session, org }) };
      },
    );

    app.delete(
      '/api/session',
      {
        config: { auth: { scope: 'authenticated', org: false } },
        schema: {
          tags,
          operationId: 'signOut',
          summary: 'Sign out: the session ends on every replica and its cookie is cleared',
          description:
            'Ends the console session on every replica and clears its cookie. A request without a session (a bearer token, no cookie) answers 404.',
          body: noBody,
          response: { 200: z.object({ result: z.literal('deleted') }), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { session } = sessionOf(request);
        await revokeSession(options.pool, session.id);
        setCookie(request, reply, '', 0);
        return { result: 'deleted' as const };
      },
    );
  };
}
