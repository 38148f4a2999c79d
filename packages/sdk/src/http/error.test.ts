import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './error.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');

  it('reads seconds and HTTP-dates as milliseconds from now', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Monday, 23-Nov-26 10:01:00 GMT', now)).toBe(60_000);
  });

  it('takes a date in the past as no wait, and anything unreadable as no header', () => {
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
