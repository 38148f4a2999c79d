/**
 * Lobu's memory models as svc bundles. Lobu wrote one model per file (`version: 1`, `type: entity`,
 * `relationship` or `watcher`) and later bundles (`version: 2` with `entities`, `relationships`,
 * `watchers` lists), several documents to a file at times; each file becomes one svc bundle
 * (`version: 2`) of the same name. Fields svc has no equivalent for are dropped with the reason, and
 * an item svc would refuse is dropped whole, so the bundles load as written.
 */

import { invalidSchemaProblems, schemaLimitProblems } from '@svc/connector-sdk';
import {
  entityTypeSchema,
  extractionSchemaRootProblem,
  relationshipTypeSchema,
  ruleSlugs,
  watcherSchema,
} from '@svc/core';
import { LineCounter, parseAllDocuments } from 'yaml';
import { isTable } from '../project/shape.js';
import { ImportError } from './lobu-toml.js';
import type { ImportReport } from './report.js';
import { translateQuery } from './sql-sources.js';

type Kind = 'entities' | 'relationships' | 'watchers';
const SINGULAR: Record<Kind, string> = {
  entities: 'entity',
  relationships: 'relationship',
  watchers: 'watcher',
};
const KIND_OF_TYPE: Record<string, Kind> = {
  entity: 'entities',
  relationship: 'relationships',
  watcher: 'watchers',
};
const SCHEMAS = {
  entities: entityTypeSchema,
  relationships: relationshipTypeSchema,
  watchers: watcherSchema,
};

const KEPT: Record<Kind, string[]> = {
  entities: ['slug', 'name', 'description', 'icon', 'color', 'metadata_schema'],
  relationships: ['slug', 'name', 'description', 'metadata_schema', 'rules'],
  watchers: [
    'slug',
    'name',
    'schedule',
    'prompt',
    'agent',
    'timezone',
    'description',
    'extraction_schema',
    'tags',
    'sources',
    'notification_channel',
    'min_cooldown_seconds',
  ],
};

/** Why svc has no place for a Lobu field; the default is "not a field of svc's <kind>". */
const WHY: Record<string, string> = {
  auto_create_when: "svc's identity rules live in connectors (identities), not in relationship types",
  reactions_guidance: 'svc has no reaction agent: put the guidance in the prompt',
  reaction_script: 'svc runs no reaction scripts',
  notification_priority: 'svc has no notification priorities',
  device_worker_id: 'svc has no device workers',
  scheduler_client_id: 'svc schedules every watcher itself',
  agent_kind: 'svc has one kind of agent',
  json_template: 'svc shows the result as stored',
  keying_config: 'svc keys a window by its watcher and time',
  classifiers: 'svc has no classifiers',
  condensation_prompt: 'svc does not condense windows',
  condensation_window_count: 'svc does not condense windows',
  entity: 'svc watchers read sources, not one entity',
  entity_id: 'svc watchers read sources, not one entity',
  metadata: 'svc keeps no free-form metadata on a type',
};

export interface LobuModelFile {
  /** As the report shows it: `models/company.yaml`. */
  display: string;
  /** The svc bundle it becomes, relative to the svc project: `models/company.yaml`. */
  out: string;
  source: string;
}

interface Item {
  kind: Kind;
  data: Record<string, unknown>;
  out: string;
  at: string;
  label: string;
}

export interface ConvertedBundles {
  /** Bundle path -> its content, in svc's v2 shape. */
  bundles: Map<string, { version: 2; entities: unknown[]; relationships: unknown[]; watchers: unknown[] }>;
  watcherSlugs: Set<string>;
}

export function convertBundles(
  files: LobuModelFile[],
  extra: { out: string; watchers: Record<string, unknown>[] } | null,
  agentIds: string[],
  report: ImportReport,
): ConvertedBundles {
  const items: Item[] = [];
  for (const file of files) items.push(...readFile(file, report));
  const bundles: ConvertedBundles['bundles'] = new Map();
  const seen: Record<Kind, Set<string>> = {
    entities: new Set(),
    relationships: new Set(),
    watchers: new Set(),
  };
  const entityTypes = new Set(
    items
      .filter((i) => i.kind === 'entities')
      .map((i) => i.data.slug)
      .filter((s) => typeof s === 'string'),
  );
  const extraItems: Item[] = (extra?.watchers ?? []).map((data) => ({
    kind: 'watchers',
    data,
    out: extra?.out as string,
    at: 'lobu.toml',
    label: `schedule ${String(data.slug)}`,
  }));
  for (const item of [...items, ...extraItems]) {
    const data = item.kind === 'watchers' ? watcher(item, agentIds, report) : item.data;
    if (!data) continue;
    if (item.kind === 'relationships') rules(item, entityTypes, report);
    const parsed = SCHEMAS[item.kind].safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      report.dropped(
        item.at,
        item.label,
        `svc refuses it: ${issue?.path.join('.') || '(item)'}: ${issue?.message}`,
      );
      continue;
    }
    const slug = String(data.slug);
    if (seen[item.kind].has(slug)) {
      report.dropped(item.at, item.label, `another ${SINGULAR[item.kind]} already has slug "${slug}"`);
      continue;
    }
    seen[item.kind].add(slug);
    const bundle = bundles.get(item.out) ?? { version: 2, entities: [], relationships: [], watchers: [] };
    bundle[item.kind].push(data);
    bundles.set(item.out, bundle);
    if (item.at !== 'lobu.toml')
      report.translated(item.at, item.label, `${item.out} ${item.kind}[${bundle[item.kind].length - 1}]`);
  }
  return { bundles, watcherSlugs: seen.watchers };
}

