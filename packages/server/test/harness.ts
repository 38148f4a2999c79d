import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import {
  type AppOptions,
  appOptionsFromEnv,
  type Env,
  type RegisteredRoute,
  startSvc,
  type TurnWorkerSettings,
} from '../src/app.js';
import { findBubblewrap } from '../src/connectors/bubblewrap.js';
import type { App } from '../src/http/types.js';
import type { RateLimit } from '../src/messaging/rate-limit.js';
import type { StreamTimings } from '../src/messaging/sse.js';
import type { UploadLimits } from '../src/messaging/uploads.js';

/** Posted source as this machine can run it: in bubblewrap when it works here, else without. */
export const testSourceInstalls = (): 'on' | 'unsandboxed' =>
  findBubblewrap().missing ? 'unsandboxed' : 'on';

/**
 * A fresh database on the run's PostgreSQL, dropped when the file's tests end: a copy of the run's
 * migrated template (the server's migrations then find nothing to do), or `empty` (a test of the
 * migrations themselves).
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<string> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(
    options.empty
      ? `CREATE DATABASE ${name}`
      : `CREATE DATABASE ${name} TEMPLATE ${inject('templateDatabase')}`,
  );
  await admin.end();
  afterAll(async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A temporary data dir for `startServer`, removed when the file's tests end. */
export async function createDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-data-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** `startServer` settings that keep a test's output clean. */
export const QUIET_SERVER = { port: 0, host: '127.0.0.1', logLevel: 'silent', announce: () => {} };

export const ADMIN_PASSWORD = 'test-admin-password-0123456789';

export interface TestServer {
  app: App;
  url: string;
  pool: pg.Pool;
  /** Its database and environment, for workers started beside it (test/runtime.ts). */
  databaseUrl: string;
  env: Env;
  /** What the app was built with: tests reach the secret resolver through it. */
  options: AppOptions;
  routes: () => RegisteredRoute[];
  /** Sends a request; `token` defaults to the admin password, `null` sends no Authorization. */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; token?: string | null; headers?: Record<string, string>; raw?: string },
  ): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

export interface TestServerOverrides {
  basePath?: string;
  /** SVC_PUBLIC_URL: webhook URLs are absolute with it, paths without it. */
  publicUrl?: string;
  /** The server's environment for secret references; `secretsFromEnv` is SVC_SECRETS_FROM_ENV. */
  secretEnv?: Record<string, string | undefined>;
  secretsFromEnv?: string;
  databaseUrl?: string;
  encryptionKey?: Buffer;
  logger?: FastifyBaseLogger;
  messageRateLimit?: RateLimit | null;
  /** SVC_EGRESS_ALLOW; default `127.0.0.1`, where the tests' fakes listen (DESIGN.md section 6). */
  egressAllow?: string;
  /** SVC_MCP_COMMANDS; default unset. */
  mcpCommands?: string;
  authFailuresPerMinute?: number;
  /** SVC_TRUST_PROXY: tests name 127.0.0.1 to send as many clients through X-Forwarded-For. */
  trustProxy?: string[];
  /** Runs agent-turn workers in the test server's process (`svc server` does by default). */
  workers?: Pick<
    TurnWorkerSettings,
    | 'concurrency'
    | 'leaseMs'
    | 'maxAttempts'
    | 'pollMs'
    | 'reapMs'
    | 'approvalTtlMs'
    | 'deliveries'
    | 'watchers'
  >;
  streamTimings?: StreamTimings;
  uploadLimits?: UploadLimits;
  /**
   * SVC_CONNECTOR_SOURCE_INSTALLS; default off, as on a deployment. `true`: `on` where bubblewrap
   * works, `unsandboxed` where it does not (so that `npm test` passes on a machine without it).
   */
  connectorSourceInstalls?: boolean | 'on' | 'unsandboxed';
  /** The built console to serve (SVC_CONSOLE_DIR); default none (`/` says it is not built). */
  consoleDir?: string | null;
}

/**
 * A test deployment's environment: an embedded deployment's (SVC_SECRETS_FROM_ENV unset lets org
 * `default` use it), with every answer checked against its schema, and the fakes on 127.0.0.1
 * reachable. Everything else is `svc server`'s default, from the same place (`startSvc`).
 */
