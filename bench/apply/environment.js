// Everything the apply benchmark runs against: a fresh database, the svc server in a child process
// (which migrates it and makes the org `default`), the recording proxy in front of it, an API
// token, and a temp folder for the generated project. `setUp` builds it; `tearDown` removes it, however the run ends.
//
// The database recipe is bench/lib/environment.js, shared with bench/api.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { adminDatabaseUrl, createDatabase, onCleanup } from '../lib/environment.js';
import { startRecordingProxy } from './proxy.js';

export { progress, tearDown, tempDir } from '../lib/environment.js';

/** The PostgreSQL version, for the summary (the server migrates the database as it starts). */
async function serverVersion(databaseUrl) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const { rows } = await pool.query('SHOW server_version');
    return rows[0].server_version;
  } finally {
    await pool.end();
  }
}

// ---- the server --------------------------------------------------------------------------------

/** Forks serve.js; answers its base URL once it listens. */
async function startServer(env) {
  const child = fork(fileURLToPath(new URL('./serve.js', import.meta.url)), [], {
    env: { ...process.env, ...env },
  });
  const port = await new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.port));
    child.once('exit', (code) =>
      reject(new Error(`the svc server exited with code ${code} before listening`)),
    );
  });
  onCleanup(() => stopServer(child));
  return { url: `http://127.0.0.1:${port}`, cpuTime: () => cpuTime(child) };
}

/** The child's CPU time so far, in ms. */
function cpuTime(child) {
  return new Promise((resolve) => {
    child.once('message', ({ cpu }) => resolve((cpu.user + cpu.system) / 1000));
    child.send('cpu');
  });
}

/** Asks the child to close gracefully; kills it if it hangs. */
function stopServer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.send('stop');
  });
}

/** A write+read API token, made through the API with the admin password as an operator would. */
async function createToken(svcUrl, adminPassword) {
  const response = await fetch(`${svcUrl}/api/default/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminPassword}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-apply', scopes: ['write', 'read'] }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST /api/default/tokens answered ${response.status}: ${text}`);
  return JSON.parse(text).secret;
}

// ---- all of it ---------------------------------------------------------------------------------

/**
 * Database, server (pg Pool of `poolSize`, resolving platform secrets in `secretEnv`), token and
 * recording proxy. Answers the server, the proxy, the token and which PostgreSQL it is.
 */
export async function setUp({ poolSize, secretEnv }) {
  const admin = await adminDatabaseUrl();
  const databaseUrl = await createDatabase(admin.url, { prefix: 'svc_bench_apply' });
  const version = await serverVersion(databaseUrl);
  const adminPassword = randomBytes(24).toString('base64url');
  const server = await startServer({
    BENCH_DB_URL: databaseUrl,
    BENCH_POOL_SIZE: String(poolSize),
    BENCH_ADMIN: adminPassword,
    BENCH_SECRET_ENV: JSON.stringify(secretEnv),
  });
  // Straight to the server: the token is set-up, not part of what the proxy counts.
  const token = await createToken(server.url, adminPassword);
  const proxy = await startRecordingProxy(server.url);
  onCleanup(() => proxy.close());
  return { server, proxy, token, database: `${admin.source} ${version}` };
}
