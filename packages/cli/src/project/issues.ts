/** Turns zod issues and unknown keys into positioned problems, for TOML and YAML alike. */

import type { idSchema } from '@svc/core';
import { didYouMean, type ProjectProblem } from './problems.js';
import { isTable } from './shape.js';
import type { Position, TomlPath } from './toml-locator.js';

/** zod's issue type, reached through a core schema: the CLI does not depend on zod itself. */
export type Issue = NonNullable<ReturnType<typeof idSchema.safeParse>['error']>['issues'][number];

export type Locate = (path: TomlPath, at: 'key' | 'value') => Position;

/** `agents.support.platforms[0].config.token`; keys that are not bare are quoted. */
export function renderPath(path: TomlPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else {
      const key = /^[A-Za-z0-9_-]+$/.test(segment) ? segment : JSON.stringify(segment);
      out += out === '' ? key : `.${key}`;
    }
  }
  return out;
}

/** The table a key sits in, as its TOML header: `[agents.support]`, `[[agents.support.platforms]]`. */
export function renderTable(path: TomlPath, syntax: Context['syntax'] = 'toml'): string {
  if (path.length === 0) return 'at the top level';
  if (syntax === 'yaml') return `in ${renderPath(path)}`;
  const keys = renderPath(path.filter((s) => typeof s === 'string'));
  return typeof path[path.length - 1] === 'number' ? `in [[${keys}]]` : `in [${keys}]`;
}

export interface Context {
  file: string;
  /** How tables are named in messages: `[agents.x]` in TOML, `entities[0]` in YAML. */
  syntax: 'toml' | 'yaml';
  locate: Locate;
  problems: ProjectProblem[];
  /** What is accepted but likely not meant (a platform config key no protocol reads). */
  warnings?: ProjectProblem[];
}

export function report(
  ctx: Context,
  path: TomlPath,
  at: 'key' | 'value',
  message: string,
  hint?: string,
): void {
  const { line, col } = ctx.locate(path, at);
  ctx.problems.push(
    hint === undefined
      ? { file: ctx.file, line, col, message }
      : { file: ctx.file, line, col, message, hint },
  );
}

export function reportUnknownKey(ctx: Context, path: TomlPath, allowed: readonly string[]): void {
  const key = String(path[path.length - 1]);
  report(
    ctx,
    path,
    'key',
    `unknown key "${key}" ${renderTable(path.slice(0, -1), ctx.syntax)}`,
    didYouMean(key, allowed),
  );
}

/**
 * One problem per zod issue. `toPath` maps zod's path (relative to the value checked) to the path
 * in the file. `input`, the value checked, tells a missing key from a wrong one: zod words a missing
 * enum or union member as "expected one of ...", which reads as if something had been written.
 * `allowedKeys` gives the keys a table may have, for hints on unrecognized keys.
 */
export function reportIssues(
  ctx: Context,
  issues: readonly Issue[],
  toPath: (path: readonly PropertyKey[]) => TomlPath,
  options: { input?: unknown; allowedKeys?: (path: TomlPath) => readonly string[] } = {},
): void {
  for (const issue of issues) {
    const path = toPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const allowed = options.allowedKeys?.(path) ?? [];
      for (const key of issue.keys) {
        // No list of keys: the key is known but excluded by another value (`providers` with a pinned mode).
        if (allowed.length > 0) reportUnknownKey(ctx, [...path, key], allowed);
        else
          report(
            ctx,
            [...path, key],
            'key',
            `key "${key}" is not allowed ${renderTable(path, ctx.syntax)} with these values`,
          );
      }
      continue;
    }
    const where = path.length === 0 ? '' : `${renderPath(path)}: `;
    const missing = 'input' in options && isMissing(options.input, issue);
    report(ctx, path, 'value', `${where}${missing ? 'is required' : describe(issue)}`);
  }
}

/** Whether the issue is about a key absent from a table that is there: a required key not written. */
function isMissing(input: unknown, issue: Issue): boolean {
  if (!['invalid_type', 'invalid_value', 'invalid_union'].includes(issue.code)) return false;
  if (issue.path.length === 0) return input === undefined;
  let parent = input;
  for (const segment of issue.path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return false;
    parent = (parent as Record<PropertyKey, unknown>)[segment];
  }
  if (parent === null || typeof parent !== 'object' || Array.isArray(parent)) return false;
  return (parent as Record<PropertyKey, unknown>)[issue.path.at(-1) as PropertyKey] === undefined;
}

/** zod's default texts start with "Invalid input: ..."; ours read better after a path. */
function describe(issue: Issue): string {
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) return 'is required';
  const text = issue.message.replace(/^Invalid (input|option): /, '');
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/**
 * The entries of `[[agents.<id>.<key>]]`; `null`, reported, when the key holds anything else.
 * `entry` says what one entry holds, for the hint given to a table of tables keyed by name
 * (`[agents.x.platforms.slack]`), the older layout of the same list.
 */
export function arrayOfTables(
  ctx: Context,
  at: (p: readonly PropertyKey[]) => TomlPath,
  key: string,
  value: unknown,
  entry: string,
): unknown[] | null {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value;
  const path = renderPath(at([key]));
  const keyed = isTable(value) && Object.values(value).every(isTable);
  report(
    ctx,
    at([key]),
    'value',
    `${path} must be an array of tables: [[${path}]]`,
    keyed ? `write each one as its own [[${path}]] table, ${entry}` : undefined,
  );
  return null;
}

/** NUL, or half of a surrogate pair: text that PostgreSQL refuses to store. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this looks for.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function unstorableText(text: string): { what: string; index: number } | null {
  const match = UNSTORABLE.exec(text);
  if (!match) return null;
  return { what: match[0] === '\u0000' ? 'a NUL character' : 'an unpaired surrogate', index: match.index };
}

/** Every string value the server could not store, at its position: before any request, not mid-apply. */
export function reportUnstorableText(ctx: Context, value: unknown, path: TomlPath = []): void {
  if (typeof value === 'string') {
    const found = unstorableText(value);
    if (found) {
      report(
        ctx,
        path,
        'value',
        `${renderPath(path)}: contains ${found.what}, which the server cannot store`,
      );
    }
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) reportUnstorableText(ctx, item, [...path, i]);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) reportUnstorableText(ctx, item, [...path, key]);
  }
}
