/** Reads `svc.toml`: agents, their providers, platforms and settings, and the memory bundle list. */

import { posix } from 'node:path';
import {
  type AgentConfig,
  agentUpsertSchema,
  idSchema,
  type SettingKey,
  settingSchemas,
  slugify,
} from '@svc/core';
import { parse, TomlError } from 'smol-toml';
import {
  type Context,
  renderPath,
  renderTable,
  report,
  reportIssues,
  reportUnknownKey,
  reportUnstorableText,
} from './issues.js';
import { checkPlatformIds, readPlatforms } from './platforms.js';
import type { ProjectProblem } from './problems.js';
import { readProviders } from './providers.js';
import { type SecretUse, secretUses } from './secret-refs.js';
import { agentShape, convert, get, isTable, type KeyProblem, projectShape, tomlPathOf } from './shape.js';
import { TomlLocator, type TomlPath } from './toml-locator.js';
import type { ProjectPlatform, ProjectProvider, SettingPosition } from './types.js';

/** Built once: a thousand agents must not build a thousand schemas. */
const AGENT_META = agentUpsertSchema.pick({ name: true, description: true });

export const SVC_TOML = 'svc.toml';

/**
 * `.github.com` is how many projects write "github.com's subdomains" (it is Lobu's own form); the
 * server takes only `*.github.com`. Rewritten here, the desired state holds what the server stores,
 * so plans converge.
 */
function leadingDotDomains(network: unknown): unknown {
  if (!isTable(network)) return network;
  const wildcard = (list: unknown) =>
    Array.isArray(list) ? list.map((d) => (typeof d === 'string' && /^\.[^.*]/.test(d) ? `*${d}` : d)) : list;
  const out = { ...network };
  for (const key of ['allowedDomains', 'deniedDomains']) if (key in out) out[key] = wildcard(out[key]);
  return out;
}

/** Where each setting lives in an agent table once converted to core names (see shape.ts). */
const TOML_SETTINGS: {
  key: SettingKey;
  at: string[];
  wrap?: string;
  normalise?: (value: unknown) => unknown;
}[] = [
  { key: 'networkConfig', at: ['networkConfig'], normalise: leadingDotDomains },
  { key: 'egressConfig', at: ['egressConfig'] },
  { key: 'nixConfig', at: ['nixConfig'] },
  { key: 'mcpServers', at: ['skills', 'mcpServers'] },
  // `[[agents.x.skills.list]]` is the list itself; core wants it wrapped as `{ skills: [...] }`.
  { key: 'skillsConfig', at: ['skills', 'skills'], wrap: 'skills' },
  { key: 'toolsConfig', at: ['toolsConfig'] },
  { key: 'guardrails', at: ['guardrails'] },
  { key: 'preApprovedTools', at: ['preApprovedTools'] },
  { key: 'providerModelPreferences', at: ['providerModelPreferences'] },
  { key: 'modelSelection', at: ['modelSelection'] },
];

/**
 * Where a setting's value is written in an agent's table, from its core path (`mcpServers`,
 * `github`, `url`), as the server names it in a refusal. A Markdown setting has no place in
 * svc.toml: the agent's table stands for it.
 */
function tomlSettingPath(path: readonly (string | number)[], raw: unknown): (string | number)[] {
  const [key, ...rest] = path;
  const setting = TOML_SETTINGS.find((s) => s.key === key);
  if (!setting) return [];
  // `skillsConfig.skills[0]` is `skills.list[0]`: the wrapping key is not written.
  const inner = setting.wrap ? rest.slice(1) : rest;
  return tomlPathOf(agentShape, [...setting.at, ...inner], raw);
}

/** An agent as read from svc.toml; the Markdown settings come from its folder afterwards. */
export interface TomlAgent {
  agentId: string;
  /** False when svc.toml has problems in this agent; its fields are then only partly filled. */
  valid: boolean;
  name: string;
  description: string;
  /** Absent when the default `agents/<id>` applies. */
  dir?: { value: string; path: TomlPath };
  config: Omit<AgentConfig, 'IDENTITY.md' | 'SOUL.md' | 'USER.md'>;
  platforms: ProjectPlatform[];
  providers: ProjectProvider[];
}

