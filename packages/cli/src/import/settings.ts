/**
 * An agent's settings other than providers, platforms and schedules: skills (`enabled` and `mcp`),
 * `network`, `tools`, `worker`, and the Lobu features svc has no equivalent for (the egress judge,
 * named guardrails, preview), which are dropped with the reason.
 */

import { mcpServerSchema, networkConfigSchema, skillsConfigSchema } from '@svc/core';
import { isTable } from '../project/shape.js';
import type { TomlPath } from '../project/toml-locator.js';
import { dotted, type LobuAgent } from './lobu-toml.js';
import type { ImportReport } from './report.js';
import { credentialParams, holdsReference, KEY_SHAPED, mayBeCredential } from './secrets.js';
import { shellWord } from './shell.js';

export interface SvcSettings {
  pre_approved_tools?: string[];
  skills?: { mcp?: Record<string, Record<string, unknown>>; list?: { name: string; enabled: boolean }[] };
  network?: { allowed_domains?: string[]; denied_domains?: string[] };
  nix?: { packages: string[] };
  tools?: { allowed?: string[]; denied?: string[] };
}

interface Ctx {
  agent: LobuAgent;
  report: ImportReport;
  at: (path: TomlPath) => string;
  /** `default_schedule_channel` found inside an MCP table (TOML put it there), for the schedules. */
  misnested: { key: string; value: unknown; path: TomlPath }[];
}

const NO_JUDGE =
  'svc has no LLM egress judge: a domain is allowed or denied (network.allowed_domains, denied_domains)';

export function convertSettings(
  agent: LobuAgent,
  report: ImportReport,
  at: (path: TomlPath) => string,
): { settings: SvcSettings; misnested: Ctx['misnested'] } {
  const ctx: Ctx = { agent, report, at, misnested: [] };
  const settings: SvcSettings = {};
  skills(ctx, settings);
  network(ctx, settings);
  tools(ctx, settings);
  worker(ctx, settings);
  const { base } = agent;
  const drop = (key: string, why: string) => {
    if (agent.raw[key] !== undefined) report.dropped(at([...base, key]), dotted([...base, key]), why);
  };
  drop('egress', NO_JUDGE);
  drop(
    'guardrails',
    "svc's guardrails are limits, not named checks: set [agents.<id>.guardrails] max_input_chars, max_output_chars, blocked_terms or redact_pii",
  );
  drop('guardrails_disabled', 'svc has no named guardrails to turn off');
  drop('guardrails_inline', 'svc has no LLM-judged guardrails');
  drop('preview', 'svc has no hosted preview bot: add a platform of your own bot');
  return { settings, misnested: ctx.misnested };
}

function skills(ctx: Ctx, settings: SvcSettings): void {
  const { agent, report, at } = ctx;
  const path = [...agent.base, 'skills'];
  const raw = agent.raw.skills;
  if (raw === undefined) return;
  if (!isTable(raw)) {
    report.dropped(at(path), dotted(path), 'not a table');
    return;
  }
  for (const [key, value] of Object.entries(raw)) {
    const here = [...path, key];
    if (key === 'enabled' && Array.isArray(value)) {
      const list: { name: string; enabled: boolean }[] = [];
      value.forEach((name, i) => {
        const entry = { name: String(name), enabled: true };
        if (!skillsConfigSchema.safeParse({ skills: [entry] }).success) {
          report.dropped(at([...here, i]), dotted([...here, i]), 'not a skill name svc accepts');
          return;
        }
        list.push(entry);
        report.translated(
          at([...here, i]),
          dotted([...here, i]),
          `svc.toml agents.${agent.id}.skills.list[${list.length - 1}]`,
          'svc records the skill by name; give it a source (a URL or registry name) if it lives elsewhere',
        );
      });
      if (list.length > 0) settings.skills = { ...settings.skills, list };
    } else if (key === 'mcp' && isTable(value)) {
      for (const [id, server] of Object.entries(value)) mcp(ctx, settings, id, server, [...here, id]);
    } else {
      report.dropped(at(here), dotted(here), 'not a skills field of svc');
    }
  }
}

const MCP_KEPT = ['url', 'command', 'args', 'headers', 'env'];

