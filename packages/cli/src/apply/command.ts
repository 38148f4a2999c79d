import { resolve } from 'node:path';
import { computePlan, type Only, summary } from '../plan/diff.js';
import { planJson, renderPlan } from '../plan/render.js';
import { readServerState } from '../plan/state.js';
import type { DesiredState, Plan, PlanRow } from '../plan/types.js';
import {
  formatProblem,
  formatWarning,
  loadProject,
  type Project,
  ProjectError,
  type ProjectProblem,
  sortProblems,
  UnsetVariablesError,
} from '../project/index.js';
import { createClient } from '../session/client.js';
import { checkLink, type Io } from '../session/commands.js';
import { onOrg } from '../session/org.js';
import { resolveSession } from '../session/resolve.js';
import { describeFailure, executePlan, type RowResult } from './execute.js';
import { projectManifest, recordManifest } from './manifest.js';
import { checkAgainstOrgSecrets } from './org-secrets.js';
import { checkSettings } from './settings-check.js';
import { type PlatformAnswer, webhookInstructions } from './webhooks.js';

export interface ApplyFlags {
  dir: string;
  dryRun?: boolean;
  yes?: boolean;
  only?: Only;
  org?: string;
  url?: string;
  context?: string;
  force?: boolean;
  json?: boolean;
  detailedExitcode?: boolean;
  concurrency?: number;
  /**
   * `svc run` only (no flag): referenced variables need not be set, since the server is this very
   * process and reports each one it cannot resolve. `svc apply` always checks (the spec's rule).
   */
  allowUnsetSecrets?: boolean;
}

export interface ApplyIo extends Io {
  err: (line: string) => void;
  color: boolean;
  /** Asks a yes/no question whose default is No. Only called when `interactive`. */
  confirm: (question: string) => Promise<boolean>;
}

/**
 * Exit codes: 0 applied, or nothing to apply (a manifest that could not be recorded afterwards is
 * a warning: the changes are made); 1 any error (the project is invalid, variables are
 * missing, the server refused, a write failed, the prompt was declined or could not be shown);
 * 2 with `--dry-run --detailed-exitcode` when changes are pending.
 */
export const EXIT = { ok: 0, error: 1, pending: 2 } as const;

export function desiredState(project: Project): DesiredState {
  return {
    agents: project.agents.map((agent) => ({
      agentId: agent.agentId,
      name: agent.name,
      description: agent.description,
      config: agent.config,
      providers: agent.providers,
      platforms: agent.platforms.map((p) => ({
        stableId: p.stableId,
        type: p.type,
        name: p.name ?? null,
        config: p.config,
      })),
    })),
    entityTypes: project.entityTypes,
    relationshipTypes: project.relationshipTypes,
    watchers: project.watchers,
  };
}

const label = (row: PlanRow) => `${row.kind.replace('_', ' ')} ${row.id}`;

/**
 * For each platform created or updated: its webhook URL and the step that connects it, in the
 * plan's order (requests run concurrently, so `done` is in the order they happened to finish).
 */
function webhookLines(plan: Plan, done: RowResult[]): string[] {
  const order = new Map(plan.rows.map((row, index) => [row, index]));
  return [...done]
    .sort((a, b) => (order.get(a.row) ?? 0) - (order.get(b.row) ?? 0))
    .filter(({ row, result }) => row.kind === 'platform' && (result === 'created' || result === 'updated'))
    .flatMap(({ answer }) => {
      const platform = (answer as { platform?: PlatformAnswer } | undefined)?.platform;
      return platform ? ['', ...webhookInstructions(platform)] : [];
    });
}

function reportProblems(problems: ProjectProblem[], outcome: string, io: ApplyIo): void {
  for (const problem of sortProblems(problems)) io.err(formatProblem(problem));
  io.err(
    `svc apply: fix the ${problems.length === 1 ? 'problem' : `${problems.length} problems`} above; ${outcome}`,
  );
}

/**
 * The project, with the variables it references that are unset here (to look for among the org's
 * secrets); null once its problems are reported.
 */
async function load(
  dir: string,
  flags: ApplyFlags,
  io: ApplyIo,
): Promise<{ project: Project; unset: ProjectProblem[] } | null> {
  try {
    // Files and variables first: nothing reaches the network while the project is wrong.
    const project = await loadProject(dir, io.env, { requireSecrets: !flags.allowUnsetSecrets });
    for (const warning of project.warnings) io.err(formatWarning(warning));
    return { project, unset: [] };
  } catch (error) {
    if (error instanceof ProjectError) for (const warning of error.warnings) io.err(formatWarning(warning));
    if (error instanceof UnsetVariablesError) return { project: error.project, unset: error.problems };
    if (!(error instanceof ProjectError)) throw error;
    reportProblems(error.problems, 'nothing was sent', io);
    if (error.problems.some((p) => p.variable !== undefined)) {
      io.err(
        "  (a variable that is one of the org's secrets need not be set here: that is checked once the rest is right)",
      );
    }
    return null;
  }
}

