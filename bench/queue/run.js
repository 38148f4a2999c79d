import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { Logger, makeWorkerUtils, run as runGraphile } from 'graphile-worker';
import pg from 'pg';
import { installedSourceFile } from '../../packages/server/dist/connectors/compile.js';
import { runInSandbox } from '../../packages/server/dist/connectors/sandbox.js';
import { claimRun, finishRun, RUNS_CHANNEL } from '../../packages/server/dist/runs/queue.js';
import { connectorSource, startConnectorSvc } from '../lib/connectors.js';
import {
  adminDatabaseUrl,
  createDatabase,
  onCleanup,
  percentile,
  printFigure,
  progress,
  QUICK,
  runBench,
  size,
} from '../lib/environment.js';

// --quick, BENCH_QUICK=1: the quick size, 200 runs a queue figure, 8 connections, 3 s of warm-up
// and a 3 s window end to end, one fresh child (seconds in all; every step and check, figures that
// mean nothing).

/** Runs (and jobs) of the queue-alone figures. */
const RUNS = size('BENCH_RUNS', 5000, 200);
/** Seconds of each end-to-end figure, and the runs queued for it (more than can end in it). */
const WINDOW_S = size('BENCH_WINDOW', 15, 3);
// More than the workers end in WARM_S + WINDOW_S on an idle machine (about 450 runs/s here at 8 connections).
const QUEUED = QUICK ? 10_000 : 20_000;
/** Seconds the workers run before a window opens: children started, and kept where they are. */
const WARM_S = QUICK ? 3 : 5;
/** Fresh connector children timed, one at a time. */
const FRESH_CHILDREN = QUICK ? 1 : 5;
const LOOPS = 4;
const CONNECTIONS = QUICK ? 8 : 20;
/** The connections of the end-to-end figure whose children are kept between runs. */
const FEW = LOOPS;
const POOL_SIZE = 10; // graphile-worker's default

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const perSecond = (count, ms) => count / (ms / 1000);

/** `count` pending action runs (`ping`), round robin over `connections`, made in one statement. */
async function insertActions(pool, orgId, connections, count) {
  await pool.query(
    `INSERT INTO runs (org_id, run_type, connection_id, connector_key, action_key, action_input)
     SELECT $1, 'action', ($2::bigint[])[1 + g % cardinality($2::bigint[])], 'queue', 'ping', '{}'
       FROM generate_series(0, $3 - 1) g ORDER BY g`,
    [orgId, connections, count],
  );
}

/** A pending sync for each feed of `feedKey` (one open sync a feed), made in one statement. */
async function insertSyncs(pool, orgId, feedKey) {
  await pool.query(
    `INSERT INTO runs (org_id, run_type, feed_id, connection_id, connector_key)
     SELECT $1, 'sync', f.id, f.connection_id, 'queue' FROM feeds f WHERE f.feed_key = $2 ORDER BY f.id`,
    [orgId, feedKey],
  );
}

/**
 * LOOPS loops, each claiming a run and finishing it as completed, until none is pending; with the
 * time spent in each call.
 */
async function drain(pool) {
  const started = performance.now();
  let done = 0;
  let claimMs = 0;
  let finishMs = 0;
  await Promise.all(
    Array.from({ length: LOOPS }, async (_, loop) => {
      for (;;) {
        const claiming = performance.now();
        const run = await claimRun(pool, `bench-loop-${loop}`, 30_000);
        claimMs += performance.now() - claiming;
        if (!run) return;
        const finishing = performance.now();
        await finishRun(pool, run, { status: 'completed' });
        finishMs += performance.now() - finishing;
        done++;
      }
    }),
  );
  return { ms: performance.now() - started, claimMs: claimMs / done, finishMs: finishMs / done };
}

/**
 * RUNS runs made by `make` (one statement) and drained, on a runs table vacuumed of
 * the last figure's (its claimed runs would lie dead at the head of the index of pending runs); the
 * planner's statistics are taken once they are queued, of `analyze` (a table, or all). Fails
 * unless all completed.
 */