function mcp(ctx: Ctx, settings: SvcSettings, id: string, raw: unknown, path: TomlPath): void {
  const { agent, report, at } = ctx;
  const here = dotted(path);
  if (!isTable(raw)) {
    report.dropped(at(path), here, 'not a table');
    return;
  }
  const svcPath = `svc.toml agents.${agent.id}.skills.mcp.${id}`;
  const server: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const keyPath = [...path, key];
    if (key === 'default_schedule_channel' || key === 'schedules') {
      // TOML puts a key written after [agents.x.skills.mcp.y] into that table, as Lobu's own
      // examples did: it is the agent's.
      ctx.misnested.push({ key, value, path: keyPath });
    } else if (key === 'url' && typeof value === 'string') {
      server.url = urlWithoutCredentials(ctx, id, value, keyPath, `${svcPath}.url`);
    } else if (key === 'args' && Array.isArray(value)) {
      server.args = argsWithoutCredentials(ctx, id, value, keyPath);
      report.kept(at(keyPath), dotted(keyPath), `${svcPath}.args`);
    } else if (MCP_KEPT.includes(key)) {
      server[key] = isTable(value) ? secretFree(ctx, value, keyPath, `${svcPath}.${key}`, [id, key]) : value;
      report.kept(at(keyPath), dotted(keyPath), `${svcPath}.${key}`);
    } else if (key === 'oauth' && isTable(value)) {
      const oauth: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const p = [...keyPath, k];
        if (['client_id', 'client_secret', 'scopes'].includes(k)) {
          oauth[k] =
            k === 'client_secret' ? secretFree(ctx, { [k]: v }, keyPath, `${svcPath}.oauth`, [id])[k] : v;
          report.kept(at(p), dotted(p), `${svcPath}.oauth.${k}`);
        } else {
          report.dropped(
            at(p),
            dotted(p),
            "svc finds the authorization server from the MCP server's metadata (oauth.issuer names another)",
          );
        }
      }
      server.oauth = oauth;
    } else if (key === 'type') {
      report.dropped(at(keyPath), dotted(keyPath), 'svc picks the transport: url is HTTP, command is stdio');
    } else {
      report.dropped(at(keyPath), dotted(keyPath), 'not an MCP server field of svc');
    }
  }
  const parsed = mcpServerSchema.safeParse(server);
  const idOk = /^[a-z0-9][a-z0-9_-]{0,62}$/.test(id);
  if (!parsed.success || !idOk) {
    const why = idOk ? (parsed.error?.issues[0]?.message ?? 'invalid') : 'the id is not one svc accepts';
    report.dropped(at(path), here, `svc refuses this MCP server: ${why}`);
    return;
  }
  settings.skills = { ...settings.skills, mcp: { ...settings.skills?.mcp, [id]: server } };
  if (typeof server.command === 'string') {
    report.step({
      kind: 'note',
      text: `MCP server "${id}" runs a command: svc's server runs only the commands SVC_MCP_COMMANDS lists`,
      command: `SVC_MCP_COMMANDS=${shellWord(server.command)} svc server`,
    });
  }
}

/**
 * A table of headers, env or oauth values with every literal replaced by a reference to a variable
 * the report names: the value itself is never copied. Every literal, not only those whose names look
 * secret: `OPENAI_KEY`, `DATABASE_URL` or `Cookie` hold credentials under names no pattern knows.
 * A value already holding a reference (`Bearer $TOKEN`) is kept.
 */
function secretFree(
  ctx: Ctx,
  table: Record<string, unknown>,
  path: TomlPath,
  svcPath: string,
  name: string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(table)) {
    if (typeof value === 'string' && !holdsReference(value)) {
      const p = [...path, key];
      const variable = ctx.report.variables.name(dotted(p), ctx.agent.id, ...name, key);
      out[key] = `$${variable}`;
      ctx.report.translated(
        ctx.at(p),
        dotted(p),
        `${svcPath}.${key}`,
        `written as a value in Lobu; not copied: svc.toml references $${variable}`,
      );
      ctx.report.secret(variable, `the value ${dotted(p)} held (${ctx.at(p)}): it was not copied`);
    } else {
      out[key] = value;
      if (typeof value === 'string')
        for (const m of value.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)\}?/g))
          ctx.report.secret(m[1] as string, `${svcPath}.${key} references it`);
    }
  }
  return out;
}

