import { alignToWatcherWindowStart } from '@svc/connector-sdk';
import { describe, expect, it } from 'vitest';
import { previousTick, ticksIn, windowEnd, windowPeriod } from './schedule.js';

const berlinDaily = { schedule: '0 0 * * *', timezone: 'Europe/Berlin', minCooldownSeconds: null };
const d = (iso: string) => new Date(iso);

describe("a watcher's ticks and windows", () => {
  it("ends a window at the latest tick that has passed, in the watcher's zone, across a clock change", () => {
    // Clocks in Berlin go back on 2026-10-25: that day is 25 hours long.
    const start = d('2026-10-24T22:00:00Z'); // midnight of the 25th, still UTC+2
    expect(windowEnd(berlinDaily, start, d('2026-10-25T22:59:59Z'))).toBeNull();
    expect(windowEnd(berlinDaily, start, d('2026-10-25T23:00:00Z'))).toEqual(d('2026-10-25T23:00:00Z'));
    // Three days late: one catch-up window to the latest midnight.
    expect(windowEnd(berlinDaily, start, d('2026-10-28T10:00:00Z'))).toEqual(d('2026-10-27T23:00:00Z'));
    expect(ticksIn(berlinDaily, start, d('2026-10-27T23:00:00Z'))).toBe(3);
  });

  it('starts a new watcher at the tick before it was made', () => {
    expect(previousTick(berlinDaily, d('2026-11-26T15:30:00Z'))).toEqual(d('2026-11-25T23:00:00Z'));
    expect(previousTick(berlinDaily, d('2026-11-25T23:00:00Z'))).toEqual(d('2026-11-25T23:00:00Z'));
  });

  it('waits out min_cooldown_seconds: a minute cron with a 5-minute cooldown makes 5-minute windows', () => {
    const clock = { schedule: '* * * * *', timezone: null, minCooldownSeconds: 300 };
    const start = d('2026-11-26T10:00:00Z');
    expect(windowEnd(clock, start, d('2026-11-26T10:04:59Z'))).toBeNull();
    expect(windowEnd(clock, start, d('2026-11-26T10:05:30Z'))).toEqual(d('2026-11-26T10:05:00Z'));
  });

  it("labels a window in its cron's unit, as the SDK aligns it", () => {
    const end = d('2026-10-25T23:00:00Z');
    const { granularity, periodStart } = windowPeriod(berlinDaily, end);
    expect(granularity).toBe('day');
    expect(periodStart).toEqual(
      alignToWatcherWindowStart(new Date(end.getTime() - 1), 'day', 'Europe/Berlin'),
    );
    expect(periodStart).toEqual(d('2026-10-24T22:00:00Z'));
    const weekly = windowPeriod(
      { schedule: '0 9 * * 1', timezone: 'Asia/Kolkata', minCooldownSeconds: null },
      d('2026-11-23T03:30:00Z'),
    );
    expect(weekly.granularity).toBe('week');
    expect(
      windowPeriod({ schedule: '*/5 * * * *', timezone: null, minCooldownSeconds: null }, end).granularity,
    ).toBe('minute');
    expect(
      windowPeriod({ schedule: '0 * * * *', timezone: null, minCooldownSeconds: null }, end).granularity,
    ).toBe('hour');
  });
});
