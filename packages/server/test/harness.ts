import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { findBubblewrap } from '../src/connectors/bubblewrap.js';
import { migrate } from '../src/db/migrate.js';
import { deploymentEgressFromEnv } from '../src/egress/deployment.js';
import { buildApp, type RegisteredRoute } from '../src/http/app.js';
import type { App, AppOptions } from '../src/http/types.js';
import type { RateLimit } from '../src/messaging/rate-limit.js';
import type { StreamTimings } from '../src/messaging/sse.js';
import type { UploadLimits } from '../src/messaging/uploads.js';
import { ensureOrg } from '../src/orgs/routes.js';
import { parseEnvSecretPolicy } from '../src/secrets/env-policy.js';
import { createSecretResolver } from '../src/secrets/resolve.js';
import { createTurnMetrics } from '../src/turns/metrics.js';
import { startTurnWorkers, type TurnWorkerOptions } from '../src/turns/worker.js';

/** Posted source as this machine can run it: in bubblewrap when it works here, else without. */
export const testSourceInstalls = (): 'on' | 'unsandboxed' =>
  findBubblewrap().missing ? 'unsandboxed' : 'on';

/** A fresh database on the run's PostgreSQL, dropped when the file's tests end. */
export async function createTestDatabase(): Promise<string> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
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
  workers?: Partial<
    Pick<
      TurnWorkerOptions,
      'concurrency' | 'leaseMs' | 'maxAttempts' | 'pollMs' | 'reapMs' | 'approvalTtlMs' | 'deliveries'
    >
  >;
  streamTimings?: StreamTimings;
  uploadLimits?: UploadLimits;
  /**
   * SVC_CONNECTOR_SOURCE_INSTALLS; default off, as on a deployment. `true`: `on` where bubblewrap
   * works, `unsandboxed` where it does not (so that `npm test` passes on a machine without it).
   */
  connectorSourceInstalls?: boolean | 'on' | 'unsandboxed';
}

/** What `buildApp` gets in tests: an embedded deployment's defaults unless `overrides` say otherwise. */
export function testAppOptions(pool: pg.Pool, overrides: TestServerOverrides = {}): AppOptions {
  const encryptionKey = overrides.encryptionKey ?? randomBytes(32);
  return {
    pool,
    basePath: overrides.basePath ?? '',
    ...(overrides.publicUrl ? { publicUrl: overrides.publicUrl } : {}),
    adminPassword: ADMIN_PASSWORD,
    encryptionKey,
    secrets: createSecretResolver({
      pool,
      encryptionKey,
      env: overrides.secretEnv ?? {},
      policy: parseEnvSecretPolicy(overrides.secretsFromEnv, true),
    }),
    egress: deploymentEgressFromEnv({
      SVC_EGRESS_ALLOW: overrides.egressAllow ?? '127.0.0.1',
      SVC_MCP_COMMANDS: overrides.mcpCommands,
    }),
    validateResponses: true,
    authFailuresPerMinute: overrides.authFailuresPerMinute,
    ...(overrides.trustProxy ? { trustProxy: overrides.trustProxy } : {}),
    ...(overrides.streamTimings ? { streamTimings: overrides.streamTimings } : {}),
    ...(overrides.uploadLimits ? { uploadLimits: overrides.uploadLimits } : {}),
    ...(overrides.logger ? { logger: overrides.logger } : {}),
    ...(overrides.connectorSourceInstalls
      ? {
          connectorSourceInstalls:
            overrides.connectorSourceInstalls === true
              ? testSourceInstalls()
              : overrides.connectorSourceInstalls,
        }
      : {}),
    ...(overrides.messageRateLimit !== undefined ? { messageRateLimit: overrides.messageRateLimit } : {}),
  };
}

/** The gateway on a real port over a fresh database, the way `svc server` assembles it. */
export async function startTestServer(overrides: TestServerOverrides = {}): Promise<TestServer> {
  const databaseUrl = overrides.databaseUrl ?? (await createTestDatabase());
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  await migrate(pool);
  await ensureOrg({ pool }, 'default', 'Default');
  const basePath = overrides.basePath ?? '';
  const options = testAppOptions(pool, overrides);
  const { app, routes, registry } = await buildApp(options);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const workers = overrides.workers
    ? await startTurnWorkers({
        pool,
        secrets: options.secrets,
        env: overrides.secretEnv ?? {},
        log: app.log,
        concurrency: 2,
        pollMs: 200,
        metrics: createTurnMetrics(registry),
        egress: options.egress,
        ...overrides.workers,
      })
    : null;
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}${basePath}`;
  const server: TestServer = {
    app,
    url,
    pool,
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
    async close() {
      await workers?.close(2000);
      await app.close();
      await pool.end();
    },
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
