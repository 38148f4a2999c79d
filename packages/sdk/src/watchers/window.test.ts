import { describe, expect, it } from 'vitest';
import {
  alignToWatcherWindowStart,
  WATCHER_TIME_GRANULARITIES,
  type WatcherTimeGranularity,
} from './window.js';

const align = (iso: string, granularity: WatcherTimeGranularity, timeZone?: string) =>
  alignToWatcherWindowStart(new Date(iso), granularity, timeZone).toISOString();

describe('alignToWatcherWindowStart in UTC', () => {
  // Thursday 14 May 2026
  it.each([
    ['minute', '2026-05-14T13:47:00.000Z'],
    ['hour', '2026-05-14T13:00:00.000Z'],
    ['day', '2026-05-14T00:00:00.000Z'],
    ['week', '2026-05-11T00:00:00.000Z'],
    ['month', '2026-05-01T00:00:00.000Z'],
    ['quarter', '2026-04-01T00:00:00.000Z'],
    ['year', '2026-01-01T00:00:00.000Z'],
  ] as const)('%s → %s', (granularity, start) => {
    expect(align('2026-05-14T13:47:12.345Z', granularity)).toBe(start);
    expect(align('2026-05-14T13:47:12.345Z', granularity, 'UTC')).toBe(start);
  });

  it('starts a week on Monday, also for a Sunday and for a Monday itself', () => {
    expect(align('2026-05-17T23:59:59.999Z', 'week')).toBe('2026-05-11T00:00:00.000Z');
    expect(align('2026-05-18T00:00:00.000Z', 'week')).toBe('2026-05-18T00:00:00.000Z');
  });

  it('gives a plain Date and leaves the input alone', () => {
    const date = new Date('2026-05-14T13:47:12.345Z');
    const start = alignToWatcherWindowStart(date, 'day', 'Europe/Berlin');
    expect(Object.getPrototypeOf(start)).toBe(Date.prototype);
    expect(date.toISOString()).toBe('2026-05-14T13:47:12.345Z');
  });
});

describe('alignToWatcherWindowStart in other zones', () => {
  it('uses the local calendar of Europe/Berlin, with the offset in force at the window start', () => {
    const date = '2026-05-14T13:47:12Z'; // 15:47 CEST
    expect(align(date, 'hour', 'Europe/Berlin')).toBe('2026-05-14T13:00:00.000Z');
    expect(align(date, 'day', 'Europe/Berlin')).toBe('2026-05-13T22:00:00.000Z');
    expect(align(date, 'week', 'Europe/Berlin')).toBe('2026-05-10T22:00:00.000Z');
    expect(align(date, 'month', 'Europe/Berlin')).toBe('2026-04-30T22:00:00.000Z');
    expect(align(date, 'quarter', 'Europe/Berlin')).toBe('2026-03-31T22:00:00.000Z');
    // 1 January is in winter time
    expect(align(date, 'year', 'Europe/Berlin')).toBe('2025-12-31T23:00:00.000Z');
  });

  it('puts a late evening in America/New_York on its local day, not the UTC one', () => {
    const date = '2026-05-14T02:30:00Z'; // 13 May, 22:30 EDT
    expect(align(date, 'day', 'America/New_York')).toBe('2026-05-13T04:00:00.000Z');
    expect(align(date, 'day', 'UTC')).toBe('2026-05-14T00:00:00.000Z');
    expect(align('2026-01-01T03:00:00Z', 'year', 'America/New_York')).toBe('2025-01-01T05:00:00.000Z');
  });

  it('starts hours at half past in UTC for Asia/Kolkata', () => {
    expect(align('2026-05-14T13:47:00Z', 'hour', 'Asia/Kolkata')).toBe('2026-05-14T13:30:00.000Z');
    expect(align('2026-05-14T13:29:59Z', 'hour', 'Asia/Kolkata')).toBe('2026-05-14T12:30:00.000Z');
    expect(align('2026-05-14T13:47:00Z', 'day', 'Asia/Kolkata')).toBe('2026-05-13T18:30:00.000Z');
  });

  it('maps quarters and years across a daylight-saving change', () => {
    expect(align('2026-02-10T12:00:00Z', 'quarter', 'Europe/Berlin')).toBe('2025-12-31T23:00:00.000Z');
    expect(align('2026-11-20T12:00:00Z', 'quarter', 'Europe/Berlin')).toBe('2026-09-30T22:00:00.000Z');
    expect(align('2026-12-31T23:30:00Z', 'year', 'Europe/Berlin')).toBe('2026-12-31T23:00:00.000Z');
    expect(align('2026-12-31T23:30:00Z', 'quarter', 'America/New_York')).toBe('2026-10-01T04:00:00.000Z');
  });
});

