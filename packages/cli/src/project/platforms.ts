/**
 * `[[agents.<id>.platforms]]`: validated with core's platformPutSchema (the keys each type and
 * flavor needs included), keyed by stable ID.
 */

import {
  PLATFORM_PROTOCOLS,
  PLATFORM_TYPES,
  platformConfigKeys,
  platformConfigLookalikes,
  platformProtocol,
  platformPutFieldsSchema,
  platformPutSchema,
  stablePlatformId,
} from '@svc/core';
import { arrayOfTables, type Context, renderPath, report, reportIssues } from './issues.js';
import { editDistance } from './problems.js';
import { isTable } from './shape.js';
import type { TomlPath } from './toml-locator.js';
import type { ProjectPlatform } from './types.js';

/** A platform with the path of its `[[...]]` entry, kept until the collision check has named lines. */
export interface LocatedPlatform extends ProjectPlatform {
  path: TomlPath;
}

/**
 * The chat apps' own names, as people (and Lobu projects) write a platform's type: each is the svc
 * type it speaks, with the messenger's flavor. The stable ID is built from the svc type, so a
 * project written either way is one server state.
 */
export const PLATFORM_TYPE_ALIASES: Record<
  string,
  { type: (typeof PLATFORM_TYPES)[number]; flavor?: string }
> = {
  slack: { type: 'team_chat' },
  telegram: { type: 'messenger', flavor: 'telegram' },
  whatsapp: { type: 'messenger', flavor: 'whatsapp' },
};

const TYPES_HINT = `with type = ${PLATFORM_TYPES.map((t) => `"${t}"`).join(' or ')} (or "slack", "telegram", "whatsapp") and its settings in config`;

/**
 * An entry with an aliased type, as the svc type and flavor; an alias contradicted by the flavor
 * written (`type = "telegram"`, `flavor = "whatsapp"`) is reported and the entry left as it is.
 */
function canonicalType(ctx: Context, path: TomlPath, entry: unknown): unknown {
  if (!isTable(entry) || typeof entry.type !== 'string') return entry;
  const alias = PLATFORM_TYPE_ALIASES[entry.type];
  if (!alias) {
    if ((PLATFORM_TYPES as readonly string[]).includes(entry.type)) return entry;
    const names = [...PLATFORM_TYPES, ...Object.keys(PLATFORM_TYPE_ALIASES)];
    const loose = (s: string) => s.toLowerCase().replace(/[_\s-]/g, '');
    const meant = names.find((n) => loose(n) === loose(entry.type as string));
    report(
      ctx,
      [...path, 'type'],
      'value',
      `${renderPath([...path, 'type'])}: "${entry.type}" is not a platform type: team_chat (Slack), messenger (Telegram; WhatsApp with flavor = "whatsapp"), or the apps' names slack, telegram, whatsapp`,
      meant ? `did you mean "${meant}"?` : undefined,
    );
    return null;
  }
  const config = isTable(entry.config) ? entry.config : entry.config === undefined ? {} : null;
  if (config === null) return { ...entry, type: alias.type }; // not a table: the schema says so
  const flavor = config.flavor;
  if (alias.flavor === undefined || flavor === alias.flavor) return { ...entry, type: alias.type };
  // Telegram is a messenger's default flavor: `type = "telegram"` adds none, as the canonical form.
  if (flavor === undefined) {
    const withFlavor = alias.flavor === 'telegram' ? config : { ...config, flavor: alias.flavor };
    return { ...entry, type: alias.type, config: withFlavor };
  }
  report(
    ctx,
    [...path, 'config', 'flavor'],
    'value',
    `${renderPath([...path, 'config', 'flavor'])}: ${JSON.stringify(flavor)} contradicts type = "${entry.type}"`,
    `write type = "messenger" with the flavor meant, or remove flavor`,
  );
  return null;
}

/**
 * Keys a platform's protocol does not read are kept (a later version may read them), but not
 * silently: each is a warning at its line, with the key it resembles. Lookalikes of keys it reads
 * (`botToken`) are errors, from core's schema.
 */
function warnUnreadKeys(ctx: Context, path: TomlPath, type: string, config: Record<string, unknown>): void {
  const protocol = platformProtocol(type, config);
  if (protocol === null || !ctx.warnings) return;
  const known = platformConfigKeys(type, config);
  const lookalikes = platformConfigLookalikes(type, config);
  for (const key of Object.keys(config)) {
    if (known.includes(key) || lookalikes.has(key)) continue;
    const { line, col } = ctx.locate([...path, 'config', key], 'key');
    // Closer than keys' usual typo distance: `app_token` is Slack's other token, not a misspelt `bot_token`.
    const close = known.find((k) => editDistance(key, k) <= 2);
    ctx.warnings.push({
      file: ctx.file,
      line,
      col,
      message: `${renderPath([...path, 'config', key])}: "${key}" is not read by a ${PLATFORM_PROTOCOLS[protocol].title}; it is kept as written`,
      hint: close ? `did you mean "${close}"?` : `the keys it reads: ${known.join(', ')}`,
    });
  }
}

/**
 * `[agents.x.platforms.slack]`, a table per platform keyed by its type, is how other tools (and an
 * older svc README) write platforms. Not read as such: a key that is both type and name could
 * not hold two messengers. Each is named at its header, with the `[[...]]` entry it becomes.
 */
function reportKeyedTables(
  ctx: Context,
  at: (p: readonly PropertyKey[]) => TomlPath,
  value: Record<string, unknown>,
): void {
  const list = renderPath(at(['platforms']));
  for (const [key, table] of Object.entries(value)) {
    const known = key in PLATFORM_TYPE_ALIASES || (PLATFORM_TYPES as readonly string[]).includes(key);
    const holdsConfig =
      isTable(table) && Object.keys(table).some((k) => !['name', 'config', 'type'].includes(k));
    const type = known
      ? `type = "${key}"`
      : `type = "team_chat", "messenger", "slack", "telegram" or "whatsapp"`;
    report(
      ctx,
      at(['platforms', key]),
      'key',
      `[${list}.${key}]: each platform is an entry of the array of tables [[${list}]]`,
      `did you mean [[${list}]] with ${type}${holdsConfig ? `, and these keys under [${list}.config]` : ''}?`,
    );
  }
}

export function readPlatforms(
  ctx: Context,
  agentId: string,
  at: (p: readonly PropertyKey[]) => TomlPath,
  value: unknown,
): LocatedPlatform[] | null {
  if (isTable(value) && Object.keys(value).length > 0 && Object.values(value).every(isTable)) {
    reportKeyedTables(ctx, at, value);
    return null;
  }
  const entries = arrayOfTables(ctx, at, 'platforms', value, TYPES_HINT);
  if (!entries) return null;
  const out: LocatedPlatform[] = [];
  let ok = true;
  for (const [i, written] of entries.entries()) {
    const entry = canonicalType(ctx, at(['platforms', i]), written);
    if (entry === null) {
      ok = false;
      continue;
    }
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
    warnUnreadKeys(ctx, at(['platforms', i]), type, config);
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