/**
 * The URL without user info (`user:pass@`) or credential-looking query parameters (`api_key=`):
 * svc reads references in headers, env and oauth only, so they cannot stay as references; a step
 * says where the credential goes instead.
 */
function urlWithoutCredentials(ctx: Ctx, id: string, value: string, path: TomlPath, svcPath: string): string {
  const url = URL.canParse(value) ? new URL(value) : null;
  const params = url ? credentialParams(url) : [];
  if (url === null || (url.username === '' && url.password === '' && params.length === 0)) {
    ctx.report.kept(ctx.at(path), dotted(path), svcPath);
    return value;
  }
  const what = [
    ...(url.username !== '' || url.password !== '' ? ['user info (user:password@)'] : []),
    ...params.map((p) => `the query parameter ${p}`),
  ].join(', ');
  url.username = '';
  url.password = '';
  for (const p of params) url.searchParams.delete(p);
  ctx.report.translated(
    ctx.at(path),
    dotted(path),
    svcPath,
    `its credentials (${what}) were not copied: the URL is written without them`,
  );
  ctx.report.step({
    kind: 'note',
    text:
      `MCP server "${id}": its url in Lobu carried credentials (${what}), not copied. If the server ` +
      `takes them as a header, add one to ${svcPath.replace(/\.url$/, '.headers')} (e.g. Authorization = "Bearer $NAME") and svc secrets set NAME`,
  });
  return url.toString();
}

/** `--token=x`, `--password x` and the like: a credential flag with its value. */
const CREDENTIAL_FLAG = /^--?([A-Za-z0-9_.-]+)(=.*)?$/s;
/** Values shaped like well-known keys, whatever flag they follow. */

/**
 * Args without the credentials they carry: svc reads no reference in args, so a credential flag
 * (and its value) is left out and a step says to pass it through env instead.
 */
function argsWithoutCredentials(ctx: Ctx, id: string, args: unknown[], path: TomlPath): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const flag = typeof arg === 'string' ? CREDENTIAL_FLAG.exec(arg) : null;
    const credentialFlag = flag !== null && mayBeCredential(flag[1] as string);
    const next = args[i + 1];
    // `--token value`: the next argument is the value, unless it is another flag.
    const withValue =
      credentialFlag && flag[2] === undefined && typeof next === 'string' && !next.startsWith('-');
    if (!credentialFlag && !(typeof arg === 'string' && KEY_SHAPED.test(arg))) {
      out.push(arg);
      continue;
    }
    const p = [...path, i];
    ctx.report.dropped(
      ctx.at(p),
      dotted(p),
      'looks like a credential (a key-shaped value, or a --token/--key/--password-like flag): not copied',
    );
    ctx.report.step({
      kind: 'note',
      text:
        `MCP server "${id}": ${dotted(p)}${withValue ? ' and the value after it' : ''} looked like a credential and ` +
        'was left out of args (svc reads ' +
        'no reference there). If the server reads it from its environment, add env = { NAME = "$NAME" } and svc secrets set NAME',
    });
    if (withValue) i++;
  }
  return out;
}

