// Apply benchmark: `svc apply` on a generated project of 1,000 agents (2 platforms each) and 200
// entity types, against a real svc server behind a recording proxy that counts every request; and,
// in the same run, a client that reads the state one request per resource (the anchor's approach).
// See README.md for what it measures and how to read it. Run with `npm run bench:apply`.
//
// Environment:
//   DATABASE_URL / BENCH_DATABASE_URL  a PostgreSQL to use (a fresh database is created in it and
//                                      dropped afterwards); unset: an embedded one in a temp dir
//   BENCH_AGENTS                       agents in the project (default 1000)
//   BENCH_ENTITY_TYPES                 entity types in the bundle (default 200)
//   BENCH_CONCURRENCY                  --concurrency of svc apply (default 8, the CLI's default)
//   BENCH_BASELINE_CONCURRENCY         comma-separated requests in flight for the baseline (default 1,8)
//   BENCH_POOL_SIZE                    pg Pool size of the server (default 20)
//   BENCH_PHASE_PASSES                 passes of the phase breakdown, the first cold (default 3)
//   BENCH_PROCESS_RUNS                 runs of `node bin.js apply --dry-run`, each cold (default 3)
//   --quick, BENCH_QUICK=1             the quick size: 20 agents, 5 entity types, one pass and one
//                                      run of each, the baseline at 8 in flight (seconds; every check)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { applyCommand } from '../../packages/cli/dist/apply/command.js';
import { QUICK, runBench, size } from '../lib/environment.js';
import { progress, setUp, tempDir } from './environment.js';
import { SECRET_VARIABLE, writeProject } from './project.js';
import { counter, isWrite } from './proxy.js';

const AGENTS = size('BENCH_AGENTS', 1000, 20);
const ENTITY_TYPES = size('BENCH_ENTITY_TYPES', 200, 5);
const CONCURRENCY = size('BENCH_CONCURRENCY', 8, 8);
const BASELINE_CONCURRENCY = (process.env.BENCH_BASELINE_CONCURRENCY || (QUICK ? '8' : '1,8'))
  .split(',')
  .map(Number);
const POOL_SIZE = size('BENCH_POOL_SIZE', 20, 20);
const PHASE_PASSES = size('BENCH_PHASE_PASSES', 3, 1);
const PROCESS_RUNS = size('BENCH_PROCESS_RUNS', 3, 1);

// A no-op apply still records the apply manifest (one PUT, which the server answers `unchanged`
// without writing to the database): the only write it may send.
const TARGETS = { planRequests: 4, noopWrites: 1, dryRunMs: 1000 };
const MANIFEST_PUT = 'PUT /api/default/apply-manifest';
/** A value that must never leave the process: checked against every request the proxy saw. */
const SECRET_VALUE = `bench-secret-${randomBytes(8).toString('hex')}`;
const BIN = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));

/** Failed correctness checks; any one of them makes the run exit 1 after printing the figures. */
const failures = [];
function check(ok, message) {
  if (!ok) failures.push(message);
  return ok;
}

// ---- svc apply, in-process ---------------------------------------------------------------------

/** The environment svc apply sees: the session points at the proxy; the secret is set. */
function cliEnv(context) {
  return {
    SVC_URL: context.proxy.url,
    SVC_API_TOKEN: context.token,
    [SECRET_VARIABLE]: SECRET_VALUE,
    // No saved credentials of whoever runs the bench: an empty config dir of our own.
    XDG_CONFIG_HOME: context.configDir,
    NO_COLOR: '1',
  };
}

/** Runs applyCommand with an Io that captures its output; answers time, counts, exit code, output. */
async function runApply(context, flags) {
  const out = [];
  const err = [];
  const io = {
    env: cliEnv(context),
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    interactive: false,
    color: false,
    ask: async () => {
      throw new Error('no prompts in the benchmark');
    },
    confirm: async () => {
      throw new Error('no prompts in the benchmark');
    },
  };
  const count = counter(context.proxy);
  const t0 = performance.now();
  const code = await applyCommand({ dir: context.dir, concurrency: CONCURRENCY, ...flags }, io);
  const ms = performance.now() - t0;
  const { requests, checks, writes, seen } = count();
  return { ms, requests, checks, writes, seen, code, out, err };
}