async function queued(pool, { make, analyze }) {
  const count = RUNS;
  await pool.query('VACUUM runs');
  const before = await lastRunId(pool);
  await make(count);
  await pool.query(analyze === 'all' ? 'ANALYZE' : `ANALYZE ${analyze}`);
  const drained = await drain(pool);
  const { rows } = await pool.query(
    `SELECT count(*) FILTER (WHERE status = 'completed')::int AS completed, count(*)::int AS total
       FROM runs WHERE id > $1`,
    [before],
  );
  if (rows[0].completed !== count || rows[0].total !== count) {
    throw new Error(`runs: ${JSON.stringify(rows[0])}, not ${count} completed`);
  }
  return drained;
}

const lastRunId = async (pool) =>
  (await pool.query('SELECT coalesce(max(id), 0) AS id FROM runs')).rows[0].id;

/** graphile-worker over the same number of jobs, a no-op task, LOOPS at once, out of the box. */
async function graphile(connectionString) {
  const logger = new Logger(() => () => {});
  const utils = await makeWorkerUtils({ connectionString, logger });
  try {
    await utils.migrate();
    await utils.addJobs(Array.from({ length: RUNS }, (_, i) => ({ identifier: 'noop', payload: { i } })));
  } finally {
    await utils.release();
  }
  const check = new pg.Pool({ connectionString, max: 1 });
  onCleanup(() => check.end());
  await check.query('ANALYZE graphile_worker._private_jobs');
  const left = async () =>
    (await check.query('SELECT count(*)::int AS n FROM graphile_worker._private_jobs')).rows[0].n;
  let completed = 0;
  let failed = 0;
  let allRan;
  const ran = new Promise((resolve) => {
    allRan = resolve;
  });
  // Given to the runner, so that no job ends before anything listens.
  const events = new EventEmitter();
  events.on('job:complete', ({ error }) => {
    if (error) failed++;
    if (++completed === RUNS) allRan();
  });
  const started = performance.now();
  const runner = await runGraphile({
    connectionString,
    concurrency: LOOPS,
    maxPoolSize: POOL_SIZE,
    noHandleSignals: true,
    logger,
    events,
    taskList: { noop: async () => {} },
  });
  await ran;
  // A job is deleted (its completion) after its task's `job:complete`: done once none is left.
  while ((await left()) > 0) await sleep(5);
  const ms = performance.now() - started;
  await runner.stop();
  if (failed > 0) throw new Error(`graphile-worker: ${failed} jobs failed`);
  return { ms };
}

/**
 * Action runs executed by the run workers, each in a connector child: more runs are queued than
 * can end in time, the workers run WARM_S seconds, then the runs completed in the next WINDOW_S
 * (by the database's clock) are counted; those still pending then are cancelled.
 */