/** Every model of a file, with the fields svc has and the rest reported as dropped. */
function readFile(file: LobuModelFile, report: ImportReport): Item[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(file.source, { lineCounter });
  const items: Item[] = [];
  const docList = Array.isArray(docs) ? docs : [docs];
  for (const doc of docList) {
    const lineOf = (path: (string | number)[]) => {
      for (let n = path.length; n >= 0; n--) {
        const node = doc.getIn(path.slice(0, n), true) as { range?: [number] } | undefined;
        const offset = n === 0 ? doc.contents?.range?.[0] : node?.range?.[0];
        if (offset !== undefined) return `${file.display}:${lineCounter.linePos(offset).line}`;
      }
      return `${file.display}:1`;
    };
    if (doc.errors.length > 0) {
      const error = doc.errors[0];
      const line = error?.linePos?.[0]?.line ?? 1;
      report.dropped(
        `${file.display}:${line}`,
        file.display,
        `invalid YAML: ${error?.message.split('\n')[0]}`,
      );
      continue;
    }
    let data: unknown;
    try {
      data = doc.toJS();
    } catch (error) {
      // yaml refuses more aliases than maxAliasCount (a "billion laughs" file): an error, not a crash.
      throw new ImportError(
        `${lineOf([])}: not read: ${(error as Error).message.split('\n')[0]}; expand the aliases or remove the file`,
      );
    }
    if (data === null || data === undefined) continue;
    if (!isTable(data)) {
      report.dropped(lineOf([]), file.display, 'not a mapping');
      continue;
    }
    const kindOfDoc = typeof data.type === 'string' ? KIND_OF_TYPE[data.type] : undefined;
    if (kindOfDoc) {
      // One model per file: version 1 (or 2 with type:, as some hand-written files are).
      report.translated(
        lineOf(['type']),
        `${file.display} type: ${String(data.type)}`,
        `${file.out} ${kindOfDoc}`,
        'one model per file becomes a bundle list',
      );
      items.push(pick(kindOfDoc, data, [], file, lineOf, report, ['type', 'version']));
      continue;
    }
    const lists = (['entities', 'relationships', 'watchers'] as Kind[]).filter((k) => data[k] !== undefined);
    if (lists.length === 0) {
      report.dropped(
        lineOf([]),
        file.display,
        'neither one model (type:) nor a bundle (entities, relationships, watchers)',
      );
      continue;
    }
    for (const key of Object.keys(data)) {
      if (key !== 'version' && !lists.includes(key as Kind))
        report.dropped(lineOf([key]), `${file.display} ${key}`, 'not a bundle field of svc');
    }
    for (const kind of lists) {
      const list = data[kind];
      if (!Array.isArray(list)) {
        report.dropped(lineOf([kind]), `${file.display} ${kind}`, 'not a list');
        continue;
      }
      list.forEach((entry, i) => {
        if (isTable(entry))
          items.push(pick(kind, entry, [kind, i], file, lineOf, report, ['type', 'version']));
        else report.dropped(lineOf([kind, i]), `${file.display} ${kind}[${i}]`, 'not a mapping');
      });
    }
  }
  return items;
}