export async function applyCommand(flags: ApplyFlags, io: ApplyIo): Promise<number> {
  const dir = resolve(flags.dir);
  const loaded = await load(dir, flags, io);
  if (!loaded) return EXIT.error;
  const { project, unset } = loaded;
  const session = await resolveSession(io.env, flags);
  await checkLink(dir, session, flags.force ?? false);
  const client = createClient(session.url, session.token);
  // With --json, stdout holds the one JSON document; progress goes to stderr.
  const say = flags.json ? io.err : io.out;
  let fromOrg: string[] = [];
  if (unset.length > 0) {
    const checked = await onOrg(client, session.org, () =>
      checkAgainstOrgSecrets(client, session.org, unset),
    );
    if (checked.missing.length > 0) {
      reportProblems(checked.missing, 'nothing was changed', io);
      return EXIT.error;
    }
    fromOrg = checked.fromOrg;
  }
  const state = await onOrg(client, session.org, () => readServerState(client, session.org));
  const desired = desiredState(project);
  const plan = computePlan(session.org, desired, state, flags.only);
  // After a successful apply only: what the project declares, so that the server knows drift.
  const record = () => recordManifest(client, session.org, projectManifest(desired, dir), io.err);
  const counts = summary(plan);
  const pending = counts.create + counts.update;
  // The server's policy refusals before the plan is shown: a plan it would stop half-way is no plan.
  const check = await onOrg(client, session.org, () =>
    checkSettings(plan.rows, project, client, flags.concurrency),
  );
  if (check.refusals.length > 0) {
    reportProblems(check.refusals, 'nothing was changed', io);
    return EXIT.error;
  }
  if (check.unchecked) {
    io.err(`warning: the settings were not checked against the server's policy (${check.unchecked})`);
  }

  if (fromOrg.length > 0) {
    say(
      `Not set here, resolved from org ${session.org}'s secrets: ${fromOrg.map((v) => `$${v}`).join(', ')}`,
    );
  }
  if (flags.json) io.out(JSON.stringify(planJson(plan), null, 2));
  else for (const line of renderPlan(plan, { color: io.color })) io.out(line);

  // With --only memory no agent is written first: a watcher must name an agent already there.
  if (flags.only === 'memory') {
    const onServer = new Set(state.agents.map((a) => a.agentId));
    const orphans = project.watchers.filter((w) => !onServer.has(w.agent));
    for (const w of orphans) {
      const at = project.watcherAgentAt[w.slug];
      io.err(`${at}: watcher "${w.slug}" names agent "${w.agent}", which is not on the server yet`);
    }
    if (orphans.length > 0) {
      io.err('apply the agents first (svc apply, or svc apply --only agents); nothing was sent');
      return EXIT.error;
    }
  }
  if (flags.dryRun) return flags.detailedExitcode && pending > 0 ? EXIT.pending : EXIT.ok;
  if (pending === 0) {
    if (!flags.json) io.out('Nothing to apply: the org already matches the project.');
    await record();
    return EXIT.ok;
  }
  if (!flags.yes) {
    if (!io.interactive) {
      io.err(
        'svc apply: no terminal to confirm on; re-run with --yes to apply, or --dry-run to only see the plan',
      );
      return EXIT.error;
    }
    if (!(await io.confirm(`Apply ${pending} change${pending === 1 ? '' : 's'} to org ${session.org}?`))) {
      io.err('Apply cancelled; nothing was changed.');
      return EXIT.error;
    }
  }

  const outcome = await executePlan(plan, client, {
    concurrency: flags.concurrency,
    onResult: ({ row, result }) =>
      say(`  ${result === 'unchanged' ? 'unchanged on server' : result} ${label(row)}`),
    onFailure: (row, error) => io.err(`  failed ${label(row)}: ${describeFailure(error)}`),
  });
  const webhooks = webhookLines(plan, outcome.done);
  if (outcome.failed.length === 0) {
    say(
      `Applied ${outcome.done.length} change${outcome.done.length === 1 ? '' : 's'} to org ${session.org}.`,
    );
    for (const line of webhooks) say(line);
    await record();
    return EXIT.ok;
  }
  // Platforms written before the failure are live: their URLs are needed whatever comes next.
  for (const line of webhooks) say(line);
  io.err(`svc apply: ${outcome.done.length} of ${pending} changes applied before a failure.`);
  for (const { row, error } of outcome.failed) io.err(`  failed: ${label(row)}: ${describeFailure(error)}`);
  if (outcome.notAttempted.length > 0) {
    io.err(`  not attempted: ${outcome.notAttempted.map(label).join(', ')}`);
  }
  io.err('Every step is idempotent: fix the cause and run svc apply again to converge.');
  return EXIT.error;
}