export interface TomlResult {
  /** Where a setting's value is written (or the nearest table that is), by core path. */
  settingAt: (agentId: string, path: readonly (string | number)[]) => SettingPosition;
  agents: TomlAgent[];
  /**
   * Every agent named in svc.toml, valid or not, so that watchers are not blamed for its errors;
   * `null` when svc.toml is not valid TOML and its agents are unknown.
   */
  agentIds: Set<string> | null;
  models: { file: string; path: TomlPath }[];
  secrets: SecretUse[];
  ctx: Context;
}

/**
 * Reads svc.toml. Not valid TOML, it yields the syntax error and, when its `[memory]` table can still
 * be read on its own, the bundles listed there: they are checked in the same run, not in the next.
 */
export function readSvcToml(
  source: string,
  problems: ProjectProblem[],
  warnings: ProjectProblem[] = [],
): TomlResult {
  const parsed = parseToml(source);
  if (parsed instanceof TomlError) {
    const message = (parsed.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    problems.push({
      file: SVC_TOML,
      line: parsed.line,
      col: parsed.column,
      message: `invalid TOML: ${message}`,
    });
    const memory = memoryTableOnly(source);
    const doc = memory === null ? null : parseToml(memory);
    // No [memory] table, or the syntax error is in it: an empty document, no bundles to check.
    const { ctx, converted } = tomlContext(
      memory ?? '',
      doc instanceof TomlError ? {} : (doc ?? {}),
      problems,
    );
    const settingAt = () => ({ file: SVC_TOML, line: 1, col: 1, key: '' });
    return { agents: [], agentIds: null, models: readModels(ctx, converted), secrets: [], ctx, settingAt };
  }
  const doc = parsed;
  const { ctx, converted, locator } = tomlContext(source, doc, problems, warnings);
  reportUnstorableText(ctx, doc);

  const agentIds = new Set<string>();
  const agents = doc.agents ?? {};
  const result: TomlResult = {
    agents: [],
    agentIds,
    models: readModels(ctx, converted),
    secrets: [],
    ctx,
    settingAt: (agentId, path) => {
      const raw = isTable(agents) ? agents[agentId] : undefined;
      const tomlPath = ['agents', agentId, ...tomlSettingPath(path, raw)];
      const { line, col } = locator.locate(tomlPath, 'value');
      return { file: SVC_TOML, line, col, key: renderPath(tomlPath) };
    },
  };
  if (!isTable(agents)) {
    report(ctx, ['agents'], 'value', '"agents" must be a table of agents: [agents.<id>]');
    return result;
  }
  for (const [agentId, raw] of Object.entries(agents)) {
    agentIds.add(agentId);
    const agent = readAgent(ctx, agentId, raw, (converted.agents as Record<string, unknown>)[agentId]);
    if (agent) result.agents.push(agent);
    result.secrets.push(...secretUses(locator, agentId, raw));
  }
  checkPlatformIds(ctx, result.agents);
  return result;
}

function parseToml(source: string): Record<string, unknown> | TomlError {
  try {
    return parse(source, { unsafeKeyBehaviour: 'throw' });
  } catch (error) {
    if (error instanceof TomlError) return error;
    throw error;
  }
}

/** Positions for a parsed document, its keys under their core names, and its unknown keys reported. */
function tomlContext(
  source: string,
  doc: Record<string, unknown>,
  problems: ProjectProblem[],
  warnings: ProjectProblem[] = [],
) {
  const locator = new TomlLocator(source);
  const ctx: Context = {
    file: SVC_TOML,
    syntax: 'toml',
    locate: (path, at) => locator.locate(path, at),
    problems,
    warnings,
  };
  const keys: KeyProblem[] = [];
  const converted = convert(doc, projectShape, [], keys) as Record<string, unknown>;
  for (const k of keys) {
    if (k.sameAs === undefined) reportUnknownKey(ctx, k.path, k.allowed);
    else {
      const key = String(k.path.at(-1));
      report(
        ctx,
        k.path,
        'key',
        `"${key}" and "${k.sameAs}" are two spellings of one list ${renderTable(k.path.slice(0, -1))}`,
        `"${k.sameAs}" is at line ${locator.locate([...k.path.slice(0, -1), k.sameAs], 'key').line}: keep one of them, holding every entry`,
      );
    }
  }
  return { ctx, converted, locator };
}

/**
 * svc.toml with every line outside its `[memory]` table blanked, so that positions stay those of
 * the whole file; null without such a table.
 */
function memoryTableOnly(source: string): string | null {
  let inMemory = false;
  let found = false;
  const lines = source.split('\n').map((line) => {
    if (/^\s*\[/.test(line)) {
      inMemory = /^\s*\[\s*memory\s*\]\s*(#.*)?\r?$/.test(line);
      found ||= inMemory;
    }
    return inMemory ? line : '';
  });
  return found ? lines.join('\n') : null;
}

function readModels(ctx: Context, converted: Record<string, unknown>): TomlResult['models'] {
  const memory = converted.memory;
  if (memory === undefined) return [];
  if (!isTable(memory)) {
    report(ctx, ['memory'], 'value', '"memory" must be a table: [memory]');
    return [];
  }
  // One path written alone (`models = "models"`, a folder as Lobu projects write it) is a list of one.
  if (typeof memory.models === 'string' && memory.models !== '') {
    return [{ file: memory.models, path: ['memory', 'models'] }];
  }
  const models = memory.models ?? [];
  if (!Array.isArray(models)) {
    report(
      ctx,
      ['memory', 'models'],
      'value',
      'memory.models must be a list of bundle files and folders, or one path',
    );
    return [];
  }
  const out: TomlResult['models'] = [];
  models.forEach((file, i) => {
    const path = ['memory', 'models', i];
    if (typeof file !== 'string' || file === '')
      report(ctx, path, 'value', `${renderPath(path)}: must be the path of a bundle file or folder`);
    // `./models/a.yaml` and `models/a.yaml` are one file: read twice, its slugs would clash with themselves.
    else if (out.some((m) => posix.normalize(m.file) === posix.normalize(file)))
      report(ctx, path, 'value', `memory bundle "${file}" is listed twice`);
    else out.push({ file, path });
  });
  return out;
}

function readAgent(ctx: Context, agentId: string, raw: unknown, conv: unknown): TomlAgent | null {
  const base = ['agents', agentId];
  const at = (p: readonly PropertyKey[]) => [...base, ...tomlPathOf(agentShape, p, raw)];
  let valid = true;
  const id = idSchema.safeParse(agentId);
  if (!id.success) {
    valid = false;
    report(ctx, base, 'key', `agent id "${agentId}" ${id.error.issues[0]?.message}`, suggestId(agentId));
  }
  if (!isTable(raw) || !isTable(conv)) {
    report(ctx, base, 'value', `agents.${renderPath([agentId])} must be a table: [agents.${agentId}]`);
    return null;
  }
  const metaInput = { name: conv.name ?? agentId, description: conv.description };
  const meta = AGENT_META.safeParse(metaInput);
  if (!meta.success) reportIssues(ctx, meta.error.issues, at, { input: metaInput });
  let dir: TomlAgent['dir'];
  if (conv.dir !== undefined) {
    if (typeof conv.dir === 'string' && conv.dir !== '') dir = { value: conv.dir, path: at(['dir']) };
    else report(ctx, at(['dir']), 'value', `${renderPath(at(['dir']))}: must be a folder path`);
  }
  const providers = readProviders(ctx, at, conv.providers);
  const platforms = readPlatforms(ctx, agentId, at, conv.platforms);

  const config: Record<string, unknown> = {};
  for (const setting of TOML_SETTINGS) {
    const found = get(conv, setting.at);
    if (found === undefined) {
      config[setting.key] = null; // absent from the file: applying clears it
      continue;
    }
    const normalised = setting.normalise ? setting.normalise(found) : found;
    const value = setting.wrap ? { [setting.wrap]: normalised } : normalised;
    const parsed = settingSchemas[setting.key].safeParse(value);
    if (parsed.success) config[setting.key] = parsed.data;
    else {
      valid = false;
      const toCore = (p: readonly PropertyKey[]) => [...setting.at, ...(setting.wrap ? p.slice(1) : p)];
      reportIssues(ctx, parsed.error.issues, (p) => at(toCore(p)), { input: value });
    }
  }
  return {
    agentId,
    // An invalid agent is still returned, so that its folder's files are checked too.
    valid: valid && meta.success && providers !== null && platforms !== null,
    name: meta.success ? meta.data.name : agentId,
    description: (meta.success ? meta.data.description : undefined) ?? '',
    ...(dir ? { dir } : {}),
    config: config as TomlAgent['config'],
    platforms: platforms ?? [],
    providers: providers ?? [],
  };
}

function suggestId(agentId: string): string | undefined {
  try {
    const slug = slugify(agentId).slice(0, 63);
    return slug !== agentId ? `did you mean "${slug}"?` : undefined;
  } catch {
    return undefined;
  }
}
