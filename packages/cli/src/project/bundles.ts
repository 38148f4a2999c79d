/** Reads memory model bundles: YAML files with entity types, relationship types and watchers. */

import { entityTypeSchema, relationshipTypeSchema, watcherSchema } from '@svc/core';
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import {
  type Context,
  type Locate,
  renderPath,
  report,
  reportIssues,
  reportUnknownKey,
  reportUnstorableText,
} from './issues.js';
import { checkNotificationChannels, checkRules, reportSchemaProblems } from './memory-model.js';
import type { ProjectProblem } from './problems.js';
import type { TomlPath } from './toml-locator.js';
import type { EntityType, RelationshipType, Watcher } from './types.js';

export const BUNDLE_VERSION = 2;

const KINDS = {
  entities: { schema: entityTypeSchema, label: 'entity type' },
  relationships: { schema: relationshipTypeSchema, label: 'relationship type' },
  watchers: { schema: watcherSchema, label: 'watcher' },
} as const;
type Kind = keyof typeof KINDS;
const TOP_KEYS = ['version', ...Object.keys(KINDS)];

interface Located<T> {
  item: T;
  ctx: Context;
  path: TomlPath;
}

/** What all bundles hold together, with positions for the checks that span bundles. */
export interface Bundles {
  entities: Located<EntityType>[];
  relationships: Located<RelationshipType>[];
  watchers: Located<Watcher>[];
}

export const emptyBundles = (): Bundles => ({ entities: [], relationships: [], watchers: [] });

/** Adds one bundle's valid items to `into`; every problem goes to `problems`. */
export function readBundle(file: string, source: string, problems: ProjectProblem[], into: Bundles): void {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, keepSourceTokens: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    for (const error of doc.errors) {
      const [start] = error.linePos ?? [{ line: 1, col: 1 }];
      // prettyErrors appends " at line L, column C:" and a code excerpt; the position is ours to print.
      const message = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
      problems.push({ file, line: start.line, col: start.col, message: `invalid YAML: ${message}` });
    }
    return;
  }
  const ctx: Context = { file, syntax: 'yaml', locate: yamlLocator(doc.contents, lineCounter), problems };
  const data: unknown = doc.toJS();
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    report(ctx, [], 'value', `a memory bundle must be a mapping with "version: ${BUNDLE_VERSION}"`);
    return;
  }
  const top = data as Record<string, unknown>;
  reportUnstorableText(ctx, top);
  for (const key of Object.keys(top)) if (!TOP_KEYS.includes(key)) reportUnknownKey(ctx, [key], TOP_KEYS);
  if (top.version !== BUNDLE_VERSION) {
    const found = top.version === undefined ? 'it is missing' : `got ${JSON.stringify(top.version)}`;
    report(ctx, ['version'], 'value', `version must be ${BUNDLE_VERSION} (${found})`);
  }
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const list = top[kind] ?? [];
    if (!Array.isArray(list)) {
      report(ctx, [kind], 'value', `${kind} must be a list`);
      continue;
    }
    const { schema } = KINDS[kind];
    list.forEach((raw, i) => {
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        reportIssues(ctx, parsed.error.issues, (p) => [kind, i, ...(p as (string | number)[])], {
          input: raw,
          allowedKeys: (p) => (p.length === 2 ? Object.keys(schema.shape) : []),
        });
        return;
      }
      const item = parsed.data;
      if ('extraction_schema' in item) {
        reportSchemaProblems(ctx, [kind, i, 'extraction_schema'], item.extraction_schema, {
          objectRoot: true,
        });
      }
      if ('metadata_schema' in item)
        reportSchemaProblems(ctx, [kind, i, 'metadata_schema'], item.metadata_schema);
      (into[kind] as Located<unknown>[]).push({ item, ctx, path: [kind, i] });
    });
  }
}

/**
 * Checks that span bundles and svc.toml: unique slugs per kind, relationship rules that name
 * declared entity types, watchers that name declared agents (unless `agentIds` is null: svc.toml
 * could not be read, and its agents are unknown) and platforms of their agent (`platforms`: each
 * valid agent's platform stable IDs).
 */
export function checkBundles(
  bundles: Bundles,
  agentIds: Set<string> | null,
  platforms: Map<string, string[]> = new Map(),
): void {
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const seen = new Map<string, Located<{ slug: string }>>();
    for (const entry of bundles[kind] as Located<{ slug: string }>[]) {
      const first = seen.get(entry.item.slug);
      if (!first) {
        seen.set(entry.item.slug, entry);
        continue;
      }
      const { line, col } = first.ctx.locate([...first.path, 'slug'], 'value');
      report(
        entry.ctx,
        [...entry.path, 'slug'],
        'value',
        `duplicate ${KINDS[kind].label} slug "${entry.item.slug}": also defined at ${first.ctx.file}:${line}:${col}`,
      );
    }
  }
  checkRules(bundles);
  if (!agentIds) return;
  checkNotificationChannels(bundles, platforms);
  for (const { item, ctx, path } of bundles.watchers) {
    if (!agentIds.has(item.agent)) {
      const known = [...agentIds].map((id) => `"${id}"`).join(', ');
      report(
        ctx,
        [...path, 'agent'],
        'value',
        `${renderPath([...path, 'agent'])}: watcher "${item.slug}" names agent "${item.agent}", which svc.toml does not declare`,
        known ? `declared agents: ${known}` : 'svc.toml declares no agents',
      );
    }
  }
}

/** `file:line:col` of each watcher's `agent` value, by slug, for checks made against the server. */
export function watcherAgentPositions(bundles: Bundles): Record<string, string> {
  const at: Record<string, string> = {};
  for (const { item, ctx, path } of bundles.watchers) {
    const { line, col } = ctx.locate([...path, 'agent'], 'value');
    at[item.slug] = `${ctx.file}:${line}:${col}`;
  }
  return at;
}

/** Positions of keys and values in a parsed YAML document, with the nearest ancestor as fallback. */
function yamlLocator(root: unknown, lineCounter: LineCounter): Locate {
  const position = (node: Node | null | undefined) => {
    const offset = node?.range?.[0];
    return offset === undefined ? undefined : lineCounter.linePos(offset);
  };
  return (path, at) => {
    let node: unknown = root;
    let best = position(root as Node) ?? { line: 1, col: 1 };
    for (const [n, segment] of path.entries()) {
      const last = n === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find(
          (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment),
        );
        if (!pair) break;
        const keyPos = position(pair.key as Node);
        // `name:` with nothing after it has an empty value node at the line's end; the key reads better.
        const empty = isScalar(pair.value) && pair.value.value === null && pair.value.source === '';
        const valuePos = empty ? undefined : position(pair.value as Node);
        best = (last && at === 'value' ? (valuePos ?? keyPos) : keyPos) ?? best;
        node = pair.value;
      } else if (isSeq(node)) {
        node = node.items[Number(segment)];
        best = position(node as Node) ?? best;
      } else break;
    }
    return best;
  };
}
