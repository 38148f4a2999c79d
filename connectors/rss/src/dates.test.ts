import { describe, expect, it } from 'vitest';
import { parseFeedDate } from './dates.js';

const iso = (text: string) => parseFeedDate(text)?.toISOString();

describe('parseFeedDate', () => {
  it.each([
    ['Mon, 23 Nov 2026 09:00:00 GMT', '2026-11-23T09:00:00.000Z'],
    ['Mon, 23 Nov 2026 09:00:00 +0200', '2026-11-23T07:00:00.000Z'],
    ['Mon, 23 Nov 2026 09:00:00 -05:30', '2026-11-23T14:30:00.000Z'],
    ['Mon, 23 Nov 2026 09:00:00 EST', '2026-11-23T14:00:00.000Z'],
    ['Mon, 23 Nov 2026 09:00:00 PDT', '2026-11-23T16:00:00.000Z'],
    ['Mon, 23 Nov 2026 09:00:00 CEST', '2026-11-23T07:00:00.000Z'],
    ['Mon, 23 Nov 2026 09:00:00 Z', '2026-11-23T09:00:00.000Z'],
    ['23 Nov 2026 09:00 GMT', '2026-11-23T09:00:00.000Z'],
    ['Monday, 23 November 2026 09:00:00 GMT', '2026-11-23T09:00:00.000Z'],
    ['Mon, 3 Nov 26 09:00:00 GMT', '2026-11-03T09:00:00.000Z'],
    ['Fri, 03 Dec 99 09:00:00 GMT', '1999-12-03T09:00:00.000Z'],
    ['mon, 23 nov 2026 09:00:00 gmt', '2026-11-23T09:00:00.000Z'],
  ])('reads RFC 822 %s', (text, expected) => {
    expect(iso(text)).toBe(expected);
  });

  it.each([
    ['2026-11-23T09:00:00Z', '2026-11-23T09:00:00.000Z'],
    ['2026-11-23T09:00:00.123456+01:00', '2026-11-23T08:00:00.123Z'],
    ['2026-11-23t09:00:00z', '2026-11-23T09:00:00.000Z'],
    ['2026-11-23 09:00:00-0330', '2026-11-23T12:30:00.000Z'],
    ['2026-11-23T09:00+02', '2026-11-23T07:00:00.000Z'],
    ['2026-11-23', '2026-11-23T00:00:00.000Z'],
  ])('reads RFC 3339 %s', (text, expected) => {
    expect(iso(text)).toBe(expected);
  });

  it('takes a date without a zone, or with one it does not know, as UTC', () => {
    expect(iso('2026-11-23T09:00:00')).toBe('2026-11-23T09:00:00.000Z');
    expect(iso('Mon, 23 Nov 2026 09:00:00')).toBe('2026-11-23T09:00:00.000Z');
    expect(iso('Mon, 23 Nov 2026 09:00:00 XYZ')).toBe('2026-11-23T09:00:00.000Z');
  });

  it.each([
    '',
    '   ',
    'yesterday',
    '1732352400',
    '2026-02-30T09:00:00Z',
    '2026-13-01',
    'Mon, 31 Apr 2026 09:00:00 GMT',
    'Mon, 23 Foo 2026 09:00:00 GMT',
    'Mon, 23 Nov 2026 25:00:00 GMT',
    '0026-11-23T09:00:00Z',
  ])('refuses %j', (text) => {
    expect(parseFeedDate(text)).toBeUndefined();
  });
});