const summaryLine = (lines) => lines.find((line) => line.startsWith('Plan: ')) ?? '(no summary line)';

// ---- svc apply --dry-run, as a process ---------------------------------------------------------

/** `node bin.js <args>` with the CLI's environment; answers wall time, exit code and output. */
function runProcess(context, args) {
  return new Promise((resolve, reject) => {
    const count = counter(context.proxy);
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, ...cliEnv(context) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({
        ms: performance.now() - t0,
        code,
        out: Buffer.concat(out).toString(),
        err: Buffer.concat(err).toString(),
        ...count(),
      }),
    );
  });
}

// ---- phase breakdown, in a fresh process -------------------------------------------------------

function runPhases(context) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./phases.js', import.meta.url))], {
      env: {
        PATH: process.env.PATH,
        ...cliEnv(context),
        BENCH_DIR: context.dir,
        BENCH_PASSES: String(PHASE_PASSES),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const out = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(JSON.parse(Buffer.concat(out).toString()))
        : reject(new Error(`phases.js exited with code ${code}`)),
    );
  });
}

// ---- the anchor's approach: one request per resource -------------------------------------------

/**
 * Reads the same state as svc's plan the way a client without a bulk read must: the agent list,
 * then each agent's settings and platforms, plus the entity schema list. `inFlight` requests at a
 * time. Goes through the proxy, so its requests are counted the same way.
 */
async function baselineRead(context, inFlight) {
  const get = async (method, path, body) => {
    const response = await fetch(`${context.proxy.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${context.token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`baseline ${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text);
  };
  const count = counter(context.proxy);
  const t0 = performance.now();
  const [{ agents }, schema] = await Promise.all([
    get('GET', '/api/default/agents'),
    get('POST', '/api/default/operations/manage_entity_schema', { action: 'list' }),
  ]);
  const queue = [...agents];
  const state = [];
  const workers = Array.from({ length: Math.min(inFlight, queue.length) }, async () => {
    while (queue.length > 0) {
      const agent = queue.shift();
      const { config } = await get('GET', `/api/default/agents/${agent.agentId}/config`);
      const { platforms } = await get('GET', `/api/default/agents/${agent.agentId}/platforms`);
      state.push({ ...agent, config, platforms });
    }
  });
  await Promise.all(workers);
  const ms = performance.now() - t0;
  const { requests, writes } = count();
  const platforms = state.reduce((n, agent) => n + agent.platforms.length, 0);
  check(
    state.length === AGENTS && platforms === 2 * AGENTS && schema.entityTypes.length === ENTITY_TYPES,
    `baseline (${inFlight} in flight) read ${state.length} agents, ${platforms} platforms and ` +
      `${schema.entityTypes.length} entity types; expected ${AGENTS}, ${2 * AGENTS}, ${ENTITY_TYPES}`,
  );
  return { ms, requests, writes, inFlight };
}

// ---- checks on the server ----------------------------------------------------------------------

/** After the first apply, the server holds the whole project (asked directly, not through the proxy). */
async function checkServerHoldsProject(context) {
  const headers = { authorization: `Bearer ${context.token}`, 'content-type': 'application/json' };
  const list = await fetch(`${context.server.url}/api/default/agents?include=config,platforms`, { headers });
  const { agents } = await list.json();
  const schema = await fetch(`${context.server.url}/api/default/operations/manage_entity_schema`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ action: 'list' }),
  });
  const { entityTypes } = await schema.json();
  const manifest = await manifestOf(context);
  check(
    manifest?.agents.length === AGENTS &&
      manifest.platforms.length === 2 * AGENTS &&
      manifest.entityTypes.length === ENTITY_TYPES,
    `after the first apply the manifest declares ${manifest?.agents.length} agents, ` +
      `${manifest?.platforms.length} platforms, ${manifest?.entityTypes.length} entity types`,
  );
  const withSoul = agents.filter((a) => typeof a.config?.['SOUL.md'] === 'string').length;
  const platforms = agents.reduce((n, a) => n + (a.platforms?.length ?? 0), 0);
  const refs = agents.filter((a) =>
    a.platforms?.some((p) => p.config?.bot_token === `$${SECRET_VARIABLE}`),
  ).length;
  check(
    agents.length === AGENTS &&
      withSoul === AGENTS &&
      platforms === 2 * AGENTS &&
      refs === AGENTS &&
      entityTypes.length === ENTITY_TYPES,
    `after the first apply the server has ${agents.length} agents (${withSoul} with SOUL.md), ` +
      `${platforms} platforms (${refs} agents with the $${SECRET_VARIABLE} reference), ` +
      `${entityTypes.length} entity types`,
  );
}

