import type { Pool } from 'pg';
import { openDueWindows, settleEndedWindows, startDueWindow } from './windows.js';

/** How long after a window's end it closes: rows written by transactions open at its end commit. */
export const DEFAULT_WATCHER_SETTLE_MS = 30_000;
/** Windows one pass starts at most: the rest wait for the next pass, seconds later. */
const WINDOWS_PER_PASS = 20;

export interface WatcherSchedulerOptions {
  /** SVC_WATCHER_SETTLE_MS. */
  settleMs?: number;
  /** Tests move time; the database's clock otherwise, one clock for every replica. */
  clock?: () => Date;
}

/**
 * One pass of the watcher scheduler, safe on every replica at once: windows whose turn ended are
 * settled, due windows are made, and windows due to run (or retry) are started as turns.
 */
export async function watcherPass(
  pool: Pool,
  env: Record<string, string | undefined>,
  options: WatcherSchedulerOptions = {},
): Promise<{ settled: number; opened: number; started: number }> {
  const now = options.clock
    ? options.clock()
    : (await pool.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now;
  // Each step goes on when another fails: a window that cannot be settled must not keep every
  // other watcher from its next window. The first failure is thrown once all three ran.
  const failures: unknown[] = [];
  const step = <T>(work: Promise<T>, fallback: T) =>
    work.catch((error) => {
      failures.push(error);
      return fallback;
    });
  const settled = await step(settleEndedWindows(pool), 0);
  const opened = await step(openDueWindows(pool, now, options.settleMs ?? DEFAULT_WATCHER_SETTLE_MS), 0);
  let started = 0;
  while (started < WINDOWS_PER_PASS && (await step(startDueWindow(pool, env, now), false))) started++;
  if (failures.length > 0) throw failures[0];
  return { settled, opened, started };
}
