/**
 * `[memory]` (also `[memory.lobu]`, `[memory.owletto]`): where the models are, and what becomes a
 * step of the report, since svc keeps it on the server rather than in the project: the org
 * (`svc link`), the connectors folder (`svc connector install`, `svc connection create`).
 */

import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isTable } from '../project/shape.js';
import type { TomlPath } from '../project/toml-locator.js';
import { dotted, ImportError } from './lobu-toml.js';
import { folderInside, readInside, SKIPPED_WHY } from './read.js';
import type { ImportReport, ImportStep } from './report.js';
import { holdsCredential, mayBeCredential, wholeReference } from './secrets.js';
import { shellWord, shellWordExpanding } from './shell.js';

export interface MemoryPlan {
  /** The models folder relative to the Lobu project, or null when memory is off. */
  models: string | null;
  connectors: string | null;
}

const DROPPED: Record<string, string> = {
  name: 'an svc org has a slug only',
  description: 'an svc org has a slug only',
  visibility: 'svc orgs are private to their tokens',
  organization_id: "an id on Lobu's server",
  data: "svc has no seed data: entities come from connectors' syncs and agents' memory_save",
  config: 'owletto.yaml was replaced by [memory] in Lobu itself',
  schema: 'inline [memory.schema] was removed from Lobu (May 2026): write the types in a models/ bundle',
};

