/**
 * `[[agents.x.schedules]]` (Lobu, April 2026) as svc watchers: `cron` is `schedule`, `task` is
 * `prompt`, and `deliver_to` (or the agent's `default_schedule_channel`) is a `notification_channel`
 * naming the svc platform the Lobu connection became. A watcher runs its prompt over the events of
 * its window, where a schedule ran the task alone; the report says so.
 */

import { watcherSchema } from '@svc/core';
import { isTable } from '../project/shape.js';
import type { TomlPath } from '../project/toml-locator.js';
import { dotted, type LobuAgent } from './lobu-toml.js';
import type { ImportReport } from './report.js';
import { wholeReference } from './secrets.js';
import { shellWord } from './shell.js';

export type SvcWatcher = Record<string, unknown> & { slug: string; agent: string };

interface Ctx {
  agent: LobuAgent;
  report: ImportReport;
  at: (path: TomlPath) => string;
  /** Lobu's stable platform ids -> svc's. */
  platformIds: Map<string, string>;
}

export function convertSchedules(
  ctx: Ctx,
  misnested: { key: string; value: unknown; path: TomlPath }[],
  file: string,
): SvcWatcher[] {
  const { agent, report, at } = ctx;
  let fallback: { value: unknown; path: TomlPath } | null = null;
  const ownPath = [...agent.base, 'default_schedule_channel'];
  if (agent.raw.default_schedule_channel !== undefined)
    fallback = { value: agent.raw.default_schedule_channel, path: ownPath };
  const lists: { value: unknown; path: TomlPath }[] = [];
  if (agent.raw.schedules !== undefined)
    lists.push({ value: agent.raw.schedules, path: [...agent.base, 'schedules'] });
  for (const m of misnested) {
    const note = `written under [${dotted(m.path.slice(0, -1))}], so TOML put it in that MCP table; read as the agent's`;
    report.add('translated', at(m.path), dotted(m.path), `the agent's ${m.key}`, note);
    if (m.key === 'default_schedule_channel') fallback ??= { value: m.value, path: m.path };
    else lists.push({ value: m.value, path: m.path });
  }
  const out: SvcWatcher[] = [];
  for (const list of lists) {
    if (!Array.isArray(list.value)) {
      report.dropped(at(list.path), dotted(list.path), 'not a list of [[schedules]] tables');
      continue;
    }
    list.value.forEach((entry, i) => {
      const watcher = schedule(ctx, entry, [...list.path, i], fallback, file);
      if (watcher) out.push(watcher);
    });
  }
  return out;
}

function schedule(
  ctx: Ctx,
  entry: unknown,
  path: TomlPath,
  fallback: { value: unknown; path: TomlPath } | null,
  file: string,
): SvcWatcher | null {
  const { agent, report, at } = ctx;
  const here = dotted(path);
  if (!isTable(entry) || typeof entry.id !== 'string') {
    report.dropped(at(path), here, 'a schedule needs an id');
    return null;
  }
  const target = `${file} watchers (slug ${entry.id})`;
  const watcher: SvcWatcher = {
    slug: entry.id,
    name: entry.id,
    schedule: entry.cron,
    prompt: entry.task,
    agent: agent.id,
  };
  if (entry.timezone !== undefined) watcher.timezone = entry.timezone;
  const channelSource =
    entry.deliver_to !== undefined ? { value: entry.deliver_to, path: [...path, 'deliver_to'] } : fallback;
  if (channelSource) {
    const channel = deliverTo(ctx, channelSource.value);
    if (typeof channel === 'string') {
      report.dropped(at(channelSource.path), dotted(channelSource.path), channel);
    } else {
      watcher.notification_channel = channel;
      report.translated(at(channelSource.path), dotted(channelSource.path), `${target} notification_channel`);
    }
  }
  const parsed = watcherSchema.safeParse(watcher);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    report.dropped(
      at(path),
      here,
      `svc refuses it as a watcher: ${issue?.path.join('.')}: ${issue?.message}`,
    );
    return null;
  }
  report.translated(
    at(path),
    here,
    target,
    'cron -> schedule, task -> prompt; a watcher runs its prompt over the events since its last window',
  );
  for (const key of Object.keys(entry)) {
    const p = [...path, key];
    if (['id', 'cron', 'task', 'timezone', 'deliver_to'].includes(key)) continue;
    if (key === 'enabled' && entry.enabled === false) {
      report.dropped(at(p), dotted(p), 'a bundle has no off switch: pause the watcher after svc apply');
      report.step({
        kind: 'command',
        text: `schedule "${entry.id}" was turned off in Lobu: pause its watcher once applied`,
        command: `svc watchers pause ${shellWord(String(entry.id))}`,
      });
    } else if (key === 'enabled') {
    } else {
      report.dropped(
        at(p),
        dotted(p),
        key === 'approver'
          ? "svc asks for a watcher's tool approvals in the approvals inbox (svc approvals list)"
          : key === 'concurrency'
            ? 'svc never runs two windows of one watcher at once'
            : 'not a schedule field svc has',
      );
    }
  }
  return watcher;
}

/**
 * `<platform>:<connectionSlug>:<channelId>[:<threadTs>]` as a notification channel, or why it
 * cannot be one.
 */
function deliverTo(
  ctx: Ctx,
  value: unknown,
): { platform: string; channel: string; thread?: string } | string {
  if (typeof value !== 'string') return 'not a string';
  if (wholeReference(value))
    return `a reference (${value.trim()}): a bundle holds no references; write notification_channel {platform, channel} by hand`;
  const [, slug, channel, thread] = value.split(':');
  if (!slug || !channel) return 'not "<platform>:<connection>:<channel>[:<thread>]"';
  const platform = ctx.platformIds.get(slug);
  if (!platform)
    return `names connection "${slug}", which is not a platform of agent "${ctx.agent.id}" that svc kept`;
  return { platform, channel, ...(thread ? { thread } : {}) };
}
