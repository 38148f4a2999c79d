import type { Scope } from '@svc/core';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

/**
 * What a route needs from its caller. `public` routes skip authentication; every other route names
 * the scope it needs (`authenticated`: any valid credentials; `deployment_admin`: the admin password
 * only) and whether it lives under `/api/:org`. A route without this declaration makes
 * the server refuse to start, so no route can be added outside the authorization matrix.
 */
export type RouteAuth = 'public' | { scope: Scope | 'authenticated' | 'deployment_admin'; org: boolean };

export interface Caller {
  kind: 'token' | 'admin_password';
  /** Scopes after expansion (admin implies every scope; write implies read). */
  scopes: Set<Scope>;
  token: { id: string; name: string; orgId: string; orgSlug: string } | null;
  /** The console session the request came with (a cookie), when it did not bring a bearer value. */
  session?: CallerSession;
}

/** A console session, as the routes see it (sessions/store.ts). */
export interface CallerSession {
  id: string;
  kind: 'token' | 'admin_password';
  csrfToken: string;
  /** The org the org-less routes act in: the token's, or the one an admin session picked. */
  org: OrgRef;
  expiresAt: Date;
}

export interface OrgRef {
  id: string;
  slug: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** The JSON Schema of the route's multipart body, for the OpenAPI document. */
    multipartBody?: Record<string, unknown>;
  }
  interface FastifyRequest {
    caller: Caller | null;
    org: OrgRef | null;
    /**
     * Whether the request's credentials still hold (not revoked, expired or signed out): what a
     * stream asks before it sends more (a session's costs a query; a token's is answered from the
     * revocation-aware cache).
     */
    stillAuthorized: (() => Promise<boolean>) | null;
  }
}

/** What the HTTP plumbing is built with; the domains' own options are theirs (see ../app.ts). */
export interface HttpOptions {
  /** Mount prefix such as `/svc`, or `''`. */
  basePath: string;
  logger?: FastifyBaseLogger;
  /** Check every answer against its response schema (tests, `SVC_VALIDATE_RESPONSES=1`). */
  validateResponses?: boolean;
  /** Largest JSON body accepted, in bytes. */
  bodyLimit?: number;
  /** Proxies whose `X-Forwarded-For` names the client: addresses and CIDRs. */
  trustProxy?: string[];
  /** The API's version, in the OpenAPI document. */
  version?: string;
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;