/** The org's apply manifest (asked directly, not through the proxy). */
async function manifestOf(context) {
  const headers = { authorization: `Bearer ${context.token}` };
  const res = await fetch(`${context.server.url}/api/default/apply-manifest`, { headers });
  return (await res.json()).manifest;
}

// ---- report ------------------------------------------------------------------------------------

const ms = (value) => `${value.toFixed(0)} ms`;

/** One line per figure, greppable: `<scenario> <figure> <value>`. */
function printFigure(scenario, figure, value) {
  console.log(`${scenario.padEnd(26)} ${figure.padEnd(22)} ${String(value).padStart(12)}`);
}

function printRun(scenario, run) {
  printFigure(scenario, 'wall ms', run.ms.toFixed(0));
  printFigure(scenario, 'requests', run.requests);
  printFigure(scenario, 'writes', run.writes);
}

function printPhases(scenario, phases) {
  printFigure(scenario, 'imports ms', phases.importMs.toFixed(0));
  phases.passes.forEach((pass, i) => {
    const label = i === 0 ? 'cold' : `warm${i}`;
    for (const [name, value] of Object.entries(pass.times)) {
      printFigure(scenario, `${label} ${name} ms`, value.toFixed(1));
    }
  });
  const last = phases.passes.at(-1);
  printFigure(scenario, 'plan rows', last.rows);
  printFigure(scenario, 'rendered KB', (last.bytes / 1024).toFixed(1));
}

function verdict(ok) {
  return ok ? 'met' : 'MISSED';
}

function printSummary(results, database) {
  const { dryRun, dryRunProcess, firstApply, noop, baselines, phasesFresh, phasesFull } = results;
  console.log('');
  console.log(
    `Summary: ${AGENTS} agents x 2 platforms, ${ENTITY_TYPES} entity types; svc apply --concurrency ` +
      `${CONCURRENCY}; server pg pool ${POOL_SIZE}; ${database}; node ${process.version}; ` +
      `${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)} (1 min)`,
  );
  const row = (name, run, note = '') =>
    console.log(
      `  ${name.padEnd(34)} ${ms(run.ms).padStart(10)} ${String(run.requests).padStart(9)} ` +
        `${String(run.writes).padStart(7)}  ${note}`,
    );
  console.log(`  ${''.padEnd(34)} ${'wall'.padStart(10)} ${'requests'.padStart(9)} ${'writes'.padStart(7)}`);
  row('dry-run, fresh org (in-process)', dryRun, summaryLine(dryRun.out));
  row(
    'dry-run, fresh org (node bin.js)',
    dryRunProcess,
    `median of ${results.processRuns} runs; node bin.js --version alone: ${ms(results.versionMs)}`,
  );
  row(
    'first apply',
    firstApply,
    `${firstApply.out.find((line) => line.startsWith('Applied ')) ?? ''} (${(firstApply.writes / (firstApply.ms / 1000)).toFixed(0)} writes/s)`,
  );
  row('no-op re-apply (the plan)', noop, summaryLine(noop.out));
  for (const b of baselines) row(`baseline read, ${b.inFlight} in flight`, b);
  // The state read alone, svc's counterpart of the baseline: the best warm pass (the first is cold).
  const warm = phasesFull.passes.length > 1 ? phasesFull.passes.slice(1) : phasesFull.passes;
  const read = Math.min(...warm.map((p) => p.times.read));
  console.log(
    `  svc reads the applied org's state in ${phasesFull.passes[0].requests} requests and ` +
      `${ms(read)} (best warm pass); the baseline needs ${baselines[0]?.requests} requests: ` +
      baselines
        .map((b) => `${ms(b.ms)} with ${b.inFlight} in flight (${(b.ms / read).toFixed(0)}x)`)
        .join(', '),
  );
  const cold = phasesFresh.passes[0].times;
  console.log(
    `  cold dry-run phases: load ${ms(cold.load)}, read ${ms(cold.read)}, diff ${ms(cold.diff)}, ` +
      `render ${ms(cold.render)} (+ ${ms(phasesFresh.importMs)} importing the CLI modules)`,
  );
  const planRequests = Math.max(dryRun.requests, noop.requests);
  console.log('Targets:');
  console.log(
    `  plan in at most ${TARGETS.planRequests} requests: ${planRequests} ` +
      `(dry-run ${dryRun.requests}, no-op apply ${noop.requests})  ${verdict(planRequests <= TARGETS.planRequests)}; ` +
      `and one settings check per agent whose settings change (dry-run ${dryRun.checks}, no-op apply ${noop.checks})`,
  );
  console.log(
    `  no-op apply sends 1 write (the manifest's, answered unchanged): ${noop.writes}  ${verdict(noop.writes === TARGETS.noopWrites)}`,
  );
  console.log(
    `  dry-run under 1 s: ${ms(dryRun.ms)} in-process  ${verdict(dryRun.ms < TARGETS.dryRunMs)}; ` +
      `${ms(dryRunProcess.ms)} as a process (node bin.js)  ${verdict(dryRunProcess.ms < TARGETS.dryRunMs)}`,
  );
}

