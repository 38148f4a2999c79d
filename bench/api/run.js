// API benchmark: svc against a bare Fastify + pg baseline, on the same PostgreSQL, in one run.
// See README.md for what it measures and how to read it. Run with `npm run bench:api`.
//
// Environment:
//   DATABASE_URL / BENCH_DATABASE_URL  a PostgreSQL to use (a fresh database is created in it and
//                                      dropped afterwards); unset: an embedded one in a temp dir
//   BENCH_DURATION                     seconds per measurement (default 10)
//   BENCH_CONNECTIONS                  autocannon connections (default 50)
//   BENCH_POOL_SIZE                    pg Pool size of both servers (default 20)
//   BENCH_SYNCHRONOUS_COMMIT=off       set on the run's database only: commits stop waiting for the
//                                      WAL flush, which otherwise bounds scenario 1 (see README.md)
//   BENCH_CPU_PROF=1                   write V8 CPU profiles of both servers to bench/api/profiles/
//   --quick, BENCH_QUICK=1             the quick size: 100 agents, 10 connections, 1 s runs after
//                                      1 s warm-ups (a few seconds in all; its figures mean nothing)
import autocannon from 'autocannon';
import { QUICK, runBench, size } from '../lib/environment.js';
import { progress, setUp } from './environment.js';
import { agentData } from './seed.js';

const DURATION = size('BENCH_DURATION', 10, 1);
const WARMUP = QUICK ? 1 : 2;
const CONNECTIONS = size('BENCH_CONNECTIONS', 50, 10);
const POOL_SIZE = size('BENCH_POOL_SIZE', 20, 20);
const AGENTS = QUICK ? 100 : 1000;
const SYNCHRONOUS_COMMIT = process.env.BENCH_SYNCHRONOUS_COMMIT || 'on';

// ---- scenarios ---------------------------------------------------------------------------------

/** Agent 0 exactly as seeded: every upsert of it is a no-op, so svc answers `unchanged`. */
const UPSERT_BODY = agentData(0).agent;

const SCENARIOS = [
  {
    name: 'upsert-unchanged',
    title: 'POST /api/default/agents, same body every time (answer: unchanged)',
    method: 'POST',
    path: '/api/default/agents',
    body: JSON.stringify(UPSERT_BODY),
    // Checked once before measuring, so that a fast wrong answer cannot pass for a fast right one.
    check: {
      svc: (body) => body.result === 'unchanged',
      bare: (row) => row.result === 'unchanged',
    },
  },
  {
    name: 'list-agents',
    title: `GET /api/default/agents?include=config,platforms (${AGENTS} agents)`,
    method: 'GET',
    path: '/api/default/agents?include=config,platforms',
    check: {
      svc: (body) => body.agents.length === AGENTS && body.agents.every((a) => a.platforms.length === 2),
      bare: (body) => body.agents.length === AGENTS && body.agents.every((a) => a.platforms.length === 2),
    },
  },
];

/** One request, checked for status and content; answers the response size in bytes. */
async function verify(scenario, role, baseUrl, token) {
  const response = await fetch(`${baseUrl}${scenario.path}`, {
    method: scenario.method,
    headers: requestHeaders(scenario, token),
    body: scenario.body,
  });
  const text = await response.text();
  if (!response.ok || !scenario.check[role](JSON.parse(text))) {
    throw new Error(`${role} ${scenario.name}: unexpected answer ${response.status}: ${text.slice(0, 500)}`);
  }
  return Buffer.byteLength(text);
}

function requestHeaders(scenario, token) {
  // The bare server ignores the Authorization header; sending it anyway keeps requests identical.
  return {
    authorization: `Bearer ${token}`,
    ...(scenario.body === undefined ? {} : { 'content-type': 'application/json' }),
  };
}