describe('alignToWatcherWindowStart on daylight-saving days', () => {
  it('starts the day clocks go forward at its midnight in the old offset (Europe/Berlin, 29 March 2026)', () => {
    for (const date of [
      '2026-03-28T23:00:00Z',
      '2026-03-29T00:59:59Z',
      '2026-03-29T12:00:00Z',
      '2026-03-29T21:59:59Z',
    ]) {
      expect(align(date, 'day', 'Europe/Berlin')).toBe('2026-03-28T23:00:00.000Z');
    }
    expect(align('2026-03-29T22:00:00Z', 'day', 'Europe/Berlin')).toBe('2026-03-29T22:00:00.000Z');
    // the Sunday belongs to the week of Monday 23 March
    expect(align('2026-03-29T12:00:00Z', 'week', 'Europe/Berlin')).toBe('2026-03-22T23:00:00.000Z');
    // 03:00 CEST follows 01:59 CET directly
    expect(align('2026-03-29T01:15:00Z', 'hour', 'Europe/Berlin')).toBe('2026-03-29T01:00:00.000Z');
  });

  it('makes the day clocks go back 25 hours long, and the repeated hour one window (Europe/Berlin, 25 October 2026)', () => {
    for (const date of [
      '2026-10-24T22:00:00Z',
      '2026-10-25T00:30:00Z',
      '2026-10-25T01:30:00Z',
      '2026-10-25T22:59:59Z',
    ]) {
      expect(align(date, 'day', 'Europe/Berlin')).toBe('2026-10-24T22:00:00.000Z');
    }
    // 02:30 CEST and 02:30 CET are both in the 02:00 window, which opens at its first pass
    expect(align('2026-10-25T00:30:00Z', 'hour', 'Europe/Berlin')).toBe('2026-10-25T00:00:00.000Z');
    expect(align('2026-10-25T01:30:00Z', 'hour', 'Europe/Berlin')).toBe('2026-10-25T00:00:00.000Z');
    expect(align('2026-10-25T02:00:00Z', 'hour', 'Europe/Berlin')).toBe('2026-10-25T02:00:00.000Z');
  });

  it('handles America/New_York on 8 March and 1 November 2026', () => {
    expect(align('2026-03-08T12:00:00Z', 'day', 'America/New_York')).toBe('2026-03-08T05:00:00.000Z');
    expect(align('2026-03-08T07:30:00Z', 'hour', 'America/New_York')).toBe('2026-03-08T07:00:00.000Z');
    expect(align('2026-11-01T12:00:00Z', 'day', 'America/New_York')).toBe('2026-11-01T04:00:00.000Z');
    expect(align('2026-11-01T06:30:00Z', 'hour', 'America/New_York')).toBe('2026-11-01T05:00:00.000Z');
  });

  it('starts a day whose midnight is skipped at the first instant of that day (America/Santiago)', () => {
    // clocks jump from 00:00 to 01:00 on Sunday 6 September 2026
    expect(align('2026-09-06T12:00:00Z', 'day', 'America/Santiago')).toBe('2026-09-06T04:00:00.000Z');
  });
});