// ---- main --------------------------------------------------------------------------------------

async function main() {
  const env = await setUp({ poolSize: POOL_SIZE, secretEnv: { [SECRET_VARIABLE]: SECRET_VALUE } });
  const dir = await tempDir('svc-bench-apply-project-');
  const configDir = await tempDir('svc-bench-apply-config-');
  const context = { ...env, dir, configDir };
  progress(`writing the project (${AGENTS} agents, ${ENTITY_TYPES} entity types) in ${dir}`);
  await writeProject(dir, { agents: AGENTS, entityTypes: ENTITY_TYPES });
  // One row per agent, one for its settings, one per platform, one per entity type.
  const expectedCreates = AGENTS + AGENTS + 2 * AGENTS + ENTITY_TYPES;
  const writesOf = (run) => run.seen.filter(isWrite).map((r) => `${r.method} ${r.url}`);

  progress('svc apply --dry-run on the fresh org (in-process, cold)');
  const dryRun = await runApply(context, { dryRun: true });
  printRun('dry-run', dryRun);
  check(dryRun.code === 0, `dry-run exited ${dryRun.code}: ${dryRun.err.join(' | ')}`);
  check(dryRun.writes === 0, `dry-run sent ${dryRun.writes} writes`);
  check(
    summaryLine(dryRun.out).startsWith(`Plan: ${expectedCreates} to create, 0 to update`),
    `dry-run plan: "${summaryLine(dryRun.out)}", expected ${expectedCreates} to create`,
  );

  progress('svc apply --dry-run on the fresh org (node bin.js, a new process)');
  // Each run is a new process, so each is cold; the median of a few smooths a shared machine's noise.
  const processRuns = [];
  for (let i = 0; i < PROCESS_RUNS; i++) {
    const run = await runProcess(context, ['apply', '--dry-run', '--dir', dir]);
    check(run.code === 0, `node bin.js apply --dry-run exited ${run.code}: ${run.err}`);
    check(run.writes === 0, `node bin.js apply --dry-run sent ${run.writes} writes`);
    check(run.requests <= TARGETS.planRequests, `node bin.js apply --dry-run sent ${run.requests} requests`);
    processRuns.push(run);
  }
  processRuns.sort((a, b) => a.ms - b.ms);
  const dryRunProcess = processRuns[Math.floor((processRuns.length - 1) / 2)];
  printRun('dry-run-process', dryRunProcess);
  printFigure('dry-run-process', 'runs ms', processRuns.map((r) => r.ms.toFixed(0)).join(','));
  progress('node bin.js --version (process start and imports only)');
  const versionRuns = [];
  for (let i = 0; i < PROCESS_RUNS; i++) versionRuns.push((await runProcess(context, ['--version'])).ms);
  versionRuns.sort((a, b) => a - b);
  const versionMs = versionRuns[Math.floor((versionRuns.length - 1) / 2)];
  printFigure('cli-startup', 'wall ms', versionMs.toFixed(0));

  progress('phase breakdown on the fresh org (new process)');
  const phasesFresh = await runPhases(context);
  printPhases('phases-fresh-org', phasesFresh);

  progress('svc apply --yes on the fresh org (first apply)');
  const firstApply = await runApply(context, { yes: true });
  printRun('first-apply', firstApply);
  check(
    firstApply.code === 0,
    `first apply exited ${firstApply.code}: ${firstApply.err.slice(0, 5).join(' | ')}`,
  );
  check(
    firstApply.writes === expectedCreates + 1 && writesOf(firstApply).at(-1) === MANIFEST_PUT,
    `first apply sent ${firstApply.writes} writes, expected ${expectedCreates + 1} (one per created row, then the manifest)`,
  );
  // The webhook URL of each platform created follows the summary line.
  const applied = firstApply.out.find((line) => line.startsWith('Applied '));
  check(applied === `Applied ${expectedCreates} changes to org default.`, `first apply said "${applied}"`);
  check(
    firstApply.out.filter((line) => line.startsWith('Webhook of ')).length === AGENTS * 2,
    `first apply printed ${firstApply.out.filter((line) => line.startsWith('Webhook of ')).length} webhook URLs, expected ${AGENTS * 2}`,
  );
  await checkServerHoldsProject(context);
  const manifest = await manifestOf(context);

  progress('svc apply --yes again (no-op re-apply)');
  const noop = await runApply(context, { yes: true });
  printRun('noop-apply', noop);
  check(noop.code === 0, `no-op apply exited ${noop.code}: ${noop.err.join(' | ')}`);
  check(
    noop.writes === TARGETS.noopWrites && writesOf(noop)[0] === MANIFEST_PUT,
    `no-op apply sent ${noop.writes} writes: ${writesOf(noop).slice(0, 3).join(', ')}`,
  );
  // The same declaration again: the server wrote nothing, so appliedAt did not move.
  const again = await manifestOf(context);
  check(
    again?.appliedAt === manifest?.appliedAt,
    `no-op apply changed the manifest: appliedAt ${manifest?.appliedAt} -> ${again?.appliedAt}`,
  );
  check(noop.requests <= TARGETS.planRequests, `no-op apply sent ${noop.requests} requests`);
  check(
    noop.checks === 0,
    `no-op apply sent ${noop.checks} settings checks (nothing changes: none to check)`,
  );
  check(dryRun.requests <= TARGETS.planRequests, `dry-run sent ${dryRun.requests} requests`);
  check(
    noop.out.includes('Nothing to apply: the org already matches the project.'),
    'no-op apply did not say "Nothing to apply"',
  );

  progress('phase breakdown on the applied org (new process)');
  const phasesFull = await runPhases(context);
  printPhases('phases-applied-org', phasesFull);

  const baselines = [];
  for (const inFlight of BASELINE_CONCURRENCY) {
    progress(`baseline: one request per resource, ${inFlight} in flight`);
    const baseline = await baselineRead(context, inFlight);
    printRun(`baseline-read-${inFlight}`, baseline);
    baselines.push(baseline);
  }

  // The secret's value must be in no request the proxy saw (URL, header or body): only its name.
  const leaked = context.proxy.requests.filter((r) => JSON.stringify(r).includes(SECRET_VALUE)).length;
  check(leaked === 0, `the ${SECRET_VARIABLE} value appeared in ${leaked} requests`);

  printSummary(
    {
      dryRun,
      dryRunProcess,
      processRuns: processRuns.length,
      versionMs,
      firstApply,
      noop,
      baselines,
      phasesFresh,
      phasesFull,
    },
    env.database,
  );
  if (failures.length > 0) {
    console.log('\nCORRECTNESS CHECKS FAILED:');
    for (const failure of failures) console.log(`  - ${failure}`);
    process.exitCode = 1;
  } else {
    console.log('All correctness checks passed.');
  }
}

await runBench(main);
