/**
 * Lobu's chat platforms, in their three spellings (`[agents.x.platforms.slack]` tables,
 * `[[agents.x.connections]]`, `[[agents.x.platforms]]`), as svc platforms: `slack` is `team_chat`,
 * `telegram` and `whatsapp` are `messenger` (WhatsApp with `flavor = "whatsapp"`), camelCase config
 * keys are snake_case, and every key svc's protocol needs is a reference.
 */

import { PLATFORM_PROTOCOLS, type PlatformProtocol, stablePlatformId } from '@svc/core';
import { isTable } from '../project/shape.js';
import type { TomlPath } from '../project/toml-locator.js';
import { dotted, type LobuAgent } from './lobu-toml.js';
import type { ImportReport } from './report.js';
import { wholeReference } from './secrets.js';

export interface SvcPlatform {
  type: 'team_chat' | 'messenger';
  name?: string;
  config: Record<string, string>;
}

export interface PlatformContext {
  report: ImportReport;
  at: (path: TomlPath) => string;
  /** Several agents: the variables the import names get the agent's id, so two bots never share one. */
  multiAgent: boolean;
}

const PROTOCOL_OF: Record<string, PlatformProtocol> = {
  slack: 'slack',
  telegram: 'telegram',
  whatsapp: 'whatsapp',
};

/** How Telegram's secret token is made: svc checks it on every webhook call. */
const TELEGRAM_SECRET_STEP = (variable: string) =>
  `${variable}: Telegram sends a secret token with each webhook call and svc refuses calls without it; ` +
  `Lobu had none. Make one (1-256 characters of A-Z a-z 0-9 _ -) and store it, unseen, as below; svc apply ` +
  `then prints the setWebhook call that gives it to Telegram.`;

interface LobuPlatform {
  type: unknown;
  name?: unknown;
  config: Record<string, unknown>;
  channels?: unknown;
  path: TomlPath;
  /** Where its config keys are written: `config` of the entry, or the entry itself (first spellings). */
  configPath: TomlPath;
  extra: string[];
}

/** Every platform entry of an agent, whichever spelling wrote it. */
function entries(agent: LobuAgent, ctx: PlatformContext): LobuPlatform[] {
  const out: LobuPlatform[] = [];
  const { raw, base } = agent;
  if (isTable(raw.platforms)) {
    // `[agents.x.platforms.slack]` with its config inside, or `[platforms] telegram = true`.
    for (const [type, value] of Object.entries(raw.platforms)) {
      const path = [...base, 'platforms', type];
      if (value === false) {
        ctx.report.dropped(ctx.at(path), dotted(path), 'turned off in Lobu');
        continue;
      }
      const config = isTable(value) ? value : {};
      out.push({ type, config, path, configPath: path, extra: [] });
    }
  }
  for (const key of ['connections', 'platforms'] as const) {
    const list = raw[key];
    if (!Array.isArray(list)) continue;
    list.forEach((entry, i) => {
      const path = [...base, key, i];
      if (!isTable(entry)) {
        ctx.report.dropped(ctx.at(path), dotted(path), 'not a table with type and config');
        return;
      }
      const { type, name, config, channels, ...others } = entry;
      out.push({
        type,
        name,
        config: isTable(config) ? config : {},
        channels,
        path,
        configPath: [...path, 'config'],
        extra: Object.keys(others),
      });
    });
  }
  return out;
}

const snake = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * The agent's platforms for svc.toml, and `ids`: Lobu's stable platform id (`{agent}-{type}-{name}`,
 * which `deliver_to` of a schedule names) -> svc's.
 */