async function executed(pool, orgId, connections) {
  const before = await lastRunId(pool);
  await insertActions(pool, orgId, connections, QUEUED);
  await pool.query(`SELECT pg_notify('${RUNS_CHANNEL}', '')`);
  await sleep(WARM_S * 1000);
  const { rows: start } = await pool.query('SELECT clock_timestamp() AS at');
  const { started } = await childrenStartedDuring(async () => {
    await sleep(WINDOW_S * 1000);
    // At the quick size the window stays open until a run has completed (60 s at most): on a busy
    // machine the first children may take longer than it to start, and no run would prove nothing.
    for (let waited = 0; QUICK && waited < 60_000; waited += 100) {
      const { rowCount } = await pool.query(
        "SELECT 1 FROM runs WHERE id > $1 AND status = 'completed' AND completed_at > $2 LIMIT 1",
        [before, start[0].at],
      );
      if (rowCount > 0) break;
      await sleep(100);
    }
  });
  const { rows: end } = await pool.query(
    `UPDATE runs SET status = 'cancelled', completed_at = now(), error_message = 'the benchmark window closed'
      WHERE id > $1 AND status = 'pending' RETURNING clock_timestamp() AS at`,
    [before],
  );
  if (end.length === 0) throw new Error(`all ${QUEUED} runs ended within ${WINDOW_S} s: queue more`);
  // The runs under way end before the next figure starts.
  while (
    (await pool.query("SELECT 1 FROM runs WHERE id > $1 AND status = 'running'", [before])).rowCount > 0
  ) {
    await sleep(50);
  }
  const { rows } = await pool.query(
    `SELECT status, error_message, extract(epoch FROM completed_at - claimed_at)::float8 * 1000 AS ms
       FROM runs WHERE id > $1 AND claimed_at IS NOT NULL AND completed_at > $2 AND completed_at <= $3`,
    [before, start[0].at, end[0].at],
  );
  const failed = rows.filter((row) => row.status !== 'completed');
  if (failed.length > 0)
    throw new Error(`${failed.length} runs did not complete: ${failed[0].error_message}`);
  if (rows.length === 0) throw new Error(`no run completed within ${WINDOW_S} s`);
  const ms = end[0].at - start[0].at;
  const took = rows.map((row) => row.ms);
  return { count: rows.length, ms, p50: percentile(took, 50), p90: percentile(took, 90), started };
}

/** The pids of this process's connector children now, by `ps`; null where there is no `ps`. */
async function connectorChildren() {
  const listed = await promisify(execFile)('ps', ['-A', '-o', 'pid=,ppid=,args=']).catch(() => null);
  if (!listed) return null;
  const pids = new Set();
  for (const line of listed.stdout.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/);
    if (Number(ppid) === process.pid && line.includes('connectors/child.js')) pids.add(pid);
  }
  return pids;
}

/**
 * How many connector children were started during `work`, polling `ps`: a child lives at least as
 * long as its run and a fresh one takes a second or more to start, so none that counts is missed.
 */
async function childrenStartedDuring(work) {
  const before = await connectorChildren();
  if (!before) return { started: null };
  const started = new Set();
  let polling = true;
  const poll = (async () => {
    while (polling) {
      for (const pid of (await connectorChildren()) ?? []) if (!before.has(pid)) started.add(pid);
      await sleep(100);
    }
  })();
  await work();
  polling = false;
  await poll;
  return { started: started.size };
}

/** A fresh child to its first answer (Node, the TypeScript loader, the SDK, the connector), in turn. */
async function freshChildMs(source) {
  const module = { file: await installedSourceFile(source), name: 'queue' };
  const times = [];
  for (let i = 0; i < FRESH_CHILDREN; i++) {
    const started = performance.now();
    await runInSandbox(
      { task: 'definition', module },
      { timeoutMs: 60_000, memoryMb: 256, unsandboxedSource: true },
      dirname(module.file),
    );
    times.push(performance.now() - started);
  }
  return percentile(times, 50);
}

