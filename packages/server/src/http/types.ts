import type { Scope } from '@svc/core';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Pool } from 'pg';
import type { DeploymentEgress } from '../egress/deployment.js';
import type { RateLimit } from '../messaging/rate-limit.js';
import type { StreamTimings } from '../messaging/sse.js';
import type { UploadLimits } from '../messaging/uploads.js';
import type { SecretResolver } from '../secrets/resolve.js';

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
  }
}

export interface AppOptions {
  pool: Pool;
  /** Mount prefix such as `/svc`, or `''`. */
  basePath: string;
  /** Absolute origin that clients reach the server at (e.g. `https://svc.example.com`), for webhook URLs. */
  publicUrl?: string;
  /** The deployment admin password accepted as a bearer value, when local admin is enabled. */
  adminPassword: string | null;
  /** Encrypts what the server keeps and must read back (org secrets): SVC_ENCRYPTION_KEY. */
  encryptionKey: Buffer;
  /** The one way any part of the server resolves a secret reference for an org (DESIGN.md section 6). */
  secrets: SecretResolver;
  /** What orgs' settings may reach and run (SVC_EGRESS_ALLOW, SVC_MCP_COMMANDS); unset: public addresses only, no stdio MCP server. */
  egress: DeploymentEgress;
  logger?: FastifyBaseLogger;
  /** Multipart limits (SVC_UPLOAD_MAX_FILE_BYTES, SVC_UPLOAD_MAX_TOTAL_BYTES); absent: 10 MiB, 25 MiB, 10 files. */
  uploadLimits?: UploadLimits;
  /** SSE ping and poll intervals (tests shorten them). */
  streamTimings?: StreamTimings;
  /** Messages each token may send (`SVC_MESSAGES_RATE_LIMIT`); `null`: no limit; absent: the default. */
  messageRateLimit?: RateLimit | null;
  /** Check every answer against its response schema (tests, `SVC_VALIDATE_RESPONSES=1`). */
  validateResponses?: boolean;
  /** Largest JSON body accepted, in bytes. */
  bodyLimit?: number;
  /**
   * Whether connectors may be installed from posted source (SVC_CONNECTOR_SOURCE_INSTALLS): `on`,
   * run in the OS sandbox only (refused on a host without it); `unsandboxed`, run without it where
   * it is missing (development); `off` or absent, bundled connectors only. `true` is `on`.
   */
  connectorSourceInstalls?: boolean | 'off' | 'on' | 'unsandboxed';
  /** Nix packages the workers provide (SVC_CONNECTOR_NIX_PACKAGES): a connector needing others is refused. */
  connectorNixPackages?: Set<string>;
  /** Failed authentications a client may make in a minute before it is answered 429. */
  authFailuresPerMinute?: number;
  /** Proxies whose `X-Forwarded-For` names the client: addresses and CIDRs. */
  trustProxy?: string[];
  version?: string;
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;