export function convertPlatforms(
  agent: LobuAgent,
  ctx: PlatformContext,
): { platforms: SvcPlatform[]; ids: Map<string, string> } {
  const out: SvcPlatform[] = [];
  const ids = new Map<string, string>();
  const { report, at } = ctx;
  const all = entries(agent, ctx);
  const typeOf = (e: LobuPlatform) => (typeof e.type === 'string' ? PROTOCOL_OF[e.type] : undefined);
  for (const entry of all) {
    const here = dotted(entry.path);
    const protocol = typeof entry.type === 'string' ? PROTOCOL_OF[entry.type] : undefined;
    if (!protocol) {
      report.dropped(
        at(entry.path),
        here,
        `svc has no ${JSON.stringify(entry.type)} platform: team_chat is Slack, messenger is Telegram or WhatsApp` +
          (entry.type === 'api' ? "; svc's HTTP API is always on" : ''),
      );
      continue;
    }
    const type = protocol === 'slack' ? 'team_chat' : 'messenger';
    const index = out.length;
    const svcPath = `svc.toml agents.${agent.id}.platforms[${index}]`;
    report.translated(at([...entry.path, 'type']), `${here}.type`, `${svcPath}.type`, `"${type}"`);
    const platform: SvcPlatform = { type, config: {} };
    let name = typeof entry.name === 'string' && entry.name !== '' ? entry.name : undefined;
    // Variables the import names: per agent when there are several, per platform name when written;
    // report.variables keeps two (agent, platform) pairs from meeting on one name.
    const prefix = [ctx.multiAgent ? agent.id : '', name ?? ''];
    if (name !== undefined) {
      report.kept(at([...entry.path, 'name']), `${here}.name`, `${svcPath}.name`);
    } else if (
      all.filter((e) => typeOf(e) && (typeOf(e) === 'slack') === (protocol === 'slack')).length > 1
    ) {
      // Telegram and WhatsApp are both svc messengers: two on one agent need names.
      name = entry.type as string;
      if (out.some((p) => p.name === name)) name = `${name}-${index + 1}`;
      report.add(
        'added',
        at(entry.path),
        `${here} (no name)`,
        `${svcPath}.name`,
        `svc needs a name for each of several ${type} platforms`,
      );
    }
    if (name !== undefined) platform.name = name;
    if (protocol === 'whatsapp') platform.config.flavor = 'whatsapp';
    const needed = PLATFORM_PROTOCOLS[protocol].keys;
    for (const [key, value] of Object.entries(entry.config)) {
      const keyPath = [...entry.configPath, key];
      const svcKey = snake(key);
      const spec = needed.find((k) => k.key === svcKey);
      if (!spec) {
        report.dropped(
          at(keyPath),
          dotted(keyPath),
          `svc's ${PLATFORM_PROTOCOLS[protocol].title} reads ${needed.map((k) => k.key).join(', ')}`,
        );
        continue;
      }
      const target = `${svcPath}.config.${svcKey}`;
      const reference = wholeReference(value);
      if (reference) {
        platform.config[svcKey] = `$${reference}`;
        report.add(svcKey === key ? 'kept' : 'translated', at(keyPath), dotted(keyPath), target);
        report.secret(reference, `${target} references it`);
      } else if (!spec.secret && typeof value === 'string' && value.trim() !== '') {
        platform.config[svcKey] = value;
        report.translated(at(keyPath), dotted(keyPath), target);
      } else {
        const variable = report.variables.name(`${here}.${svcKey}`, ...prefix, spec.variable);
        platform.config[svcKey] = `$${variable}`;
        report.translated(
          at(keyPath),
          dotted(keyPath),
          target,
          `written as a value in Lobu; not copied: svc.toml references $${variable}`,
        );
        report.secret(variable, `the value ${dotted(keyPath)} held (${at(keyPath)}): it was not copied`);
      }
    }
    for (const spec of needed) {
      if (platform.config[spec.key] !== undefined) continue;
      const variable = report.variables.name(`${here}.${spec.key}`, ...prefix, spec.variable);
      platform.config[spec.key] = `$${variable}`;
      report.add(
        'added',
        at(entry.configPath),
        `${here} (no ${spec.key})`,
        `${svcPath}.config.${spec.key}`,
        `svc's ${PLATFORM_PROTOCOLS[protocol].title} needs it`,
      );
      if (spec.key === 'secret_token') {
        report.step({
          kind: 'secret',
          text: TELEGRAM_SECRET_STEP(variable),
          command: `openssl rand -hex 32 | svc secrets set ${variable}`,
        });
      } else report.secret(variable, `${svcPath}.config.${spec.key} references it`);
    }
    if (entry.channels !== undefined) {
      report.dropped(
        at([...entry.path, 'channels']),
        `${here}.channels`,
        'svc has no declarative channel routing: a team_chat platform answers in every channel its bot is in',
      );
    }
    for (const key of entry.extra)
      report.dropped(at([...entry.path, key]), `${here}.${key}`, 'not a platform field of svc');
    out.push(platform);
    ids.set(stablePlatformId(agent.id, entry.type as string, name), stablePlatformId(agent.id, type, name));
  }
  return { platforms: out, ids };
}
