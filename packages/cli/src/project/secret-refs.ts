/** Where secret references are used in svc.toml (DESIGN.md section 6), and which are unset. */

import { findSecretReferences, isReservedSecretName, RESERVED_SECRET_RULE } from '@svc/core';
import { renderPath } from './issues.js';
import type { ProjectProblem } from './problems.js';
import { get, isTable } from './shape.js';
import type { TomlLocator, TomlPath } from './toml-locator.js';

export interface SecretUse {
  variable: string;
  line: number;
  col: number;
  path: TomlPath;
}

/** References in the sections the spec lists: providers, platforms, and MCP headers, env and oauth. */
export function secretUses(locator: TomlLocator, agentId: string, raw: unknown): SecretUse[] {
  if (!isTable(raw)) return [];
  const sections: [TomlPath, unknown][] = [
    [['providers'], raw.providers],
    [['platforms'], raw.platforms],
  ];
  const mcp = get(raw, ['skills', 'mcp']);
  if (isTable(mcp)) {
    for (const [id, server] of Object.entries(mcp)) {
      if (!isTable(server)) continue;
      for (const key of ['headers', 'env', 'oauth']) sections.push([['skills', 'mcp', id, key], server[key]]);
    }
  }
  return sections.flatMap(([section, value]) =>
    findSecretReferences(value).map(({ variable, path }) => {
      const full = ['agents', agentId, ...section, ...fromPointer(value, path)];
      const { line, col } = locator.locate(full, 'value');
      return { variable, line, col, path: full };
    }),
  );
}

/** A JSON pointer into `value` as a path: a segment is an index only where `value` has an array. */
function fromPointer(value: unknown, pointer: string): (string | number)[] {
  if (pointer === '') return [];
  let node = value;
  return pointer
    .split('/')
    .slice(1)
    .map((raw) => {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      const segment = Array.isArray(node) ? Number(key) : key;
      node = (node as Record<string | number, unknown> | undefined)?.[segment];
      return segment;
    });
}

/**
 * Every unset or empty variable at once, each at its first use; further uses go in the hint. A
 * reference to one of the server's own settings is refused at each use, as the server would refuse it.
 */
export function checkSecrets(
  uses: SecretUse[],
  env: Record<string, string | undefined>,
  problems: ProjectProblem[],
  requireSet = true,
) {
  const byVariable = new Map<string, SecretUse[]>();
  for (const use of uses) {
    if (isReservedSecretName(use.variable)) {
      problems.push({
        file: 'svc.toml',
        line: use.line,
        col: use.col,
        message: `$${use.variable} cannot be referenced (${renderPath(use.path)}): ${RESERVED_SECRET_RULE}`,
        hint: 'store the value as an org secret under another name: svc secrets set NAME',
      });
      continue;
    }
    byVariable.set(use.variable, [...(byVariable.get(use.variable) ?? []), use]);
  }
  if (!requireSet) return;
  for (const [variable, [first, ...rest]] of byVariable) {
    const value = env[variable];
    if ((value !== undefined && value !== '') || !first) continue;
    const state = value === undefined ? 'is not set' : 'is empty';
    const others = rest.map((u) => `svc.toml:${u.line}`).join(', ');
    problems.push({
      file: 'svc.toml',
      line: first.line,
      col: first.col,
      message: `environment variable ${variable} ${state} (referenced by ${renderPath(first.path)})`,
      ...(others ? { hint: `also referenced at ${others}` } : {}),
      variable,
    });
  }
}
