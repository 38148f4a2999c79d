import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    /** A database with every migration applied, that test databases are copies of. */
    templateDatabase: string;
  }
}

/**
 * One PostgreSQL for the whole run: the system one when TEST_DATABASE_URL is set (CI), otherwise
 * an embedded one in a temporary directory. Each test file then makes its own database in it, a
 * copy of one migrated here once (migrating each took about a second of the suite's time).
 */
export default async function setup(project: TestProject) {
  let stop = async () => {};
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dir = await mkdtemp(join(tmpdir(), 'svc-test-pg-'));
    const embedded = await startEmbeddedPostgres(dir, () => {});
    adminUrl = embedded.url;
    stop = async () => {
      await embedded.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }
  const template = `svc_test_template_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${template}`);
  const url = new URL(adminUrl);
  url.pathname = `/${template}`;
  // A copy is refused while anyone is connected to its template: the pool ends before any test.
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', template);
  return async () => {
    await admin(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => {});
    await stop();
  };
}
