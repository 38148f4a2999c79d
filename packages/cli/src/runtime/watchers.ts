/** `svc watchers list|run|windows|pause|resume`: watchers as they run on the server. */

import { checkId, type Hints, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import { cell, short, table, when } from './table.js';

export interface WindowRecord {
  id: number;
  windowStart: string;
  windowEnd: string;
  status: 'pending' | 'running' | 'completed' | 'failed';
  attempts: number;
  retryAt: string | null;
  runId: number | null;
  eventCount: number | null;
  truncated: boolean;
  error: string | null;
  summaryEventId: number | null;
  completedAt: string | null;
  reply?: string | null;
  extractedData?: Record<string, unknown> | null;
  eventIds?: number[];
}

export interface WatcherRecord {
  slug: string;
  name: string;
  agent: string;
  schedule: string;
  timezone: string;
  status: 'active' | 'paused';
  pausedReason: string | null;
  consecutiveFailures: number;
  lastError: string | null;
  nextRunAt: string | null;
  lastWindow: WindowRecord | null;
}

const SLUG = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const LISTED = '"svc watchers list" shows them';

function checkSlug(slug: string): void {
  if (!SLUG.test(slug)) throw new Error(`"${slug}" is not a watcher slug: ${LISTED}`);
}

const hints = (org: string, slug: string): Hints => ({
  not_found: `org ${org} has no watcher "${slug}": ${LISTED} (watchers come from memory bundles through "svc apply")`,
  watcher_paused: `watcher "${slug}" is paused: resume it first with "svc watchers resume ${slug}"`,
});

/** A window's state in a few words: "completed, 12 events", "failed (attempt 2, retry 10:04:00): ...". */
function windowState(w: WindowRecord): string {
  if (w.status === 'failed') {
    return `failed (attempt ${w.attempts}${w.retryAt ? `, retry ${when(w.retryAt)}` : ''})`;
  }
  const events =
    w.eventCount === null
      ? ''
      : `, ${w.eventCount} events${w.truncated ? ' (not all shown to the model)' : ''}`;
  return `${w.status}${events}`;
}

export async function watchersList(flags: SessionFlags & { json?: boolean }, io: RuntimeIo): Promise<void> {
  const api = await openApi(io, flags);
  const { watchers } = await api.call<{ watchers: WatcherRecord[] }>('GET', '/watchers');
  if (flags.json) {
    io.out(JSON.stringify({ org: api.session.org, watchers }, null, 2));
    return;
  }
  if (watchers.length === 0) {
    io.out(`No watchers in org ${api.session.org}: add them to a memory bundle and run "svc apply".`);
    return;
  }
  const rows = watchers.map((w) => [
    w.slug,
    w.agent,
    `${w.schedule} ${w.timezone}`,
    w.status,
    w.lastWindow ? `${when(w.lastWindow.windowEnd)} ${windowState(w.lastWindow)}` : '-',
    when(w.nextRunAt),
    short(w.status === 'paused' ? w.pausedReason : w.lastError, 80),
  ]);
  for (const line of table(
    ['WATCHER', 'AGENT', 'SCHEDULE', 'STATUS', 'LAST WINDOW', 'NEXT RUN', 'PROBLEM'],
    rows,
  ))
    io.out(line);
}

export async function watchersRun(
  slug: string,
  flags: SessionFlags & { json?: boolean },
  io: RuntimeIo,
): Promise<void> {
  checkSlug(slug);
  const api = await openApi(io, flags);
  const { window, created } = await api.call<{ window: WindowRecord; created: boolean }>(
    'POST',
    `/watchers/${slug}/run`,
    undefined,
    hints(api.session.org, slug),
  );
  if (flags.json) {
    io.out(JSON.stringify({ window, created }, null, 2));
    return;
  }
  io.out(String(window.id));
  io.err(
    created
      ? `started window ${window.id} of "${slug}": what arrived from ${when(window.windowStart)} to ${when(window.windowEnd)} UTC`
      : `"${slug}" had window ${window.id} open (${windowState(window)}): it runs now, not a second one`,
  );
  io.err(`its result: svc watchers windows ${slug} --window ${window.id}`);
}

export async function watchersWindows(
  slug: string,
  flags: SessionFlags & { json?: boolean; window?: string; limit?: number; cursor?: string },
  io: RuntimeIo,
): Promise<void> {
  checkSlug(slug);
  const api = await openApi(io, flags);
  if (flags.window !== undefined) {
    checkId('window', flags.window, `"svc watchers windows ${slug}" shows them`);
    const { window } = await api.call<{ window: WindowRecord }>(
      'GET',
      `/watchers/${slug}/windows/${flags.window}`,
      undefined,
      {
        not_found: `watcher "${slug}" has no window ${flags.window}: "svc watchers windows ${slug}" shows them`,
      },
    );
    if (flags.json) {
      io.out(JSON.stringify({ window }, null, 2));
      return;
    }
    io.out(`window ${window.id} of "${slug}": ${when(window.windowStart)} to ${when(window.windowEnd)} UTC`);
    io.out(`status: ${windowState(window)}`);
    if (window.error) io.out(`error: ${window.error}`);
    io.out(`events: ${window.eventIds?.join(', ') || '-'}`);
    if (window.extractedData) io.out(`result:\n${JSON.stringify(window.extractedData, null, 2)}`);
    else if (window.reply) io.out(`reply:\n${window.reply}`);
    return;
  }
  const query = new URLSearchParams({ limit: String(flags.limit ?? 20) });
  if (flags.cursor !== undefined) query.set('cursor', flags.cursor);
  const { windows, nextCursor } = await api.call<{ windows: WindowRecord[]; nextCursor: string | null }>(
    'GET',
    `/watchers/${slug}/windows?${query}`,
    undefined,
    hints(api.session.org, slug),
  );
  if (flags.json) {
    io.out(JSON.stringify({ windows, nextCursor }, null, 2));
    return;
  }
  if (windows.length === 0) {
    io.out(
      `Watcher "${slug}" has no window yet: its first closes at its next tick ("svc watchers run ${slug}" runs one now).`,
    );
    return;
  }
  const rows = windows.map((w) => [
    String(w.id),
    when(w.windowStart),
    when(w.windowEnd),
    windowState(w),
    cell(w.runId),
    short(w.error, 80),
  ]);
  for (const line of table(['WINDOW', 'FROM', 'TO', 'STATUS', 'RUN', 'ERROR'], rows)) io.out(line);
  if (nextCursor) io.err(`more: svc watchers windows ${slug} --cursor ${nextCursor}`);
}

export async function watchersSetStatus(
  slug: string,
  status: 'active' | 'paused',
  flags: SessionFlags,
  io: RuntimeIo,
): Promise<void> {
  checkSlug(slug);
  const api = await openApi(io, flags);
  const { watcher } = await api.call<{ watcher: WatcherRecord }>(
    'PATCH',
    `/watchers/${slug}`,
    { status },
    hints(api.session.org, slug),
  );
  io.out(
    status === 'paused'
      ? `paused watcher "${slug}": it makes no window until "svc watchers resume ${slug}"`
      : `resumed watcher "${slug}"${watcher.nextRunAt ? `: next run ${when(watcher.nextRunAt)} UTC` : ''}`,
  );
}
