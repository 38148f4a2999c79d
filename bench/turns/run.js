// Turns at a real model's latency: N conversations posted at once to `svc server` processes
// started exactly as an operator starts them (the built CLI, default settings), answered by a
// model on 127.0.0.1 that streams 20 deltas over MODEL_MS. The floor is the model's own time: a
// process that runs every turn at once finishes the last one a little after MODEL_MS.
//
//   BENCH_CONVERSATIONS  conversations (default 500; --quick: 20)
//   MODEL_MS             the model's time per reply (default 2000; --quick: 300)
//   BENCH_DATABASE_URL   PostgreSQL to use (else an embedded one)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { postgresCpuMs, processCpuMs } from '../lib/cpu.js';
import {
  adminDatabaseUrl,
  createDatabase,
  onCleanup,
  progress,
  runBench,
  tempDir,
} from '../lib/environment.js';
import { startSlowModel } from './model.js';

const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS) || (quick ? 20 : 500);
const MODEL_MS = Number(process.env.MODEL_MS) || (quick ? 300 : 2000);
const STREAMS = process.env.BENCH_STREAMS !== '0';
const PASSWORD = 'bench-admin-password-0123456789';
const root = new URL('../../', import.meta.url).pathname;

/** `svc <args>` from the build, as a process of its own; `ready` resolves its URL once it listens. */
function startSvcProcess(args, env) {
  // BENCH_CPU_PROF=1: each svc process writes a .cpuprofile into BENCH_CPU_PROF_DIR (default .prof).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR || '.prof'}`]
    : [];
  const child = spawn(process.execPath, [...profile, join(root, 'packages/cli/dist/bin.js'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk) => {
    output += chunk;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
    });
  onCleanup(stop);
  const ready = new Promise((resolve, reject) => {
    const check = () => {
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) return resolve(url);
      if (/svc worker running/.test(output)) return resolve(null);
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => reject(new Error(`svc ${args[0]} exited ${code}:\n${output}`)));
  });
  return { child, ready, stop, output: () => output };
}

/** Resident memory of a process, from /proc (bytes). */
function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

