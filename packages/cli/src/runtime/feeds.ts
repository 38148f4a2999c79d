/** `svc feed list|sync|configure|pause|resume`: a connection's feeds and their syncs. */

import { checkId, type Hints, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import { followRun } from './logs.js';
import { CONFIG_SYNTAX, parseConfig, stringKeys } from './pairs.js';
import type { RunRecord } from './run-record.js';
import { cell, short, table, when } from './table.js';

export interface FeedRecord {
  id: number;
  connectionId: number;
  feedKey: string;
  displayName: string | null;
  status: 'active' | 'paused' | 'error';
  config: Record<string, unknown>;
  syncIntervalMs: number;
  nextSyncAt: string | null;
  lastSyncAt: string | null;
  lastSyncStatus: string | null;
  lastError: string | null;
  consecutiveFailures: number;
  itemsCollected: number;
}

const FEED_IDS = '"svc feed list <connectionId>" shows them';

/** The feed's rendered name, unless a placeholder is still in it (`Feed {url}`: no config yet). */
const nameOf = (feed: FeedRecord) =>
  feed.displayName && !/\{[A-Za-z0-9_.-]+\}/.test(feed.displayName) ? feed.displayName : null;

/** One line for a feed a command just made or changed. */
export function describeFeed(feed: FeedRecord): string {
  const name = nameOf(feed) ? ` "${nameOf(feed)}"` : '';
  const state =
    feed.status === 'active'
      ? `active, syncs every ${formatInterval(feed.syncIntervalMs)}`
      : `${feed.status}${feed.lastError ? `: ${feed.lastError}` : ''}`;
  return `feed ${feed.id} ${feed.feedKey}${name}: ${state}`;
}

export async function feedList(
  connectionId: string,
  flags: SessionFlags & { json?: boolean },
  io: RuntimeIo,
): Promise<void> {
  checkId('connection', connectionId, '"svc connection list" shows them');
  const api = await openApi(io, flags);
  const { feeds } = await api.call<{ feeds: FeedRecord[] }>(
    'GET',
    `/connections/${connectionId}/feeds`,
    undefined,
    {
      not_found: `org ${api.session.org} has no connection ${connectionId}: "svc connection list" shows them`,
    },
  );
  if (flags.json) {
    io.out(JSON.stringify({ org: api.session.org, connectionId: Number(connectionId), feeds }, null, 2));
    return;
  }
  if (feeds.length === 0) {
    io.out(`Connection ${connectionId} has no feeds: its connector defines none that svc creates by itself.`);
    return;
  }
  const rows = feeds.map((f) => [
    String(f.id),
    f.feedKey,
    f.status,
    formatInterval(f.syncIntervalMs),
    when(f.lastSyncAt),
    cell(f.lastSyncStatus),
    String(f.itemsCollected),
    String(f.consecutiveFailures),
    cell(nameOf(f)),
    short(f.lastError, 80),
  ]);
  const header = [
    'ID',
    'FEED',
    'STATUS',
    'EVERY',
    'LAST SYNC',
    'RESULT',
    'ITEMS',
    'FAILURES',
    'NAME',
    'ERROR',
  ];
  for (const line of table(header, rows)) io.out(line);
}

/** A sync now; prints the run's id, or follows its log to the end with `--follow`. Answers the exit code. */
export async function feedSync(
  feedId: string,
  flags: SessionFlags & { follow?: boolean },
  io: RuntimeIo,
): Promise<number> {
  checkId('feed', feedId, FEED_IDS);
  const api = await openApi(io, flags);
  const { run, created } = await api.call<{ run: RunRecord; created: boolean }>(
    'POST',
    `/feeds/${feedId}/sync`,
    undefined,
    { not_found: `org ${api.session.org} has no feed ${feedId}: ${FEED_IDS}` },
  );
  io.err(
    created
      ? `queued sync run ${run.id} of feed ${feedId}`
      : `feed ${feedId} has a sync open already: run ${run.id} (${run.status}), not a second one`,
  );
  if (flags.follow) return followRun(api, String(run.id), io);
  io.out(String(run.id));
  io.err(`follow it: svc runs logs ${run.id} --follow`);
  return 0;
}

export interface ConfigureFlags extends SessionFlags {
  config?: string[];
  every?: number;
}

/** `config` replaces the feed's config, as `PATCH /feeds/:id` does; the connection's config stays under it. */
export async function feedConfigure(feedId: string, flags: ConfigureFlags, io: RuntimeIo): Promise<void> {
  checkId('feed', feedId, FEED_IDS);
  const config = parseConfig(flags.config);
  if (!config && flags.every === undefined) {
    throw new Error('nothing to change: give --config key=value (repeatable) and/or --every <interval>');
  }
  const api = await openApi(io, flags);
  const strings = stringKeys(flags.config);
  const { result, feed } = await api.call<{ result: 'updated' | 'unchanged'; feed: FeedRecord }>(
    'PATCH',
    `/feeds/${feedId}`,
    { ...(config ? { config } : {}), ...(flags.every !== undefined ? { syncIntervalMs: flags.every } : {}) },
    {
      ...feedHints(api.session.org, feedId),
      validation_failed: ({ errors }) => {
        const typed = errors.some((e) => strings.some((key) => e.path.startsWith(`/body/config/${key}`)));
        return typed
          ? CONFIG_SYNTAX
          : '--config replaces the feed\'s whole config: give every field the feed needs that its connection\'s config does not hold ("svc feed list --json" shows the current one)';
      },
    },
  );
  io.out(result === 'updated' ? `updated ${describeFeed(feed)}` : `unchanged ${describeFeed(feed)}`);
}

export async function feedSetStatus(
  feedId: string,
  status: 'paused' | 'active',
  flags: SessionFlags,
  io: RuntimeIo,
): Promise<void> {
  checkId('feed', feedId, FEED_IDS);
  const api = await openApi(io, flags);
  const { result, feed } = await api.call<{ result: 'updated' | 'unchanged'; feed: FeedRecord }>(
    'PATCH',
    `/feeds/${feedId}`,
    { status },
    {
      ...feedHints(api.session.org, feedId),
      validation_failed: `set its config first: svc feed configure ${feedId} --config key=value ...`,
    },
  );
  const word = status === 'paused' ? 'paused' : 'resumed';
  io.out(result === 'updated' ? `${word} ${describeFeed(feed)}` : `unchanged ${describeFeed(feed)}`);
}

const feedHints = (org: string, feedId: string): Hints => ({
  not_found: `org ${org} has no feed ${feedId}: ${FEED_IDS}`,
});

const UNITS: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/** `90s`, `15m`, `1h`, `2d`, or milliseconds; within the server's bounds, 1m to 30d. */
export function parseInterval(text: string): number {
  const match = text.trim().match(/^(\d+)(ms|s|m|h|d)?$/);
  const unit = UNITS.find(([name]) => name === match?.[2])?.[1] ?? 1;
  const ms = match ? Number(match[1]) * unit : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < 60_000 || ms > 30 * 86_400_000) {
    throw new Error(`"${text}" is not an interval from 1m to 30d: give e.g. 15m, 1h or 2d`);
  }
  return ms;
}

export function formatInterval(ms: number): string {
  const fit = UNITS.find(([, size]) => ms >= size && ms % size === 0);
  return fit ? `${ms / fit[1]}${fit[0]}` : `${ms}ms`;
}
