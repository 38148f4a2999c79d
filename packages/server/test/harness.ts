import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { migrate } from '../src/db/migrate.js';
import { buildApp, type RegisteredRoute } from '../src/http/app.js';
import type { App } from '../src/http/types.js';
import { ensureOrg } from '../src/orgs/routes.js';

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

export const ADMIN_PASSWORD = 'test-admin-password-0123456789';

export interface TestServer {
  app: App;
  url: string;
  pool: pg.Pool;
  routes: () => RegisteredRoute[];
  /** Sends a request; `token` defaults to the admin password, `null` sends no Authorization. */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; token?: string | null; headers?: Record<string, string>; raw?: string },
  ): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

/** The gateway on a real port over a fresh database, the way `svc server` assembles it. */
export async function startTestServer(
  overrides: {
    basePath?: string;
    secretEnv?: Record<string, string | undefined>;
    databaseUrl?: string;
    authFailuresPerMinute?: number;
  } = {},
): Promise<TestServer> {
  const databaseUrl = overrides.databaseUrl ?? (await createTestDatabase());
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  await migrate(pool);
  await ensureOrg({ pool }, 'default', 'Default');
  const basePath = overrides.basePath ?? '';
  const { app, routes } = await buildApp({
    pool,
    basePath,
    adminPassword: ADMIN_PASSWORD,
    secretEnv: overrides.secretEnv ?? {},
    validateResponses: true,
    authFailuresPerMinute: overrides.authFailuresPerMinute,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}${basePath}`;
  const server: TestServer = {
    app,
    url,
    pool,
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