async function call(base, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${PASSWORD}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** Reads a conversation's stream until `reply.completed` (or `reply.failed`, which is an error). */
async function untilCompleted(url, signal) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${PASSWORD}` }, signal });
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const type = /^event: (.+)$/m.exec(frame)?.[1];
      if (type === 'reply.completed') {
        const at = performance.now();
        res.body.cancel().catch(() => {});
        return at;
      }
      if (type === 'reply.failed') throw new Error(`a turn failed: ${frame}`);
      end = buffer.indexOf('\n\n');
    }
  }
  throw new Error(`the stream ${url} ended before reply.completed`);
}

/**
 * BENCH_STREAMS=0: when each reply completed, as its row says (completed_at, on this machine's
 * clock), read by one query every 20 ms instead of one event stream per conversation: what the
 * turns cost without the streams' fan-out.
 */
function completionsFromDatabase(client) {
  const offset = Date.now() - performance.now();
  const waiting = new Map();
  let stopped = false;
  (async () => {
    while (!stopped) {
      if (waiting.size > 0) {
        const { rows } = await client.query(
          `SELECT id, status, extract(epoch FROM completed_at) * 1000 AS at FROM messages
            WHERE id = ANY($1::uuid[]) AND status IN ('completed', 'failed')`,
          [[...waiting.keys()]],
        );
        for (const row of rows) {
          const { resolve, reject } = waiting.get(row.id);
          waiting.delete(row.id);
          if (row.status === 'failed') reject(new Error(`a turn failed: message ${row.id}`));
          else resolve(Number(row.at) - offset);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    of: (id) => new Promise((resolve, reject) => waiting.set(id, { resolve, reject })),
    stop: () => {
      stopped = true;
    },
  };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/**
 * One deployment: `servers` svc servers (each with its own turn workers, default settings) and
 * `workers` svc workers, on a fresh database; N conversations posted at once, round-robin over
 * the servers, each read from its event stream until its reply completed.
 */
async function scenario(label, adminUrl, { servers, workers }) {
  const databaseUrl = await createDatabase(adminUrl, { prefix: 'svc_bench_turns' });
  const model = await startSlowModel({ modelMs: MODEL_MS, deltas: Number(process.env.BENCH_DELTAS) || 20 });
  onCleanup(model.close);
  const env = {
    DATABASE_URL: databaseUrl,
    SVC_ADMIN_PASSWORD: PASSWORD,
    SVC_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SVC_PROVIDER_OPENAI_BASE_URL: model.url,
    SVC_EGRESS_ALLOW: '127.0.0.1',
    OPENAI_API_KEY: 'sk-bench',
    SVC_SECRETS_FROM_ENV: 'OPENAI_API_KEY',
    // 500 messages from one token in a second: the per-token limit is a deployment's choice.
    SVC_MESSAGES_RATE_LIMIT: 'off',
    SVC_LOG_LEVEL: 'warn',
  };
  const started = [];
  for (let i = 0; i < servers; i++) {
    started.push(
      startSvcProcess(['server', '--port', '0', '--host', '127.0.0.1'], {
        ...env,
        SVC_DATA_DIR: await tempDir('svc-bench-turns-'),
      }),
    );
    // The first one migrates the database; the others start on it.
    if (i === 0) await started[0].ready;
  }
  for (let i = 0; i < workers; i++) {
    started.push(startSvcProcess(['worker'], { ...env, SVC_DATA_DIR: await tempDir('svc-bench-turns-') }));
  }
  const urls = (await Promise.all(started.map((s) => s.ready))).filter(Boolean);
  await call(urls[0], 'POST', '/api/default/agents', {
    agentId: 'bench',
    name: 'Bench',
    providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
  });

  // A server answers its first turns with cold code (the JIT has not compiled the model stream's
  // path yet): a production server is warm, so a round of turns goes first, unmeasured.
  const warmUp = Math.min(Number(process.env.BENCH_WARMUP ?? 50), CONVERSATIONS);
  progress(`${label}: warming up with ${warmUp} conversations`);
  await Promise.all(
    Array.from({ length: warmUp }, async (_, i) => {
      const base = urls[i % urls.length];
      const accepted = await call(base, 'POST', '/api/v1/agents/bench/messages', {
        platform: 'api',
        channel: `warm-up-${i}`,
        content: `[w${i}] hello`,
      });
      await untilCompleted(new URL(accepted.links.events, base), new AbortController().signal);
    }),
  );

  // Database connections of this deployment, sampled through the run.
  let sampling = true;
  const watcher = new pg.Client({ connectionString: databaseUrl });
  await watcher.connect();
  onCleanup(() => {
    sampling = false;
    return watcher.end();
  });
  const name = new URL(databaseUrl).pathname.slice(1);
  let connectionsPeak = { open: 0, active: 0 };
  let rssPeak = 0;
  const pids = started.map((s) => s.child.pid);
  const idleRss = pids.map(rssOf);
  const queries = new Map();
  const sample = async () => {
    while (sampling) {
      const { rows } = await watcher.query(
        `SELECT count(*)::int AS open, count(*) FILTER (WHERE state NOT IN ('idle'))::int AS active
           FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [name],
      );
      connectionsPeak = {
        open: Math.max(connectionsPeak.open, rows[0].open),
        active: Math.max(connectionsPeak.active, rows[0].active),
      };
      rssPeak = Math.max(rssPeak, rssOf(pids[0]));
      if (process.env.BENCH_TRACE) {
        const { rows: active } = await watcher.query(
          `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS q FROM pg_stat_activity
            WHERE datname = $1 AND pid <> pg_backend_pid() AND state <> 'idle'`,
          [name],
        );
        for (const { q } of active) queries.set(q, (queries.get(q) ?? 0) + 1);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  // A failed run stops sampling at cleanup; its last query may fail as the database goes away.
  const sampler = sample().catch((error) => {
    if (sampling) throw error;
  });

  // CPU used for the run (svc's processes, and PostgreSQL's backends of this database): the figure
  // that holds on a machine busy with other work, where wall times swing.
  const svcCpuBefore = pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const postgresBefore = postgresCpuMs(name);
  progress(`${label}: posting ${CONVERSATIONS} conversations at once (model: ${MODEL_MS} ms per reply)`);
  model.resetPeak();
  const stop = new AbortController();
  const completions = completionsFromDatabase(watcher);
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from({ length: CONVERSATIONS }, async (_, i) => {
      const base = urls[i % urls.length];
      const posted = performance.now();
      const accepted = await call(base, 'POST', '/api/v1/agents/bench/messages', {
        platform: 'api',
        channel: `bench-${i}`,
        content: `[c${i}] hello`,
      });
      const acceptedAt = performance.now();
      const completedAt = STREAMS
        ? await untilCompleted(new URL(accepted.links.events, base), stop.signal)
        : await completions.of(accepted.id);
      return { tag: `c${i}`, posted, acceptedAt, completedAt };
    }),
  );
  completions.stop();
  const wall = performance.now() - t0;
  sampling = false;
  await sampler;
  const svcCpu = pids.reduce((sum, pid) => sum + processCpuMs(pid), 0) - svcCpuBefore;
  const postgresAfter = postgresCpuMs(name);
  let backendCpu = 0;
  for (const [pid, ms] of postgresAfter ?? []) backendCpu += ms - (postgresBefore?.get(pid) ?? 0);
  // The next scenario gets the machine to itself.
  await Promise.all(started.map((s) => s.stop()));

  const overheads = results.map(({ tag, posted, completedAt }) => {
    const modelCall = model.calls.get(tag);
    if (!modelCall) throw new Error(`the model never answered ${tag}`);
    return completedAt - posted - (modelCall.endedAt - modelCall.startedAt);
  });
  const running = Math.max(1, model.peak);
  if (process.env.BENCH_TRACE) {
    console.log([...queries].sort((a, b) => b[1] - a[1]).slice(0, 15));
    for (const r of results.slice(0, 5)) {
      const m = model.calls.get(r.tag);
      console.log(
        r.tag,
        'accepted',
        (r.acceptedAt - r.posted).toFixed(0),
        'model start',
        (m.startedAt - r.posted).toFixed(0),
        'model end',
        (m.endedAt - r.posted).toFixed(0),
        'completed',
        (r.completedAt - r.posted).toFixed(0),
      );
    }
  }
  return {
    label,
    wall,
    peak: model.peak,
    turnsPerSecond: CONVERSATIONS / (wall / 1000),
    overheadP50: percentile(overheads, 50),
    overheadP99: percentile(overheads, 99),
    rssPerTurn: (rssPeak - idleRss[0]) / Math.min(running, Math.ceil(CONVERSATIONS / urls.length)),
    rssIdle: idleRss[0],
    rssPeak,
    connections: connectionsPeak,
    svcCpuPerTurn: svcCpu / CONVERSATIONS,
    backendCpuPerTurn: backendCpu / CONVERSATIONS,
  };
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KB`;

function print(r) {
  console.log(`\n${r.label}`);
  console.log(
    `  wall time to the last reply.completed  ${(r.wall / 1000).toFixed(2)} s   floor (the model's time) ${(MODEL_MS / 1000).toFixed(2)} s   ratio ${(r.wall / MODEL_MS).toFixed(2)}×  (aim ≤ 1.5×)`,
  );
  console.log(`  peak model calls at once               ${r.peak} of ${CONVERSATIONS}`);
  console.log(`  turns/s                                ${r.turnsPerSecond.toFixed(0)}`);
  console.log(
    `  overhead (POST → reply.completed, minus the model's time)  p50 ${r.overheadP50.toFixed(0)} ms   p99 ${r.overheadP99.toFixed(0)} ms  (aim p99 < 50 ms)`,
  );
  console.log(
    `  first server's RSS                     idle ${mb(r.rssIdle)}, peak ${mb(r.rssPeak)}: ${kb(r.rssPerTurn)} per running turn`,
  );
  console.log(
    `  database connections (all processes)   peak open ${r.connections.open}, peak in use ${r.connections.active}`,
  );
  console.log(
    `  CPU per turn                           svc ${r.svcCpuPerTurn.toFixed(2)} ms, PostgreSQL ${r.backendCpuPerTurn.toFixed(2)} ms`,
  );
}

runBench(async () => {
  const { url: adminUrl, source } = await adminDatabaseUrl();
  progress(`PostgreSQL: ${source}${quick ? '; quick size' : ''}`);
  print(await scenario('1 svc server, default settings', adminUrl, { servers: 1, workers: 0 }));
  print(await scenario('2 svc server + 1 svc worker, one database', adminUrl, { servers: 2, workers: 1 }));
});