function pick(
  kind: Kind,
  raw: Record<string, unknown>,
  base: (string | number)[],
  file: LobuModelFile,
  lineOf: (path: (string | number)[]) => string,
  report: ImportReport,
  ignored: string[],
): Item {
  const label = `${file.display} ${SINGULAR[kind]} ${typeof raw.slug === 'string' ? raw.slug : '(no slug)'}`;
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (ignored.includes(key)) continue;
    if (KEPT[kind].includes(key)) data[key] = value;
    else
      report.dropped(
        lineOf([...base, key]),
        `${label} ${key}`,
        WHY[key] ?? `not a field of svc's ${SINGULAR[kind]}`,
      );
  }
  for (const field of ['metadata_schema', 'extraction_schema']) {
    const schema = data[field];
    if (schema === undefined) continue;
    const problem = !isTable(schema)
      ? 'not a mapping'
      : (schemaLimitProblems(schema)[0] ??
        invalidSchemaProblems(schema)[0] ??
        (field === 'extraction_schema' && Object.keys(schema).length > 0
          ? extractionSchemaRootProblem(schema)
          : null));
    if (isTable(schema) && Object.keys(schema).length === 0) {
      delete data[field]; // Lobu's default, `{}`: svc's is none.
    } else if (problem) {
      delete data[field];
      report.dropped(lineOf([...base, field]), `${label} ${field}`, `svc would refuse it: ${problem}`);
    }
  }
  return { kind, data, out: file.out, at: lineOf(base), label };
}

/** A relationship's rules without the sides svc cannot name (`$member`, undeclared types). */
function rules(item: Item, entityTypes: Set<unknown>, report: ImportReport): void {
  const list = item.data.rules;
  if (!Array.isArray(list)) return;
  const kept = list.filter((rule) => {
    if (!isTable(rule)) return false;
    for (const side of ['source', 'target'] as const) {
      const value = rule[side];
      const slugs =
        typeof value === 'string' || Array.isArray(value) ? ruleSlugs(value as string | string[]) : [];
      const missing = slugs.find((s) => !entityTypes.has(s));
      if (slugs.length === 0 || missing !== undefined) {
        report.dropped(
          item.at,
          `${item.label} rules {source: ${String(rule.source)}, target: ${String(rule.target)}}`,
          missing?.startsWith('$')
            ? `svc has no "${missing}": a rule joins entity types the bundles declare`
            : `no bundle declares entity type "${missing ?? '?'}"`,
        );
        return false;
      }
    }
    return true;
  });
  if (kept.length === 0 && list.length > 0) {
    delete item.data.rules;
    report.step({
      kind: 'note',
      text: `relationship type "${String(item.data.slug)}" lost all its rules, so in svc it may join any two entities: add rules naming declared entity types if that is too wide`,
    });
  } else item.data.rules = kept.map((r) => ({ source: r.source, target: r.target }));
}

/** A watcher with its agent filled in (one agent) and its SQL sources translated; null when dropped. */
function watcher(item: Item, agentIds: string[], report: ImportReport): Record<string, unknown> | null {
  const data = item.data;
  if (data.agent === undefined) {
    if (agentIds.length !== 1) {
      report.dropped(
        item.at,
        item.label,
        `names no agent, and the project has ${agentIds.length}: add agent: <id>`,
      );
      return null;
    }
    data.agent = agentIds[0];
    report.add(
      'added',
      item.at,
      `${item.label} agent`,
      `${item.out} agent: ${agentIds[0]}`,
      'the project has one agent',
    );
  } else if (!agentIds.includes(String(data.agent))) {
    report.dropped(
      item.at,
      item.label,
      `names agent "${String(data.agent)}", which lobu.toml does not declare`,
    );
    return null;
  }
  if (!Array.isArray(data.sources)) return data;
  const sources: Record<string, unknown>[] = [];
  let all = false;
  let lost = 0;
  for (const source of data.sources) {
    if (isTable(source) && (source.connector || source.feed || source.entity_type)) {
      sources.push(source); // already svc's shape
      continue;
    }
    const query = isTable(source) && typeof source.query === 'string' ? source.query : null;
    const filters = query === null ? null : translateQuery(query);
    const name = isTable(source) && typeof source.name === 'string' ? source.name : undefined;
    if (filters === null) {
      lost++;
      report.dropped(
        item.at,
        `${item.label} sources ${name ?? '(unnamed)'}`,
        'its SQL is more than a connector_key or entity_type filter; svc sources name connector, feed or entity_type',
      );
    } else if (filters.length === 0) all = true;
    else {
      for (const f of filters) sources.push({ ...(name ? { name } : {}), ...f });
      report.translated(
        item.at,
        `${item.label} sources ${name ?? '(unnamed)'}`,
        `${item.out} sources`,
        'its SQL filter as connector / entity_type',
      );
    }
  }
  if (all || sources.length === 0) {
    delete data.sources;
    if (lost > 0)
      report.step({
        kind: 'note',
        text: `watcher "${String(data.slug)}" kept none of its SQL sources, so in svc it reads all of the org's events: add sources (connector, feed, entity_type) to narrow it`,
      });
  } else data.sources = sources;
  return data;
}