async function main() {
  const admin = await adminDatabaseUrl();
  const databaseUrl = await createDatabase(admin.url, { prefix: 'svc_bench_queue' });
  const svc = await startConnectorSvc(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE });
  onCleanup(() => pool.end());

  progress(`installing the connector "queue" and making ${CONNECTIONS + FEW} connections`);
  const source = connectorSource('queue');
  await svc.install(source);
  const connections = [];
  for (let i = 0; i < CONNECTIONS + FEW; i++) connections.push((await svc.connect('queue')).connectionId);
  const many = connections.slice(0, CONNECTIONS);
  const { rows: orgs } = await pool.query("SELECT id FROM orgs WHERE slug = 'default'");
  const orgId = orgs[0].id;
  // RUNS more feeds, for RUNS open syncs (one a feed), spread over the same connections.
  await pool.query(
    `INSERT INTO feeds (org_id, connection_id, feed_key, sync_interval_ms)
     SELECT $1, ($2::bigint[])[1 + g % cardinality($2::bigint[])], 'bench', 3600000 FROM generate_series(0, $3 - 1) g`,
    [orgId, many, RUNS],
  );
  // Synced when the benchmark asks, not when a scheduler finds them due.
  await pool.query(`UPDATE feeds SET next_sync_at = now() + interval '1 day'`);

  progress(`graphile-worker: ${RUNS} jobs of a no-op task, concurrency ${LOOPS}`);
  const baselineFirst = await graphile(databaseUrl);

  progress(`the queue alone: ${RUNS} runs at a time, ${LOOPS} loops of claimRun and finishRun`);
  const actions = (analyze) => ({ make: (n) => insertActions(pool, orgId, many, n), analyze });
  // As autovacuum leaves them: runs analyzed after the inserts; connections, fewer rows than its
  // threshold (50 changed), never.
  const asLeft = await queued(pool, actions('runs'));
  const analyzed = await queued(pool, actions('all'));
  const syncs = await queued(pool, { make: () => insertSyncs(pool, orgId, 'bench'), analyze: 'all' });

  // Once more, after svc's figures: the machine's load may have moved; the faster is the baseline.
  progress(`graphile-worker again`);
  const baselineLast = await graphile(databaseUrl);
  const baseline = { ms: Math.min(baselineFirst.ms, baselineLast.ms) };

  progress(`a fresh connector child, ${FRESH_CHILDREN} times`);
  const childMs = await freshChildMs(source);
  progress(
    `end to end: action runs on the run workers for ${WINDOW_S} s over ${CONNECTIONS} connections, then ${FEW}`,
  );
  await svc.startRunWorkers({ concurrency: LOOPS, pollMs: 1000, leaseMs: 30_000 }, POOL_SIZE);
  await sleep(QUICK ? 200 : 2000); // the child started ahead is up, as on a worker that has been running
  const spread = await executed(pool, orgId, many);
  const few = await executed(pool, orgId, connections.slice(CONNECTIONS));

  const baseRate = perSecond(RUNS, baseline.ms);
  const queueFigures = (name, drained) => {
    printFigure(name, perSecond(RUNS, drained.ms).toFixed(0), `${baseRate.toFixed(0)} graphile-worker`);
    printFigure('  ratio svc/graphile-worker', (perSecond(RUNS, drained.ms) / baseRate).toFixed(2));
    printFigure(
      '  ms a run: claimRun, then finishing',
      `${drained.claimMs.toFixed(1)}, ${drained.finishMs.toFixed(1)}`,
    );
  };
  console.log('');
  printFigure(
    'graphile-worker jobs/s, first and last',
    `${perSecond(RUNS, baselineFirst.ms).toFixed(0)}, ${perSecond(RUNS, baselineLast.ms).toFixed(0)}`,
  );
  queueFigures('runs/s, queue alone, actions, runs analyzed', asLeft);
  queueFigures('runs/s, queue alone, actions, all analyzed', analyzed);
  queueFigures('runs/s, queue alone, syncs, all analyzed', syncs);
  printFigure('ms, a fresh connector child to its answer', childMs.toFixed(0));
  for (const [name, figure] of [
    [`${CONNECTIONS} connections`, spread],
    [`${FEW} connections`, few],
  ]) {
    printFigure(`runs/s executed, ${name}`, perSecond(figure.count, figure.ms).toFixed(1));
    printFigure('  runs completed in the window', figure.count);
    printFigure(
      '  run claimed to completed p50, p90 ms',
      `${figure.p50.toFixed(0)}, ${figure.p90.toFixed(0)}`,
    );
    printFigure('  connector children started in the window', figure.started ?? '(no ps)');
  }
  console.log(
    `\n${RUNS} runs and jobs a queue figure, ${WINDOW_S} s an executed one; ${LOOPS} loops, workers or ` +
      `graphile-worker concurrency; pools of ${POOL_SIZE}; ${admin.source}; node ${process.version}; ` +
      'all in this process tree',
  );
}

await runBench(main);
