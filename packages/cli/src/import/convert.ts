/**
 * A Lobu project (lobu.toml, agent folders, models) as the files of an svc project, with the report
 * of every key. Reads only inside the Lobu project and writes nothing: `write.ts` does, once the
 * whole conversion has succeeded.
 */

import { readdir, realpath } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { ID_PATTERN } from '@svc/core';
import { stringify as toToml } from 'smol-toml';
import { stringify as toYaml } from 'yaml';
import { TEXT_SETTINGS } from '../project/load.js';
import { convertBundles, type LobuModelFile } from './bundles.js';
import { dotted, ImportError, LOBU_TOML, type LobuAgent, readLobuToml } from './lobu-toml.js';
import { connectorSteps, convertMemory } from './memory.js';
import { convertPlatforms } from './platforms.js';
import { convertProviders } from './providers.js';
import { folderInside, readInside, SKIPPED_WHY } from './read.js';
import { ImportReport } from './report.js';
import { convertSchedules, type SvcWatcher } from './schedules.js';
import { convertSettings } from './settings.js';

export interface Converted {
  /** Path relative to the svc project -> content. */
  files: Map<string, string>;
  report: ImportReport;
}

/** Keys of `[agents.<id>]` read by the parts below. */
const AGENT_KEYS = [
  'name',
  'description',
  'dir',
  'providers',
  'platforms',
  'connections',
  'skills',
  'network',
  'tools',
  'worker',
  'egress',
  'guardrails',
  'guardrails_disabled',
  'guardrails_inline',
  'preview',
  'schedules',
  'default_schedule_channel',
];

/** Where schedules' watchers go when the models folder has no file of that name. */
const SCHEDULES_BUNDLE = 'models/lobu-schedules.yaml';

export async function convertLobuProject(lobuDir: string, outForSteps: string): Promise<Converted> {
  const root = await realpath(lobuDir).catch(() => null);
  const read = root === null ? null : await readInside(root, LOBU_TOML);
  if (read === null || root === null)
    throw new ImportError(`no ${LOBU_TOML} in ${resolve(lobuDir)} (--dir names the Lobu project)`);
  if ('skipped' in read)
    throw new ImportError(`${LOBU_TOML}: ${SKIPPED_WHY[read.skipped]}; copy the real file into the project`);
  const source = read.text;
  const lobu = readLobuToml(source);
  const report = new ImportReport();
  const { at } = lobu;
  const files = new Map<string, string>();
  const agents: Record<string, Record<string, unknown>> = {};
  const watchers: SvcWatcher[] = [];
  const multiAgent = lobu.agents.length > 1;

  for (const agent of lobu.agents) {
    if (!ID_PATTERN.test(agent.id)) {
      report.dropped(
        at(agent.base),
        `agents.${agent.id}`,
        'not an agent id svc accepts ([a-z0-9][a-z0-9-]{0,62})',
      );
      continue;
    }
    const out: Record<string, unknown> = {};
    const svc = `svc.toml agents.${agent.id}`;
    // The first generation wrote name and description in [agent].
    const meta = agent.base.length > 0 ? agent.base : ['agent'];
    out.name = typeof agent.raw.name === 'string' && agent.raw.name !== '' ? agent.raw.name : agent.id;
    if (agent.raw.name !== undefined)
      report.kept(at([...meta, 'name']), dotted([...meta, 'name']), `${svc}.name`);
    if (typeof agent.raw.description === 'string') {
      out.description = agent.raw.description;
      report.kept(at([...meta, 'description']), dotted([...meta, 'description']), `${svc}.description`);
    }
    for (const [name, text] of await agentFiles(root, agent, report, at))
      files.set(`agents/${agent.id}/${name}`, text);

    const providers = convertProviders(agent, report, at);
    const { platforms, ids } = convertPlatforms(agent, { report, at, multiAgent });
    const { settings, misnested } = convertSettings(agent, report, at);
    watchers.push(...convertSchedules({ agent, report, at, platformIds: ids }, misnested, SCHEDULES_BUNDLE));

    if (settings.pre_approved_tools) out.pre_approved_tools = settings.pre_approved_tools;
    if (providers.providers.length > 0) out.providers = providers.providers;
    if (platforms.length > 0) out.platforms = platforms;
    if (settings.skills) out.skills = settings.skills;
    if (settings.network) out.network = settings.network;
    if (settings.nix) out.nix = settings.nix;
    if (settings.tools) out.tools = settings.tools;
    if (providers.providers.length > 0) {
      // Lobu tried its providers in the order written: svc's automatic selection among the same.
      out.model_selection = { mode: 'auto', providers: providers.providers.map((p) => p.key) };
      report.add(
        'added',
        at([...agent.base, 'providers']),
        dotted([...agent.base, 'providers']),
        `${svc}.model_selection`,
        'mode auto over the providers, in their order',
      );
    }
    if (Object.keys(providers.preferences).length > 0) out.provider_model_preferences = providers.preferences;
    for (const key of Object.keys(agent.raw)) {
      if (!AGENT_KEYS.includes(key))
        report.dropped(at([...agent.base, key]), dotted([...agent.base, key]), 'not an agent field of svc');
    }
    agents[agent.id] = out;
  }

  for (const key of Object.keys(lobu.rest)) {
    report.dropped(
      at([key]),
      key,
      key === 'owletto'
        ? "svc's CLI keeps server profiles as contexts: svc login --url <server>"
        : 'not a table of svc.toml',
    );
  }

  const memory = convertMemory(lobu.memory, outForSteps, report, at);
  const modelsAt = lobu.memory ? at([...lobu.memory.path, 'models']) : LOBU_TOML;
  const modelFiles = memory.models === null ? [] : await listModels(root, memory.models, modelsAt, report);
  if (lobu.memory === null && modelFiles.length > 0) {
    report.translated(
      LOBU_TOML,
      'models/ (lobu.toml has no [memory])',
      'svc.toml memory.models',
      "read as Lobu's default models folder, which its memory seed read",
    );
  }
  const agentIds = Object.keys(agents);
  const taken = new Set(modelFiles.map((f) => f.out));
  const schedulesBundle = taken.has(SCHEDULES_BUNDLE) ? 'models/lobu-schedules-2.yaml' : SCHEDULES_BUNDLE;
  const { bundles } = convertBundles(
    modelFiles,
    watchers.length > 0 ? { out: schedulesBundle, watchers } : null,
    agentIds,
    report,
  );
  if (memory.connectors)
    await connectorSteps(root, memory.connectors, at([...(lobu.memory?.path ?? []), 'connectors']), report);

  const header = '# Written by `svc import lobu`; its report lists every Lobu key and what became of it.\n\n';
  for (const [path, bundle] of bundles) {
    const lists = Object.fromEntries(
      Object.entries(bundle).filter(([, v]) => !Array.isArray(v) || v.length > 0),
    );
    files.set(path, `${header}${toYaml(lists, { lineWidth: 0 })}`);
  }
  const toml: Record<string, unknown> = { agents };
  if (bundles.size > 0) toml.memory = { models: [...bundles.keys()].sort() };
  files.set('svc.toml', `${header}${toToml(toml)}\n`);
  return { files, report };
}

