// Everything the benchmark runs against: a fresh database, the svc and bare servers (one child
// process each), an API token and the seeded agents. `setUp` builds it; `tearDown` removes it.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { adminDatabaseUrl, createDatabase, onCleanup, progress } from '../lib/environment.js';
import { checkSameShape, seedThroughApi, seedThroughSql } from './seed.js';

export { progress, tearDown } from '../lib/environment.js';

/** The id of org `default`, which the svc server made as it started (the bare app resolves no org). */
async function defaultOrgId(pool) {
  const { rows } = await pool.query("SELECT id FROM orgs WHERE slug = 'default'");
  return String(rows[0].id);
}

// ---- the two servers ---------------------------------------------------------------------------

/** Forks serve.js as `role`; answers its base URL once it listens, and a way to wait for it to idle. */
async function startServer(role, env) {
  const profiling = process.env.BENCH_CPU_PROF === '1';
  const profileDir = fileURLToPath(new URL('./profiles/', import.meta.url));
  const child = fork(fileURLToPath(new URL('./serve.js', import.meta.url)), [], {
    env: { ...process.env, BENCH_ROLE: role, ...env },
    execArgv: profiling
      ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${role}.cpuprofile`]
      : [],
  });
  const port = await new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.port));
    child.once('exit', (code) =>
      reject(new Error(`the ${role} server exited with code ${code} before listening`)),
    );
  });
  onCleanup(() => stopServer(child));
  return { url: `http://127.0.0.1:${port}`, settle: () => settle(child), cpuTime: () => cpuTime(child) };
}

/** The child's CPU time so far, in ms; it answers from its event loop, so a busy child answers late. */
function cpuTime(child) {
  return new Promise((resolve) => {
    child.once('message', ({ cpu }) => resolve((cpu.user + cpu.system) / 1000));
    child.send('cpu');
  });
}

/**
 * Waits until the child has used under 5% of a CPU for two 250 ms windows in a row. When autocannon
 * stops it drops the requests in flight, but the server still runs them to the end (for the list
 * scenario, 50 of them are seconds of work): without this, that leftover would be billed to the
 * next measurement, which is the other server's.
 */
async function settle(child) {
  const window = 250;
  let quiet = 0;
  let before = await cpuTime(child);
  while (quiet < 2) {
    await new Promise((resolve) => setTimeout(resolve, window));
    const now = await cpuTime(child);
    quiet = now - before < window * 0.05 ? quiet + 1 : 0;
    before = now;
  }
}

/** Asks the child to close gracefully (so a CPU profile gets written); kills it if it hangs. */
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

/** An HTTP helper bound to a server and bearer value; throws on anything but 2xx. */
function client(baseUrl, bearer) {
  return async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text);
  };
}

/** A write+read API token, made through the API with the admin password as an operator would. */
async function createToken(svcUrl, adminPassword) {
  const asAdmin = client(svcUrl, adminPassword);
  const { secret } = await asAdmin('POST', '/api/default/tokens', {
    name: 'bench',
    scopes: ['write', 'read'],
  });
  return secret;
}

// ---- all of it ---------------------------------------------------------------------------------

/**
 * Database, both servers with a pg Pool of `poolSize` each, a token and `agents` seeded agents.
 * Answers the servers (`url`, `settle()`, `cpuTime()`), the token, the database URL, and which
 * PostgreSQL it is.
 */
export async function setUp({ agents, poolSize, synchronousCommit }) {
  const admin = await adminDatabaseUrl();
  const databaseUrl = await createDatabase(admin.url, { synchronousCommit });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  onCleanup(() => pool.end());
  const adminPassword = randomBytes(24).toString('base64url');
  const shared = { BENCH_DB_URL: databaseUrl, BENCH_POOL_SIZE: String(poolSize) };
  // svc first: it migrates the database and makes the org `default`, as `svc server` does at boot.
  const svc = await startServer('svc', { ...shared, BENCH_ADMIN: adminPassword });
  const orgId = await defaultOrgId(pool);
  const bare = await startServer('bare', { ...shared, BENCH_ORG_ID: orgId });
  const token = await createToken(svc.url, adminPassword);

  progress(`seeding ${agents} agents`);
  const api = client(svc.url, token);
  await seedThroughApi(api, 0);
  await seedThroughSql(pool, orgId, 1, agents);
  await checkSameShape(api);

  const { rows } = await pool.query('SHOW server_version');
  const database = `${admin.source} ${rows[0].server_version}`;
  return { servers: { svc, bare }, token, databaseUrl, database };
}
