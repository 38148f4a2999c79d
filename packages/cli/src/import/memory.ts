/**
 * `[memory]` (also `[memory.lobu]`, `[memory.owletto]`): where the models are, and what becomes a
 * step of the report, since svc keeps it on the server rather than in the project: the org
 * (`svc link`), the connectors folder (`svc connector install`, `svc connection create`).
 */

import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isTable } from '../project/shape.js';
import type { TomlPath } from '../project/toml-locator.js';
import { dotted } from './lobu-toml.js';
import type { ImportReport } from './report.js';
import { holdsReference, looksSecret, variableName } from './secrets.js';

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
        command: `svc link --dir ${out} --org ${value}`,
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
 * org's, and their credentials are read from the environment by `svc connection create`.
 */
export async function connectorSteps(lobuDir: string, folder: string, report: ImportReport): Promise<void> {
  const dir = join(lobuDir, folder);
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    report.dropped(`lobu.toml`, `memory.connectors`, `the folder ${folder} is not there`);
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    const display = relative(lobuDir, path);
    if (name.endsWith('.connector.ts') || (name.endsWith('.ts') && !name.endsWith('.d.ts'))) {
      report.step({
        kind: 'command',
        text: `install the connector ${display} (a file with relative imports is bundled into one module)`,
        command: `svc connector install ${path}`,
      });
    } else if (name.endsWith('.yaml') || name.endsWith('.yml')) {
      const credentials = new Map<string, Record<string, unknown>>();
      const docs = parseAllDocuments(await readFile(path, 'utf8'));
      const list = (Array.isArray(docs) ? docs : [docs]).map((d) => d.toJS() as unknown).filter(isTable);
      for (const doc of list) {
        if (doc.type === 'auth_profile' && typeof doc.slug === 'string' && isTable(doc.credentials))
          credentials.set(doc.slug, doc.credentials);
      }
      for (const doc of list) {
        if (doc.type !== 'connection' || typeof doc.connector !== 'string') continue;
        const args = [`svc connection create ${doc.connector}`];
        if (typeof doc.name === 'string') args.push(`--name ${JSON.stringify(doc.name)}`);
        if (isTable(doc.config)) {
          for (const [k, v] of Object.entries(doc.config)) {
            // A credential written in the config is never printed: the command names a variable.
            const value = looksSecret(k) && !holdsReference(String(v)) ? `$${variableName(k)}` : String(v);
            args.push(`--config ${k}=${JSON.stringify(value)}`);
          }
        }
        for (const profile of [doc.auth, doc.app_auth]) {
          const creds = typeof profile === 'string' ? credentials.get(profile) : undefined;
          for (const [field, value] of Object.entries(creds ?? {})) {
            const variable =
              typeof value === 'string' ? /^\$\{?([A-Z_][A-Z0-9_]*)\}?$/.exec(value)?.[1] : undefined;
            args.push(`--credential ${field}=${variable ?? field}`);
          }
        }
        report.step({
          kind: 'command',
          text: `Lobu connection "${String(doc.slug ?? doc.name)}" (${display}): install connector "${doc.connector}" (svc connector install <its .ts file>, or rss / code-host), then create it; each --credential names the environment variable holding the value`,
          command: args.join(' '),
        });
      }
    }
  }
}