function network(ctx: Ctx, settings: SvcSettings): void {
  const { agent, report, at } = ctx;
  const path = [...agent.base, 'network'];
  const raw = agent.raw.network;
  if (raw === undefined) return;
  if (!isTable(raw)) {
    report.dropped(at(path), dotted(path), 'not a table');
    return;
  }
  const out: NonNullable<SvcSettings['network']> = {};
  for (const [key, value] of Object.entries(raw)) {
    const here = [...path, key];
    const target = key === 'allowed' ? 'allowed_domains' : key === 'denied' ? 'denied_domains' : null;
    if (!target || !Array.isArray(value)) {
      report.dropped(
        at(here),
        dotted(here),
        key === 'judge' || key === 'judges' ? NO_JUDGE : 'not a network field of svc',
      );
      continue;
    }
    const domains: string[] = [];
    value.forEach((domain, i) => {
      // Lobu's `.example.com` is svc's `*.example.com` (svc reads either).
      const written = typeof domain === 'string' ? domain.trim().toLowerCase() : '';
      const svcDomain = written.startsWith('.') ? `*${written}` : written;
      const ok = networkConfigSchema.safeParse({ allowedDomains: [svcDomain] }).success;
      if (!ok) {
        report.dropped(
          at([...here, i]),
          dotted([...here, i]),
          written === '*'
            ? 'svc has no allow-all entry: list the domains (leaving network out allows every domain)'
            : 'not a domain svc accepts',
        );
        return;
      }
      if (!domains.includes(svcDomain)) domains.push(svcDomain);
    });
    report.translated(at(here), dotted(here), `svc.toml agents.${agent.id}.network.${target}`);
    if (domains.length > 0 || value.length === 0) out[target] = domains;
  }
  if (Object.keys(out).length > 0) settings.network = out;
}

const MCP_TOOL = /^\/mcp\/([a-zA-Z0-9_-]+)\/tools\/([a-zA-Z0-9_-]+|\*)$/;
const CLAUDE_MCP_TOOL = /^mcp__([a-zA-Z0-9_-]+?)__([a-zA-Z0-9_*-]+)$/;

function tools(ctx: Ctx, settings: SvcSettings): void {
  const { agent, report, at } = ctx;
  const path = [...agent.base, 'tools'];
  const raw = agent.raw.tools;
  if (raw === undefined) return;
  if (!isTable(raw)) {
    report.dropped(at(path), dotted(path), 'not a table');
    return;
  }
  const svcTools: NonNullable<SvcSettings['tools']> = {};
  for (const [key, value] of Object.entries(raw)) {
    const here = [...path, key];
    if (key === 'strict') {
      report.dropped(
        at(here),
        dotted(here),
        'svc has no strict mode: tools.allowed, when set, is the whole list',
      );
      continue;
    }
    if (!['pre_approved', 'allowed', 'denied'].includes(key) || !Array.isArray(value)) {
      report.dropped(at(here), dotted(here), 'not a tools field of svc');
      continue;
    }
    const names: string[] = [];
    value.forEach((pattern, i) => {
      const p = [...here, i];
      const match =
        typeof pattern === 'string' ? (MCP_TOOL.exec(pattern) ?? CLAUDE_MCP_TOOL.exec(pattern)) : null;
      if (!match) {
        report.dropped(
          at(p),
          dotted(p),
          "svc's tools are MCP tools named <server>.<tool>; Lobu's worker tools (Read, Bash(...)) do not exist in svc",
        );
        return;
      }
      names.push(`${match[1]}.${match[2]}`);
    });
    if (names.length === 0) continue;
    if (key === 'pre_approved') {
      settings.pre_approved_tools = names;
      report.translated(
        at(here),
        dotted(here),
        `svc.toml agents.${agent.id}.pre_approved_tools`,
        '<server>.<tool>',
      );
    } else {
      svcTools[key as 'allowed' | 'denied'] = names;
      report.translated(
        at(here),
        dotted(here),
        `svc.toml agents.${agent.id}.tools.${key}`,
        '<server>.<tool>',
      );
    }
  }
  if (Object.keys(svcTools).length > 0) settings.tools = svcTools;
}

function worker(ctx: Ctx, settings: SvcSettings): void {
  const { agent, report, at } = ctx;
  const path = [...agent.base, 'worker'];
  const raw = agent.raw.worker;
  if (raw === undefined) return;
  if (!isTable(raw)) {
    report.dropped(at(path), dotted(path), 'not a table');
    return;
  }
  for (const [key, value] of Object.entries(raw)) {
    const here = [...path, key];
    if (key === 'nix_packages' && Array.isArray(value) && value.length > 0) {
      settings.nix = { packages: value.map(String) };
      report.translated(at(here), dotted(here), `svc.toml agents.${agent.id}.nix.packages`);
    } else {
      report.dropped(
        at(here),
        dotted(here),
        key === 'timeout_minutes' ? 'svc has no per-agent turn timeout' : 'not a worker field of svc',
      );
    }
  }
}