/** IDENTITY.md, SOUL.md and USER.md of the agent's folder; its local skills are reported dropped. */
async function agentFiles(
  root: string,
  agent: LobuAgent,
  report: ImportReport,
  at: (path: (string | number)[]) => string,
): Promise<[string, string][]> {
  const dirPath = [...agent.base, 'dir'];
  const written = typeof agent.raw.dir === 'string' ? agent.raw.dir : `agents/${agent.id}`;
  const found = await folderInside(root, written);
  if (found === null || 'skipped' in found) {
    report.dropped(
      at(dirPath),
      dotted(dirPath),
      found === null
        ? `the folder "${written}" is not there`
        : `the folder "${written}": ${SKIPPED_WHY[found.skipped]}`,
    );
    return [];
  }
  const dir = found.path;
  if (agent.raw.dir !== undefined)
    report.translated(
      at(dirPath),
      dotted(dirPath),
      `agents/${agent.id}/`,
      "svc's default folder of the agent, holding copies of its Markdown",
    );
  const out: [string, string][] = [];
  for (const name of TEXT_SETTINGS) {
    const shown = relative(root, join(dir, name)) || name;
    const read = await readInside(root, join(relative(root, dir), name));
    if (read === null) continue;
    if ('skipped' in read) {
      report.dropped(`${shown}:1`, name, SKIPPED_WHY[read.skipped]);
      continue;
    }
    out.push([name, read.text]);
    report.translated(`${shown}:1`, name, `agents/${agent.id}/${name}`);
  }
  // A skills/ folder linking elsewhere would list a private folder's names in the report.
  const skillsDir = await folderInside(root, join(relative(root, dir), 'skills'));
  if (skillsDir !== null && 'skipped' in skillsDir) {
    report.dropped(`${relative(root, join(dir, 'skills'))}:1`, 'skills/', SKIPPED_WHY[skillsDir.skipped]);
  }
  const skills =
    skillsDir !== null && 'path' in skillsDir
      ? await readdir(skillsDir.path, { withFileTypes: true }).catch(() => [])
      : [];
  for (const entry of skills) {
    // skills/<name>/SKILL.md, or skills/<name>.md as the first projects wrote them.
    const file = entry.isDirectory()
      ? join(entry.name, 'SKILL.md')
      : entry.name.endsWith('.md')
        ? entry.name
        : null;
    if (file === null) continue;
    report.dropped(
      `${relative(root, join(dir, 'skills', file))}:1`,
      `skill ${entry.name.replace(/\.md$/, '')}`,
      'svc runs no local SKILL.md skills: put its instructions in SOUL.md, or its tools behind an MCP server',
    );
  }
  return out;
}

/** Every YAML file under the models folder, sorted, as `models/<path>` in the svc project. */
async function listModels(
  root: string,
  folder: string,
  where: string,
  report: ImportReport,
): Promise<LobuModelFile[]> {
  const found = await folderInside(root, folder);
  if (found === null) {
    if (folder !== 'models') report.dropped(where, 'memory.models', `the folder "${folder}" is not there`);
    return [];
  }
  if ('skipped' in found) {
    if (found.skipped === 'not a folder')
      throw new ImportError(
        `${where}: memory.models = "${folder}" is a file, not a folder: name the folder of the model YAML files`,
      );
    report.dropped(where, 'memory.models', `the folder "${folder}": ${SKIPPED_WHY[found.skipped]}`);
    return [];
  }
  const dir = found.path;
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const out: LobuModelFile[] = [];
  for (const entry of entries) {
    // Links are not followed (a link inside may name a file outside): Dirent describes the link.
    if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) continue;
    const full = join(entry.parentPath, entry.name);
    const read = await readInside(root, relative(root, full));
    if (read === null || 'skipped' in read) continue;
    const rel = relative(dir, full);
    out.push({
      display: relative(root, full),
      out: `models/${rel.replace(/\.yml$/, '.yaml')}`,
      source: read.text,
    });
  }
  return out.sort((a, b) => a.out.localeCompare(b.out));
}
