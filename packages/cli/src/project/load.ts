/** `loadProject`: the files of a project (svc.toml, agent folders, memory bundles) as desired state. */

import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type AgentConfig, MARKDOWN_MAX_CHARS, settingSchemas } from '@svc/core';
import { readBundles } from './bundle-files.js';
import { checkBundles, watcherAgentPositions } from './bundles.js';
import { displayPath, isDirectory, readReported, readText } from './files.js';
import { renderPath, report, unstorableText } from './issues.js';
import { describeOutside, OUTSIDE_HINT, outsideProject, type ProjectRoot, projectRoot } from './paths.js';
import { ProjectError, type ProjectProblem, sortProblems, UnsetVariablesError } from './problems.js';
import { checkSecrets } from './secret-refs.js';
import { readSvcToml, SVC_TOML, type TomlAgent, type TomlResult } from './svc-toml.js';
import type { Project, ProjectAgent } from './types.js';

export const TEXT_SETTINGS = ['IDENTITY.md', 'SOUL.md', 'USER.md'] as const;

/**
 * Loads and checks the project in `dir`. Throws a `ProjectError` with every problem found, including
 * every secret reference whose variable is unset or empty in `env`. Values from `env` are only
 * tested for presence: the project keeps the reference text.
 */
export async function loadProject(
  dir: string,
  env: Record<string, string | undefined>,
  /** `svc run` only: its server is this process, and reports an unresolved reference itself. */
  options: { requireSecrets?: boolean } = {},
): Promise<Project> {
  const problems: ProjectProblem[] = [];
  const warnings: ProjectProblem[] = [];
  const source = await readText(join(dir, SVC_TOML));
  if (source === null) {
    throw new ProjectError([
      { file: SVC_TOML, line: 1, col: 1, message: `no ${SVC_TOML} in ${resolve(dir)}` },
    ]);
  }
  const toml = readSvcToml(source, problems, warnings);
  const root = await projectRoot(dir);

  const agents: ProjectAgent[] = [];
  const texts = await mapLimit(toml.agents, 32, (agent) => readAgentFiles(root, agent, toml, problems));
  toml.agents.forEach((agent, i) => {
    const text = texts[i];
    if (text && agent.valid) agents.push(toProjectAgent(agent, text));
  });
  const bundles = await readBundles(root, toml, problems);
  const platforms = new Map(
    toml.agents.filter((a) => a.valid).map((a) => [a.agentId, a.platforms.map((p) => p.stableId)]),
  );
  checkBundles(bundles, toml.agentIds, platforms);
  checkSecrets(toml.secrets, env, problems, options.requireSecrets !== false);

  const project: Project = {
    agents,
    entityTypes: bundles.entities.map((e) => e.item),
    relationshipTypes: bundles.relationships.map((e) => e.item),
    watchers: bundles.watchers.map((e) => e.item),
    secretRefs: toml.secrets.map(({ variable, line }) => ({ variable, file: SVC_TOML, line })),
    watcherAgentAt: watcherAgentPositions(bundles),
    warnings: sortProblems(warnings),
    settingAt: toml.settingAt,
  };
  if (problems.length === 0) return project;
  const sorted = sortProblems(problems);
  throw sorted.every((p) => p.variable !== undefined)
    ? new UnsetVariablesError(sorted, project)
    : new ProjectError(sorted, project.warnings);
}

type TextSettings = Pick<AgentConfig, (typeof TEXT_SETTINGS)[number]>;

/** A missing file is `null`: deleting `SOUL.md` must clear the setting, not leave the old text. */
async function readAgentFiles(
  root: ProjectRoot,
  agent: TomlAgent,
  toml: TomlResult,
  problems: ProjectProblem[],
): Promise<TextSettings | null> {
  const dir = root.dir;
  const written = agent.dir?.value ?? join('agents', agent.agentId);
  const folder = resolve(dir, written);
  const outside = await outsideProject(root, folder);
  if (outside) {
    const path = agent.dir?.path ?? ['agents', agent.agentId];
    const message = `${renderPath(path)}: folder "${written}" ${describeOutside(outside)}`;
    report(toml.ctx, path, agent.dir ? 'value' : 'key', message, OUTSIDE_HINT);
    return null;
  }
  if (agent.dir && !(await isDirectory(folder))) {
    // A folder named explicitly but absent is a typo, not a request to clear all three files.
    report(
      toml.ctx,
      agent.dir.path,
      'value',
      `${renderPath(agent.dir.path)}: folder "${agent.dir.value}" not found`,
    );
    return null;
  }
  const text: Partial<Record<keyof TextSettings, string | null>> = {};
  let ok = true;
  // One listing instead of three failed opens: most agents have one or two of the files.
  let listing: string[];
  try {
    listing = await readdir(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') {
      // Unreadable is not absent: treating it so would clear all three settings on the server.
      problems.push({
        file: displayPath(dir, folder),
        line: 1,
        col: 1,
        message: `agent folder cannot be read (${code})`,
      });
      return null;
    }
    listing = [];
  }
  const present = new Set(listing);
  for (const name of TEXT_SETTINGS) {
    const file = join(folder, name);
    // `Soul.md` is not SOUL.md: taken as absent, it would clear the setting on the server.
    const lookalike = present.has(name)
      ? undefined
      : listing.find((f) => f.toLowerCase() === name.toLowerCase());
    if (lookalike) {
      ok = false;
      problems.push({
        file: displayPath(dir, join(folder, lookalike)),
        line: 1,
        col: 1,
        message: `"${lookalike}" is not read: the file must be named exactly ${name}`,
      });
      continue;
    }
    const link = present.has(name) ? await outsideProject(root, file) : null;
    if (link) {
      ok = false;
      const message = `${name} ${describeOutside(link)}; it is not read`;
      problems.push({ file: displayPath(dir, file), line: 1, col: 1, message });
      continue;
    }
    let unreadable = false;
    const content = present.has(name)
      ? await readReported(file, (message) => {
          unreadable = true;
          ok = false;
          problems.push({ file: displayPath(dir, file), line: 1, col: 1, message: `${name} ${message}` });
        })
      : null;
    if (unreadable) continue;
    // The schema's only limit on Markdown is its length.
    if (content !== null && !settingSchemas[name].safeParse(content).success) {
      ok = false;
      const message = `${name} is longer than ${MARKDOWN_MAX_CHARS} characters (${content.length})`;
      problems.push({ file: displayPath(dir, file), line: 1, col: 1, message });
    }
    const unstorable = content === null ? null : unstorableText(content);
    if (content !== null && unstorable) {
      ok = false;
      const before = content.slice(0, unstorable.index).split('\n');
      problems.push({
        file: displayPath(dir, file),
        line: before.length,
        col: (before.at(-1)?.length ?? 0) + 1,
        message: `${name} contains ${unstorable.what}, which the server cannot store`,
      });
    }
    text[name] = content;
  }
  return ok ? (text as TextSettings) : null;
}

function toProjectAgent(agent: TomlAgent, text: TextSettings): ProjectAgent {
  return {
    agentId: agent.agentId,
    name: agent.name,
    description: agent.description,
    config: { ...agent.config, ...text },
    platforms: agent.platforms,
    providers: agent.providers,
  };
}

/** `work` over `items`, at most `limit` at a time, answers in the items' order. */
async function mapLimit<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i] as T);
    }
  });
  await Promise.all(workers);
  return results;
}