describe('alignToWatcherWindowStart against a brute-force reading of the local clock', () => {
  // What the zone's clock shows at `t`, from Intl rather than from date-fns.
  const formatters = new Map<string, Intl.DateTimeFormat>();
  const clock = (t: number, timeZone: string) => {
    let format = formatters.get(timeZone);
    if (!format) {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
      });
      formatters.set(timeZone, format);
    }
    const parts = Object.fromEntries(format.formatToParts(t).map((p) => [p.type, Number(p.value)]));
    const [year, month, day, hour, minute] = ['year', 'month', 'day', 'hour', 'minute'].map((k) => parts[k]!);
    return { year: year!, month: month!, day: day!, hour: hour!, minute: minute! };
  };

  // The label the clock shows for the window of each granularity.
  const label = (t: number, granularity: WatcherTimeGranularity, timeZone: string): string => {
    const { year, month, day, hour, minute } = clock(t, timeZone);
    switch (granularity) {
      case 'minute':
        return `${year}-${month}-${day} ${hour}:${minute}`;
      case 'hour':
        return `${year}-${month}-${day} ${hour}`;
      case 'day':
        return `${year}-${month}-${day}`;
      case 'week': {
        const local = new Date(Date.UTC(year, month - 1, day));
        local.setUTCDate(local.getUTCDate() - ((local.getUTCDay() + 6) % 7));
        return local.toISOString().slice(0, 10);
      }
      case 'month':
        return `${year}-${month}`;
      case 'quarter':
        return `${year}-Q${Math.ceil(month / 3)}`;
      case 'year':
        return `${year}`;
    }
  };

  // Walk back while the clock still shows the same label, in steps well inside one window so that a label
  // shown again after a gap (02:59 when clocks go back at 03:00) is not taken for the same window.
  const STEPS: Record<WatcherTimeGranularity, number[]> = {
    minute: [60_000],
    hour: [60_000],
    day: [3_600_000, 60_000],
    week: [86_400_000, 3_600_000, 60_000],
    month: [86_400_000, 3_600_000, 60_000],
    quarter: [86_400_000, 3_600_000, 60_000],
    year: [86_400_000, 3_600_000, 60_000],
  };
  const bruteForceStart = (t: number, granularity: WatcherTimeGranularity, timeZone: string): number => {
    const target = label(t, granularity, timeZone);
    let start = Math.floor(t / 60_000) * 60_000;
    for (const step of STEPS[granularity]) {
      while (label(start - step, granularity, timeZone) === target) start -= step;
    }
    return start;
  };

  // Every change of offset in 2026, to the minute, found by scanning rather than written down.
  const offsetChanges = (timeZone: string): number[] => {
    const offset = (t: number) => {
      const { year, month, day, hour, minute } = clock(t, timeZone);
      return Date.UTC(year, month - 1, day, hour, minute) - t;
    };
    const changes: number[] = [];
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 3_600_000) {
      if (offset(t) === offset(t + 3_600_000)) continue;
      let [lo, hi] = [t, t + 3_600_000];
      while (hi - lo > 60_000) {
        const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
        if (offset(mid) === offset(lo)) lo = mid;
        else hi = mid;
      }
      changes.push(hi);
    }
    return changes;
  };

  // Berlin and New York: one-hour changes at night; Lord Howe: half-hour changes; Havana: clocks go back
  // from 01:00 to midnight, so midnight happens twice; Santiago: midnight is skipped.
  const ZONES = [
    'Europe/Berlin',
    'America/New_York',
    'Australia/Lord_Howe',
    'America/Havana',
    'America/Santiago',
  ];

  it.each(ZONES)('agrees in %s around every offset change of 2026', (timeZone) => {
    const changes = offsetChanges(timeZone);
    expect(changes).toHaveLength(2);
    for (const change of changes) {
      const samples = [-1, 0, 1];
      for (let m = -150; m <= 150; m += 10) samples.push(m * 60_000);
      for (let h = -30; h <= 30; h += 5) samples.push(h * 3_600_000 + 7 * 60_000);
      for (const offset of samples) {
        const t = change + offset;
        for (const granularity of WATCHER_TIME_GRANULARITIES) {
          const start = alignToWatcherWindowStart(new Date(t), granularity, timeZone).getTime();
          const expected = bruteForceStart(t, granularity, timeZone);
          expect(new Date(start).toISOString(), `${granularity} of ${new Date(t).toISOString()}`).toBe(
            new Date(expected).toISOString(),
          );
        }
      }
    }
  });
});

describe('alignToWatcherWindowStart refuses bad arguments', () => {
  it('throws a RangeError naming an unknown time zone', () => {
    const call = () => alignToWatcherWindowStart(new Date(), 'day', 'Mars/Olympus_Mons');
    expect(call).toThrow(RangeError);
    expect(call).toThrow('"Mars/Olympus_Mons"');
  });

  it('throws a RangeError naming an unknown granularity', () => {
    const call = () => alignToWatcherWindowStart(new Date(), 'fortnight' as WatcherTimeGranularity);
    expect(call).toThrow(RangeError);
    expect(call).toThrow('"fortnight"');
    expect(() => alignToWatcherWindowStart(new Date(), 'toString' as WatcherTimeGranularity)).toThrow(
      RangeError,
    );
  });

  it('throws a RangeError for an invalid date rather than returning one', () => {
    expect(() => alignToWatcherWindowStart(new Date('not a date'), 'day')).toThrow(RangeError);
  });
});
