// Where the time of one plan goes, measured in a fresh process so that the first pass is as cold as
// a real `svc apply --dry-run`: it runs the steps of applyCommand one by one (the same built
// functions, in the same order) and times each. run.js forks it and reads one JSON line from it.
//
// Environment (set by run.js): BENCH_DIR the project, BENCH_PASSES passes (the first one cold),
// plus SVC_URL, SVC_API_TOKEN and BENCH_TOKEN, exactly what applyCommand gets.
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const started = performance.now();
const { desiredState } = await import('../../packages/cli/dist/apply/command.js');
const { computePlan, summary } = await import('../../packages/cli/dist/plan/diff.js');
const { renderPlan } = await import('../../packages/cli/dist/plan/render.js');
const { readServerState } = await import('../../packages/cli/dist/plan/state.js');
const { loadProject } = await import('../../packages/cli/dist/project/index.js');
const { createClient } = await import('../../packages/cli/dist/session/client.js');
const importMs = performance.now() - started;

const env = { ...process.env };
const dir = resolve(process.env.BENCH_DIR);
const passes = Number(process.env.BENCH_PASSES || 3);

async function pass() {
  const times = {};
  const time = async (name, work) => {
    const t0 = performance.now();
    const value = await work();
    times[name] = performance.now() - t0;
    return value;
  };
  const project = await time('load', () => loadProject(dir, env));
  const desired = await time('desired', () => desiredState(project));
  const client = createClient(env.SVC_URL, env.SVC_API_TOKEN);
  const state = await time('read', () => readServerState(client, 'default'));
  const plan = await time('diff', () => computePlan('default', desired, state));
  // applyCommand hands each line to io.out; here they are joined, as a terminal write would need.
  const text = await time('render', () => renderPlan(plan, { color: false }).join('\n'));
  times.total = Object.values(times).reduce((a, b) => a + b, 0);
  return {
    times,
    requests: client.requests,
    rows: plan.rows.length,
    counts: summary(plan),
    bytes: text.length,
  };
}

const results = [];
for (let i = 0; i < passes; i++) results.push(await pass());
process.stdout.write(`${JSON.stringify({ importMs, passes: results })}\n`);
