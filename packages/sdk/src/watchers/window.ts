/**
 * Calendar windows for watchers: "today", "this week", "this quarter" as the people the watcher reports
 * to see them on their own clocks, not as UTC slices.
 */

import { TZDate, tzOffset } from '@date-fns/tz';
import {
  startOfDay,
  startOfHour,
  startOfMinute,
  startOfMonth,
  startOfQuarter,
  startOfWeek,
  startOfYear,
} from 'date-fns';

export const WATCHER_TIME_GRANULARITIES = [
  'minute',
  'hour',
  'day',
  'week',
  'month',
  'quarter',
  'year',
] as const;

export type WatcherTimeGranularity = (typeof WATCHER_TIME_GRANULARITIES)[number];

const START_OF: Record<WatcherTimeGranularity, (date: TZDate) => TZDate> = {
  minute: startOfMinute,
  hour: startOfHour,
  day: startOfDay,
  // ISO 8601 weeks, as most of the world's calendars and reports count them.
  week: (date) => startOfWeek(date, { weekStartsOn: 1 }),
  month: startOfMonth,
  quarter: startOfQuarter,
  year: startOfYear,
};

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/**
 * The start of the `granularity` window that contains `date`, on the wall clock of `timeZone` (an IANA
 * name such as `Europe/Berlin`). Minutes and hours are clock minutes and hours of that zone, so in
 * `Asia/Kolkata` (UTC+05:30) hours start at half past in UTC; weeks start on Monday; quarters on 1 January,
 * April, July and October.
 *
 * A window is an unbroken stretch of time during which the zone's clock shows one label ("2026-03-29",
 * "02:xx"), and it starts at the first instant of that stretch. So around daylight-saving changes windows
 * differ in length: the day clocks go forward is 23 hours and starts at its midnight (or, where midnight is
 * skipped, at the jump); the day clocks go back is 25 hours; the hour shown twice when clocks go back is
 * one two-hour window starting at its first pass, while a minute shown twice, an hour apart, is two
 * windows; an hour skipped when clocks go forward has no window at all.
 *
 * @example alignToWatcherWindowStart(new Date('2026-03-29T12:00:00Z'), 'day', 'Europe/Berlin')
 * // 2026-03-28T23:00:00.000Z (midnight, still UTC+1; clocks go forward at 02:00)
 * @example alignToWatcherWindowStart(new Date('2026-03-29T12:00:00Z'), 'week', 'Europe/Berlin')
 * // 2026-03-22T23:00:00.000Z (Monday 23 March, 00:00)
 * @example alignToWatcherWindowStart(new Date('2026-05-14T13:47:00Z'), 'hour', 'Asia/Kolkata')
 * // 2026-05-14T13:30:00.000Z (19:00 in Kolkata)
 * @throws {RangeError} for an invalid date, a time zone the runtime does not know, or a granularity not in
 * `WATCHER_TIME_GRANULARITIES` (for example from an unchecked configuration file).
 */
export function alignToWatcherWindowStart(
  date: Date,
  granularity: WatcherTimeGranularity,
  timeZone = 'UTC',
): Date {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new RangeError(`alignToWatcherWindowStart: invalid date ${String(date)}`);
  }
  if (!Object.hasOwn(START_OF, granularity)) {
    throw new RangeError(
      `alignToWatcherWindowStart: unknown granularity "${granularity}"; use one of ${WATCHER_TIME_GRANULARITIES.join(', ')}`,
    );
  }
  if (!isKnownTimeZone(timeZone)) {
    throw new RangeError(
      `alignToWatcherWindowStart: unknown time zone "${timeZone}"; use an IANA name such as "Europe/Berlin"`,
    );
  }

  const offset = (t: number) => tzOffset(timeZone, new Date(t)) * MINUTE_MS;
  // Calendar arithmetic runs on the wall-clock time written as if it were UTC, where no hour is skipped or
  // repeated. (date-fns on a TZDate resolves a repeated time to either pass, sometimes one after `date`.)
  const windowOf = (t: number) => START_OF[granularity](new TZDate(t + offset(t), 'UTC')).getTime();
  const time = date.getTime();
  const wallStart = windowOf(time);

  // The instant the clock read `wallStart`, under the offset in force before and after that moment. No
  // zone changes its offset twice within the 30 hours around it.
  const before = offset(wallStart - 16 * HOUR_MS);
  const after = offset(wallStart + 14 * HOUR_MS);
  const byBefore = wallStart - before;
  if (before === after) return new Date(byBefore);
  const byAfter = wallStart - after;
  const readByBefore = offset(byBefore) === before;
  const readByAfter = offset(byAfter) === after;

  if (readByBefore && readByAfter) {
    // Clocks went back over `wallStart`, so it was read twice. The passes are one window if the clock
    // never left it in between (02:30 shown twice is one hour window), otherwise two (02:59 is two minutes).
    const oneWindow = time < byAfter || windowOf(byAfter - 1) === wallStart;
    return new Date(oneWindow ? byBefore : byAfter);
  }
  if (readByBefore) return new Date(byBefore);
  if (readByAfter) return new Date(byAfter);
  // Clocks jumped over `wallStart` (a skipped midnight): the window opens at the jump.
  return new Date(firstInstantWith(after, byAfter, byBefore, offset));
}

/** The first instant in (from, to] at which `offset` is `target`, given it is not at `from` but is at `to`. */
function firstInstantWith(target: number, from: number, to: number, offset: (t: number) => number): number {
  let [lo, hi] = [from, to];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offset(mid) === target) hi = mid;
    else lo = mid;
  }
  return hi;
}

const isKnownTimeZone = (timeZone: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
};
