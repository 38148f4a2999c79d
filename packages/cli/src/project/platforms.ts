/**
 * `[[agents.<id>.platforms]]`: validated with core's platformPutSchema (the keys each type and
 * flavor needs included), keyed by stable ID.
 */

import { PLATFORM_TYPES, platformPutFieldsSchema, platformPutSchema, stablePlatformId } from '@svc/core';
import { arrayOfTables, type Context, report, reportIssues } from './issues.js';
import type { TomlPath } from './toml-locator.js';
import type { ProjectPlatform } from './types.js';

/** A platform with the path of its `[[...]]` entry, kept until the collision check has named lines. */
export interface LocatedPlatform extends ProjectPlatform {
  path: TomlPath;
}

export function readPlatforms(
  ctx: Context,
  agentId: string,
  at: (p: readonly PropertyKey[]) => TomlPath,
  value: unknown,
): LocatedPlatform[] | null {
  const entries = arrayOfTables(
    ctx,
    at,
    'platforms',
    value,
    `with type = ${PLATFORM_TYPES.map((t) => `"${t}"`).join(' or ')} and its settings in config`,
  );
  if (!entries) return null;
  const out: LocatedPlatform[] = [];
  let ok = true;
  for (const [i, entry] of entries.entries()) {
    const parsed = platformPutSchema.safeParse(entry);
    if (!parsed.success) {
      ok = false;
      reportIssues(ctx, parsed.error.issues, (p) => at(['platforms', i, ...p]), { input: entry });
    }
    // A config missing a key leaves the type and name sound: the naming checks below still run,
    // so that one run lists every problem.
    const fields = parsed.success ? parsed : platformPutFieldsSchema.safeParse(entry);
    if (!fields.success) continue;
    const { type, name, config } = fields.data;
    let stableId: string;
    try {
      stableId = stablePlatformId(agentId, type, name);
    } catch {
      ok = false; // an agent id without letters or digits: reported as a bad agent id already
      continue;
    }
    out.push({ stableId, type, ...(name !== undefined ? { name } : {}), config, path: at(['platforms', i]) });
  }
  for (const platform of out) {
    const sameType = out.filter((p) => p.type === platform.type).length;
    if (sameType > 1 && platform.name === undefined) {
      ok = false;
      report(
        ctx,
        platform.path,
        'key',
        `agent "${agentId}" has ${sameType} platforms of type "${platform.type}": each needs a "name"`,
        'the stable ID, and so the webhook URL, is {agent}-{type}-{name}',
      );
    }
  }
  return ok ? out : null;
}

/** Two platforms anywhere in the project with one stable ID would share a webhook URL. */
export function checkPlatformIds(ctx: Context, agents: { platforms: ProjectPlatform[] }[]): void {
  const seen = new Map<string, LocatedPlatform>();
  for (const agent of agents) {
    for (const platform of agent.platforms as LocatedPlatform[]) {
      const first = seen.get(platform.stableId);
      if (!first) {
        seen.set(platform.stableId, platform);
        continue;
      }
      const { line } = ctx.locate(first.path, 'key');
      const where = platform.name === undefined ? platform.path : [...platform.path, 'name'];
      report(
        ctx,
        where,
        'value',
        `platform stable ID "${platform.stableId}" is already used by the platform at ${ctx.file}:${line}`,
        'give one of them another "name"',
      );
    }
  }
  // The path was only needed for positions; the project carries the spec's fields.
  for (const agent of agents) {
    agent.platforms = (agent.platforms as LocatedPlatform[]).map(({ path: _path, ...p }) => p);
  }
}