/** One autocannon run; fails loudly on any non-2xx answer, connection error or timeout. */
async function load(scenario, role, baseUrl, token, duration) {
  const result = await autocannon({
    url: `${baseUrl}${scenario.path}`,
    method: scenario.method,
    headers: requestHeaders(scenario, token),
    body: scenario.body,
    connections: CONNECTIONS,
    duration,
    // A 1,000-agent list under 50 connections can legitimately take seconds; only a hang should fail.
    timeout: 60,
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) {
    throw new Error(
      `${role} ${scenario.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ` +
        `${result.timeouts} timeouts out of ${result.requests.total} requests`,
    );
  }
  return {
    reqPerSec: result.requests.average,
    p99: result.latency.p99,
    total: result.requests.total,
    sent: result.requests.sent,
  };
}

/**
 * Warm-up (JIT, pool connections, PostgreSQL caches), then the measured run. Each is followed by
 * waiting for the server to finish the requests autocannon abandoned, so none of that work lands
 * in the next measurement.
 */
async function measure(scenario, role, server, token) {
  const bytes = await verify(scenario, role, server.url, token);
  progress(`${scenario.name}: ${role} warm-up ${WARMUP} s, then ${DURATION} s`);
  await load(scenario, role, server.url, token, WARMUP);
  await server.settle();
  const cpuBefore = await server.cpuTime();
  const result = await load(scenario, role, server.url, token, DURATION);
  await server.settle();
  // Every request sent was served to the end (settle waited for the abandoned ones), so this is the
  // server's own CPU per request. It shifts far less than req/s with how the cores were shared
  // between PostgreSQL, autocannon and the server, though batching still makes it vary with load.
  const cpuMsPerRequest = ((await server.cpuTime()) - cpuBefore) / result.sent;
  return { ...result, bytes, cpuMsPerRequest };
}

// ---- report ------------------------------------------------------------------------------------

/** The figures of one scenario, as label and formatted value, in print order. */
function figures({ svc, bare }) {
  const n = (value, digits) => value.toFixed(digits);
  return [
    ['svc  req/s', n(svc.reqPerSec, 1)],
    ['svc  p99 ms', n(svc.p99, 0)],
    ['bare req/s', n(bare.reqPerSec, 1)],
    ['bare p99 ms', n(bare.p99, 0)],
    ['ratio svc/bare req/s', n(svc.reqPerSec / bare.reqPerSec, 2)],
    ['svc  server CPU ms/req', n(svc.cpuMsPerRequest, 3)],
    ['bare server CPU ms/req', n(bare.cpuMsPerRequest, 3)],
    ['svc  KB/answer', n(svc.bytes / 1024, 1)],
    ['bare KB/answer', n(bare.bytes / 1024, 1)],
  ];
}

/** One line per figure, greppable: `<scenario> <figure> <value>`. */
function printScenario(result) {
  for (const [label, value] of figures(result)) {
    console.log(`${result.scenario.name.padEnd(18)} ${label.padEnd(24)} ${value.padStart(10)}`);
  }
}

/** The same figures as a table, scenarios side by side, with the conditions they were taken in. */
function printSummary(results, database) {
  console.log('');
  console.log(
    `Summary: ${CONNECTIONS} connections, ${DURATION} s per run after ${WARMUP} s warm-up, pg pool ${POOL_SIZE} ` +
      `each, ${database} (synchronous_commit ${SYNCHRONOUS_COMMIT}), node ${process.version}`,
  );
  for (const { scenario } of results) console.log(`  ${scenario.name}: ${scenario.title}`);
  const columns = results.map((r) => r.scenario.name);
  console.log(`${''.padEnd(24)} ${columns.map((c) => c.padStart(18)).join(' ')}`);
  const rows = results.map(figures);
  rows[0].forEach(([label], i) => {
    console.log(`${label.padEnd(24)} ${rows.map((r) => r[i][1].padStart(18)).join(' ')}`);
  });
  const low = results.filter((r) => r.svc.reqPerSec / r.bare.reqPerSec < 0.7).map((r) => r.scenario.name);
  console.log(
    low.length > 0
      ? `svc reaches less than 70% of the bare baseline's req/s in: ${low.join(', ')}`
      : "svc reaches at least 70% of the bare baseline's req/s in every scenario",
  );
}

// ---- main --------------------------------------------------------------------------------------

async function main() {
  const { servers, token, database } = await setUp({
    agents: AGENTS,
    poolSize: POOL_SIZE,
    synchronousCommit: SYNCHRONOUS_COMMIT,
  });
  const results = [];
  for (const scenario of SCENARIOS) {
    const svc = await measure(scenario, 'svc', servers.svc, token);
    const bare = await measure(scenario, 'bare', servers.bare, token);
    const result = { scenario, svc, bare };
    printScenario(result);
    results.push(result);
  }
  printSummary(results, database);
}

await runBench(main);
