// What every benchmark needs around it: progress lines, cleanup that runs however the run ends,
// temp folders, and a fresh database on the given or an embedded PostgreSQL.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../packages/server/dist/db/embedded.js';

export const progress = (line) => process.stderr.write(`· ${line}\n`);

/**
 * The quick size (`--quick` or BENCH_QUICK=1): a run of seconds that goes through every step and
 * every check with small numbers, so that `npm run test:e2e` keeps each bench working. Its figures
 * mean nothing; the full size is for people.
 */
export const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';

/** `full`, or `quick` at the quick size; an environment variable, when set, wins over both. */
export const size = (variable, full, quick) =>
  process.env[variable] ? Number(process.env[variable]) : QUICK ? quick : full;

/** Steps that undo what set-up did, run last-first by `tearDown`. */
const cleanups = [];
export const onCleanup = (step) => cleanups.push(step);
export async function tearDown() {
  for (const step of cleanups.splice(0).reverse()) {
    await step().catch((error) => console.error('cleanup step failed:', error));
  }
}

/** A temp folder removed at the end of the run. */
export async function tempDir(prefix) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A URL to a database that may create databases: the given one, or an embedded PostgreSQL. */
export async function adminDatabaseUrl() {
  const given = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL;
  if (given) return { url: given, source: 'DATABASE_URL' };
  const dir = await tempDir('svc-bench-pg-');
  progress(`starting embedded PostgreSQL in ${dir}`);
  const started = await startEmbeddedPostgres(dir, () => {});
  onCleanup(started.stop);
  return { url: started.url, source: 'embedded PostgreSQL' };
}

/**
 * A fresh database for this run, so earlier runs' rows never skew it; dropped at the end.
 * `synchronousCommit`, when given, is set on this database only, before anything connects to it.
 */
export async function createDatabase(adminUrl, { prefix = 'svc_bench', synchronousCommit } = {}) {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = async (sql) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  // BENCH_KEEP_DATABASE=1 leaves it on a given DATABASE_URL, for EXPLAIN ANALYZE after the run.
  if (process.env.BENCH_KEEP_DATABASE === '1') progress(`keeping database ${name}`);
  else onCleanup(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  if (synchronousCommit !== undefined) {
    if (!['on', 'off'].includes(synchronousCommit)) throw new Error('synchronous_commit must be on or off');
    await admin(`ALTER DATABASE ${name} SET synchronous_commit = ${synchronousCommit}`);
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs a benchmark's `main`: exit code 1 on failure, and cleanup on every ending, Ctrl-C included. */
export async function runBench(main) {
  // Embedded PostgreSQL runs detached, so a Ctrl-C must still go through cleanup to stop it.
  process.once('SIGINT', () => {
    progress('interrupted; cleaning up');
    tearDown().finally(() => process.exit(130));
  });
  try {
    await main();
  } catch (error) {
    console.error('\nBENCHMARK FAILED:', error);
    process.exitCode = 1;
  } finally {
    await tearDown();
  }
}

/** One figure of a run, its baseline (measured in the same run) beside it when there is one. */
export const printFigure = (name, value, baseline) =>
  console.log(
    `${name.padEnd(44)} ${String(value).padStart(10)}` +
      (baseline === undefined ? '' : `   baseline ${String(baseline).padStart(10)}`),
  );

/** svc's rate over the baseline's, the figure the aims are written in. */
export const printRatio = (svc, baseline) => printFigure('ratio svc/bare', (svc / baseline).toFixed(2));

/**
 * Forks a bench's server (`serve`, its serve.js URL) in `mode`; answers its URL, and `ask`, which
 * sends the child a question and resolves its answer (`memory`, `turns`).
 */
export async function startChild(serve, mode, env, execArgv = []) {
  const child = fork(fileURLToPath(serve), [], {
    env: { ...process.env, BENCH_MODE: mode, ...env },
    execArgv,
  });
  const port = await new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`the ${mode} server exited with code ${code}`)));
  });
  onCleanup(
    () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  );
  const ask = (question) =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send(question);
    });
  return { url: `http://127.0.0.1:${port}`, ask };
}

/** The p-th percentile of `values` (nearest rank). */
export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
