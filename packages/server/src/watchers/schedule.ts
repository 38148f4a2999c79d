import { alignToWatcherWindowStart, type WatcherTimeGranularity } from '@svc/connector-sdk';
import { Cron } from 'croner';

/** What a watcher's schedule needs: its cron, its zone, and the shortest window it allows. */
export interface WatcherClock {
  schedule: string;
  timezone: string | null;
  minCooldownSeconds: number | null;
}

/** After this many ticks missed in a row, a catch-up window is cut at the latest without counting them. */
const MOST_TICKS_WALKED = 2000;

const cronOf = (watcher: WatcherClock) =>
  new Cron(watcher.schedule, { timezone: watcher.timezone ?? 'UTC', paused: true });

/** The watcher's next tick after `after`, on its clock (null when the cron never fires again). */
export function nextTick(watcher: WatcherClock, after: Date): Date | null {
  return cronOf(watcher).nextRun(after);
}

/**
 * The latest tick at or before `at`. The cron library answers ticks strictly before a reference
 * it first cuts to the second, so it is asked from a second later and the answers filtered.
 */
function tickAtOrBefore(cron: Cron, at: Date): Date | null {
  return cron.previousRuns(2, new Date(at.getTime() + 1000)).find((t) => t.getTime() <= at.getTime()) ?? null;
}

/** The tick at or before `at`: where a new watcher's first window starts. */
export function previousTick(watcher: WatcherClock, at: Date): Date | null {
  return tickAtOrBefore(cronOf(watcher), at);
}

/**
 * Where the window that starts at `start` ends, given that ticks up to `closedBy` may close one:
 * the latest tick in (start, closedBy] that is at least `min_cooldown_seconds` after `start`.
 * Ticks missed while every process was down make one catch-up window, not one per tick. Null when
 * no tick is due yet.
 */
export function windowEnd(watcher: WatcherClock, start: Date, closedBy: Date): Date | null {
  const cron = cronOf(watcher);
  const earliest = new Date(start.getTime() + (watcher.minCooldownSeconds ?? 0) * 1000);
  const latest = tickAtOrBefore(cron, closedBy);
  if (!latest || latest.getTime() <= start.getTime() || latest.getTime() < earliest.getTime()) {
    // A cooldown longer than the ticks: no tick far enough from the start has come yet.
    return null;
  }
  return latest;
}

/** How many ticks fall in (start, end]: one for a window on time, more for a catch-up. */
export function ticksIn(watcher: WatcherClock, start: Date, end: Date): number {
  const cron = cronOf(watcher);
  let count = 0;
  let at: Date | null = start;
  while (count < MOST_TICKS_WALKED) {
    at = cron.nextRun(at);
    if (!at || at.getTime() > end.getTime()) break;
    count++;
  }
  return count;
}

const PERIODS: [WatcherTimeGranularity, number][] = [
  ['minute', 60_000],
  ['hour', 3_600_000],
  ['day', 86_400_000],
  ['week', 7 * 86_400_000],
  ['month', 28 * 86_400_000],
  ['year', 365 * 86_400_000],
];

/**
 * The calendar unit a watcher's ticks are apart (a daily cron: `day`), and the window's label in
 * it: the SDK's `alignToWatcherWindowStart` of the window's last instant, in the watcher's zone.
 * A daily report at 09:00 in Berlin covers "the day up to 09:00 on 2026-11-26"; the label is
 * what the model and people read, the window itself is [start, end) by arrival.
 */
export function windowPeriod(
  watcher: WatcherClock,
  end: Date,
): { granularity: WatcherTimeGranularity; periodStart: Date } {
  const runs = cronOf(watcher).nextRuns(2, new Date(end.getTime() - 1));
  const gap = runs.length === 2 ? (runs[1] as Date).getTime() - (runs[0] as Date).getTime() : 86_400_000;
  let granularity: WatcherTimeGranularity = 'minute';
  for (const [unit, ms] of PERIODS) if (gap >= ms) granularity = unit;
  const periodStart = alignToWatcherWindowStart(
    new Date(end.getTime() - 1),
    granularity,
    watcher.timezone ?? 'UTC',
  );
  return { granularity, periodStart };
}