function testEnv(overrides: TestServerOverrides): Env {
  return {
    ...overrides.secretEnv,
    SVC_BASE_PATH: overrides.basePath,
    SVC_PUBLIC_URL: overrides.publicUrl,
    SVC_SECRETS_FROM_ENV: overrides.secretsFromEnv,
    SVC_EGRESS_ALLOW: overrides.egressAllow ?? '127.0.0.1',
    SVC_MCP_COMMANDS: overrides.mcpCommands,
    SVC_VALIDATE_RESPONSES: '1',
  };
}

/** What an environment variable cannot say: objects, a logger, the tests' own limits. */
function testAppOverrides(overrides: TestServerOverrides): Partial<AppOptions> {
  return {
    authFailuresPerMinute: overrides.authFailuresPerMinute,
    trustProxy: overrides.trustProxy,
    streamTimings: overrides.streamTimings,
    uploadLimits: overrides.uploadLimits,
    logger: overrides.logger,
    messageRateLimit: overrides.messageRateLimit,
    // No console unless a test serves one: the suite runs the same with or without a build.
    consoleDir: overrides.consoleDir ?? null,
    connectorSourceInstalls:
      overrides.connectorSourceInstalls === true ? testSourceInstalls() : overrides.connectorSourceInstalls,
  };
}

/** What `buildApp` gets in tests: an embedded deployment's defaults unless `overrides` say otherwise. */
export function testAppOptions(pool: pg.Pool, overrides: TestServerOverrides = {}): AppOptions {
  return appOptionsFromEnv(
    testEnv(overrides),
    {
      pool,
      encryptionKey: overrides.encryptionKey ?? randomBytes(32),
      adminPassword: ADMIN_PASSWORD,
      embedded: true,
    },
    testAppOverrides(overrides),
  );
}

/**
 * The encryption key of a database's servers: one per database, as the replicas of a deployment
 * share one (a server refuses to start with another key than its database was set up with).
 */
const keys = new Map<string, Buffer>();
function keyOf(databaseUrl: string): Buffer {
  const key = keys.get(databaseUrl) ?? randomBytes(32);
  keys.set(databaseUrl, key);
  return key;
}

/** The gateway on a real port over a fresh database, assembled by `startSvc` as `svc server` is. */
export async function startTestServer(overrides: TestServerOverrides = {}): Promise<TestServer> {
  const databaseUrl = overrides.databaseUrl ?? (await createTestDatabase());
  const env = testEnv(overrides);
  const svc = await startSvc({
    env,
    databaseUrl,
    encryptionKey: overrides.encryptionKey ?? keyOf(databaseUrl),
    embedded: true,
    // Many test files share one PostgreSQL at once.
    poolSize: 10,
    ...(overrides.logger ? { logger: overrides.logger } : {}),
    http: { adminPassword: ADMIN_PASSWORD, overrides: testAppOverrides(overrides) },
    // Agent-turn workers only when a test asks for them, polling faster; connector runs never
    // (test/runtime.ts starts them where a test needs them).
    turns: overrides.workers ? { concurrency: 2, pollMs: 200, ...overrides.workers } : false,
    runs: false,
  });
  const { app, routes, options } = svc.http;
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}${options.basePath}`;
  const server: TestServer = {
    app,
    url,
    pool: svc.pool,
    databaseUrl,
    env,
    options,
    routes,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      const token = options.token === undefined ? ADMIN_PASSWORD : options.token;
      if (token !== null) headers.authorization = `Bearer ${token}`;
      let body: string | undefined = options.raw;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${url}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
    close: () => svc.close(2000),
  };
  afterAll(() => server.close());
  return server;
}

/** Creates a token in `org` through the API and answers its secret. */
export async function createToken(
  server: TestServer,
  org: string,
  scopes: string[],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const name = `t-${randomBytes(4).toString('hex')}`;
  const res = await server.call('POST', `/api/${org}/tokens`, { body: { name, scopes, ...extra } });
  if (res.status !== 201) throw new Error(`token creation failed: ${JSON.stringify(res.body)}`);
  return { id: res.body.token.id, secret: res.body.secret };
}
