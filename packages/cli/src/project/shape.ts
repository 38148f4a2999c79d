/**
 * The layout of `svc.toml` (README.md beside this file documents it): which keys each table allows,
 * and the camelCase name each snake_case key has in the settings of `@svc/core`. Values are checked
 * by core's zod schemas afterwards; this layer only knows names, so unknown keys get a position and
 * a "did you mean" hint, and core's error paths can be mapped back to where they are written.
 */

import type { TomlPath } from './toml-locator.js';

export type Shape =
  | { kind: 'leaf' }
  | { kind: 'table'; fields: Record<string, Field> }
  /** A table whose keys are names chosen by the author (agent ids, MCP server ids, providers). */
  | { kind: 'map'; value: Shape }
  | { kind: 'list'; item: Shape };

export interface Field {
  /** The key's name on the core side, when it differs from the TOML key. */
  as?: string;
  shape: Shape;
  /** Set on another spelling of a key (`allowed` for `allowed_domains`): the key it stands for. */
  aliasOf?: string;
}

const leaf: Shape = { kind: 'leaf' };
const list = (item: Shape = leaf): Shape => ({ kind: 'list', item });
const map = (value: Shape): Shape => ({ kind: 'map', value });
/** Another spelling of a key declared before it in the same table. */
const alias = (key: string) => ({ aliasOf: key });
type FieldSpec = string | Shape | [string, Shape] | { aliasOf: string } | null;

/** A table: each entry is a TOML key, its core name (or the same name), and its shape (or a value). */
function table(fields: Record<string, FieldSpec>): Shape {
  const out: Record<string, Field> = {};
  for (const [key, spec] of Object.entries(fields)) {
    if (spec === null) out[key] = { shape: leaf };
    else if (typeof spec === 'string') out[key] = { as: spec, shape: leaf };
    else if (Array.isArray(spec)) out[key] = { as: spec[0], shape: spec[1] };
    else if ('aliasOf' in spec) {
      const target = out[spec.aliasOf];
      if (!target) throw new Error(`alias ${key} of undeclared key ${spec.aliasOf}`);
      out[key] = { as: target.as ?? spec.aliasOf, shape: target.shape, aliasOf: spec.aliasOf };
    } else out[key] = { shape: spec };
  }
  return { kind: 'table', fields: out };
}

/** The keys a table documents, for "did you mean": its aliases are accepted, not suggested. */
export const documentedKeys = (shape: Shape & { kind: 'table' }): string[] =>
  Object.entries(shape.fields)
    .filter(([, f]) => !f.aliasOf)
    .map(([k]) => k);

const mcpServer = table({
  url: null,
  command: null,
  args: null,
  headers: null,
  env: null,
  oauth: table({ client_id: null, client_secret: null, scopes: null }),
});

export const agentShape = table({
  name: null,
  description: null,
  dir: null,
  providers: list(table({ key: null, secret_ref: null })),
  platforms: list(table({ type: null, name: null, config: null })),
  skills: table({
    mcp: ['mcpServers', map(mcpServer)],
    list: ['skills', list(table({ name: null, source: null, enabled: null }))],
  }),
  network: [
    'networkConfig',
    // `allowed` / `denied` are how Lobu projects write these lists.
    table({
      allowed_domains: 'allowedDomains',
      denied_domains: 'deniedDomains',
      allowed: alias('allowed_domains'),
      denied: alias('denied_domains'),
    }),
  ],
  egress: ['egressConfig', table({ mode: null, proxy_url: 'proxyUrl', allowed_ports: 'allowedPorts' })],
  nix: ['nixConfig', table({ packages: null, channel: null })],
  tools: ['toolsConfig', table({ allowed: null, denied: null, max_calls_per_turn: 'maxCallsPerTurn' })],
  guardrails: table({
    max_input_chars: 'maxInputChars',
    max_output_chars: 'maxOutputChars',
    blocked_terms: 'blockedTerms',
    redact_pii: 'redactPii',
  }),
  pre_approved_tools: 'preApprovedTools',
  model_selection: ['modelSelection', table({ mode: null, model: null, providers: null })],
  provider_model_preferences: [
    'providerModelPreferences',
    map(
      table({
        model: null,
        fallback_models: 'fallbackModels',
        temperature: null,
        max_output_tokens: 'maxOutputTokens',
      }),
    ),
  ],
});

export const projectShape = table({
  agents: map(agentShape),
  memory: table({ models: null }),
});

/** A key the shape does not know, or (`sameAs`) one written in a table that also has its alias. */
export interface KeyProblem {
  /** Path of the key itself. */
  path: TomlPath;
  allowed: string[];
  /** The other spelling of the same key, also written in the table. */
  sameAs?: string;
}

/** smol-toml's tables have no prototype; its dates are Date objects, which are values. */
export const isTable = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);

/**
 * Renames keys to their core names and reports keys the shape does not know (which are dropped).
 * Values of the wrong kind are passed through unchanged, for the zod schemas to describe.
 */
export function convert(value: unknown, shape: Shape, path: TomlPath, unknown: KeyProblem[]): unknown {
  if (shape.kind === 'list' && Array.isArray(value)) {
    return value.map((item, i) => convert(item, shape.item, [...path, i], unknown));
  }
  if (shape.kind === 'map' && isTable(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, convert(v, shape.value, [...path, k], unknown)]),
    );
  }
  if (shape.kind === 'table' && isTable(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const field = shape.fields[k];
      if (field?.aliasOf && field.aliasOf in value) {
        // Which of the two lists was meant is not ours to guess: both are reported at the alias.
        unknown.push({ path: [...path, k], allowed: [], sameAs: field.aliasOf });
      } else if (field) out[field.as ?? k] = convert(v, field.shape, [...path, k], unknown);
      else unknown.push({ path: [...path, k], allowed: documentedKeys(shape) });
    }
    return out;
  }
  return value;
}

/**
 * The TOML path of a path on the core side (as zod reports it), through the shape's renames. `raw`,
 * the table as written, says which spelling of an aliased key the file has.
 */
export function tomlPathOf(
  shape: Shape,
  corePath: readonly PropertyKey[],
  raw?: unknown,
): (string | number)[] {
  const out: (string | number)[] = [];
  let current: Shape = shape;
  let written = raw;
  for (const segment of corePath) {
    const seg = typeof segment === 'number' ? segment : String(segment);
    if (current.kind === 'table') {
      const entries = Object.entries(current.fields).filter(([k, f]) => (f.as ?? k) === seg);
      const entry = entries.find(([k]) => isTable(written) && k in written) ?? entries[0];
      out.push(entry ? entry[0] : seg);
      current = entry ? entry[1].shape : leaf;
      written = isTable(written) && entry ? written[entry[0]] : undefined;
      continue;
    }
    written =
      isTable(written) || Array.isArray(written) ? (written as Record<string, unknown>)[seg] : undefined;
    if (current.kind === 'map') {
      out.push(seg);
      current = current.value;
    } else if (current.kind === 'list') {
      // A JSON Pointer's index arrives as text; the locator counts array elements by number.
      out.push(typeof seg === 'string' && /^\d+$/.test(seg) ? Number(seg) : seg);
      current = current.item;
    } else {
      out.push(seg);
    }
  }
  return out;
}

/** The value at `path` of nested tables, or undefined. */
export function get(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) current = isTable(current) ? current[key] : undefined;
  return current;
}