export function convertMemory(
  memory: { raw: Record<string, unknown>; path: TomlPath } | null,
  out: string,
  report: ImportReport,
  at: (path: TomlPath) => string,
): MemoryPlan {
  // Lobu read ./models when [memory] named no folder.
  if (!memory) return { models: 'models', connectors: null };
  const { raw, path } = memory;
  if (path.length > 1)
    report.translated(
      at(path),
      dotted(path),
      'svc.toml [memory]',
      `[${dotted(path)}] is the older spelling of [memory]`,
    );
  const plan: MemoryPlan = { models: 'models', connectors: null };
  for (const [key, value] of Object.entries(raw)) {
    const here = [...path, key];
    if (key === 'enabled') {
      if (value === false) {
        plan.models = null;
        report.dropped(at(here), dotted(here), 'memory was off in Lobu: its models are not imported');
      } else report.dropped(at(here), dotted(here), 'svc memory is always on');
    } else if (key === 'models' && typeof value === 'string') {
      plan.models = value.replace(/^\.\//, '').replace(/\/+$/, '') || '.';
      report.translated(
        at(here),
        dotted(here),
        'svc.toml memory.models',
        'every bundle of the folder, listed',
      );
    } else if (key === 'org' && typeof value === 'string') {
      report.translated(
        at(here),
        dotted(here),
        'a step: svc link',
        'an svc project is tied to its org by svc link',
      );
      report.step({
        kind: 'command',
        text: `Lobu's memory org was "${value}": create an org of that slug on the server (console, or POST /api/orgs as admin) and tie the project to it`,
        command: `svc link --dir ${shellWord(out)} --org ${shellWord(value)}`,
      });
    } else if (key === 'connectors' && typeof value === 'string') {
      plan.connectors = value.replace(/^\.\//, '').replace(/\/+$/, '');
      report.translated(at(here), dotted(here), 'steps: svc connector install, svc connection create');
    } else {
      report.dropped(at(here), dotted(here), DROPPED[key] ?? 'not a [memory] field of svc');
    }
  }
  return plan;
}

/**
 * The connectors folder (`*.connector.ts` sources and `type: connection` YAML) as the commands that
 * make the same connections in svc. Nothing here is written to the project: connections are the
 * org's, and their credentials are read from the environment by `svc connection create`. Every
 * value in a command is one quoted shell word, and no value that may be a credential is printed.
 */
export async function connectorSteps(
  root: string,
  folder: string,
  where: string,
  report: ImportReport,
): Promise<void> {
  const found = await folderInside(root, folder);
  if (found === null || 'skipped' in found) {
    if (found?.skipped === 'not a folder')
      throw new ImportError(
        `${where}: memory.connectors = "${folder}" is a file, not a folder: name the folder of the connectors`,
      );
    const why = found === null ? 'is not there' : `: ${SKIPPED_WHY[found.skipped]}`;
    report.dropped(where, 'memory.connectors', `the folder "${folder}" ${why}`);
    return;
  }
  const names = (await readdir(found.path)).sort();
  for (const name of names) {
    const path = join(found.path, name);
    const display = relative(root, path);
    const isSource = name.endsWith('.connector.ts') || (name.endsWith('.ts') && !name.endsWith('.d.ts'));
    if (!isSource && !name.endsWith('.yaml') && !name.endsWith('.yml')) continue;
    const read = await readInside(root, display);
    if (read === null) continue;
    if ('skipped' in read) {
      report.dropped(`${display}:1`, display, SKIPPED_WHY[read.skipped]);
      continue;
    }
    if (isSource) {
      report.step({
        kind: 'command',
        text: `install the connector ${display} (a file with relative imports is bundled into one module)`,
        command: `svc connector install ${shellWord(path)}`,
      });
    } else {
      for (const step of connectionSteps(read.text, display, report)) report.step(step);
    }
  }
}

/** One `svc connection create` step per `type: connection` document of a connectors YAML file. */
function connectionSteps(source: string, display: string, report: ImportReport): ImportStep[] {
  const credentials = new Map<string, Record<string, unknown>>();
  let list: Record<string, unknown>[];
  try {
    const documents = parseAllDocuments(source);
    // yaml hands back what it could read of a broken file: a value could land under another key.
    const broken = documents.flatMap((d) => d.errors)[0];
    if (broken) throw new ImportError(`${display}: not valid YAML: ${broken.message.split('\n')[0]}`);
    list = documents.map((d) => d.toJS() as unknown).filter(isTable);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    // yaml refuses more aliases than maxAliasCount (an alias bomb): say so rather than crash.
    throw new ImportError(`${display}: not read: ${(error as Error).message.split('\n')[0]}`);
  }
  for (const doc of list) {
    if (doc.type === 'auth_profile' && typeof doc.slug === 'string' && isTable(doc.credentials))
      credentials.set(doc.slug, doc.credentials);
  }
  const steps: ImportStep[] = [];
  for (const doc of list) {
    if (doc.type !== 'connection' || typeof doc.connector !== 'string') continue;
    const slug = String(doc.slug ?? doc.name ?? doc.connector);
    const args = ['svc connection create', shellWord(doc.connector)];
    if (typeof doc.name === 'string') args.push(`--name ${shellWord(doc.name)}`);
    if (isTable(doc.config)) {
      for (const [k, v] of Object.entries(doc.config))
        args.push(configArg(report, `${display} ${slug}`, slug, k, v));
    }
    for (const profile of [doc.auth, doc.app_auth]) {
      const creds = typeof profile === 'string' ? credentials.get(profile) : undefined;
      for (const [field, value] of Object.entries(creds ?? {})) {
        const variable =
          wholeReference(value) ?? report.variables.name(`auth_profile ${String(profile)}.${field}`, field);
        args.push(`--credential ${shellWord(`${field}=${variable}`)}`);
      }
    }
    steps.push({
      kind: 'command',
      text: `Lobu connection "${slug}" (${display}): install connector "${doc.connector}" (svc connector install <its .ts file>, or rss / code-host), then create it; each --credential names the environment variable holding the value`,
      command: args.join(' '),
    });
  }
  return steps;
}

/**
 * `--config key=value`, or `--credential key=VARIABLE` when the value may be a credential (by its
 * key, or a URL holding user info or a key): a credential is never printed, the user exports it.
 */
function configArg(report: ImportReport, owner: string, slug: string, key: string, value: unknown): string {
  const reference = wholeReference(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (mayBeCredential(key) || (reference === null && holdsCredential(value))) {
    const variable = reference ?? report.variables.name(`${owner}.${key}`, slug, key);
    return `--credential ${shellWord(`${key}=${variable}`)}`;
  }
  // key:=JSON keeps a number or list what it was (svc connection create reads both spellings).
  if (typeof value !== 'string') return `--config ${shellWord(`${key}:=${text}`)}`;
  return `--config ${shellWord(`${key}=`)}${shellWordExpanding(value)}`;
}
