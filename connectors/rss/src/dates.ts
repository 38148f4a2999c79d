/**
 * Feed dates: RFC 822 (RSS `pubDate`, as updated by RFC 2822) and RFC 3339 (Atom, `dc:date`).
 * Written out rather than left to Date.parse, which reads a date without a zone as local time and
 * accepts almost anything, so that a date means the same on every worker.
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Offsets in minutes. North American zones are RFC 822's; the European ones are common in the wild. */
const ZONES: Record<string, number> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  WET: 0,
  WEST: 60,
  BST: 60,
  CET: 60,
  CEST: 120,
  EET: 120,
  EEST: 180,
};

const RFC_822 =
  /^(?:[A-Za-z]+,?\s*)?(\d{1,2})[\s-]+([A-Za-z]{3,9})\.?[\s-]+(\d{2,4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([+-]\d{2}:?\d{2}|[A-Za-z]{1,5}))?$/;

const RFC_3339 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt\s](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * The instant a feed date names, or undefined when it is not a date. A date without a zone, or
 * with a zone name not known here, is taken as UTC: a few hours off beats no date at all.
 */
export function parseFeedDate(text: string | undefined): Date | undefined {
  const value = text?.trim();
  if (!value) return undefined;
  return fromRfc3339(value) ?? fromRfc822(value);
}

function fromRfc3339(value: string): Date | undefined {
  const m = RFC_3339.exec(value);
  if (!m) return undefined;
  // The pattern guarantees year, month and day; the defaults only satisfy the types.
  const [, year = '', month = '', day = '', hour = '0', minute = '0', second = '0', fraction = '', zone] = m;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  return build(+year, +month - 1, +day, +hour, +minute, +second, ms, offsetOf(zone));
}

function fromRfc822(value: string): Date | undefined {
  const m = RFC_822.exec(value);
  if (!m) return undefined;
  const [, day = '', monthName = '', yearText = '', hour = '', minute = '', second = '0', zone] = m;
  const month = MONTHS.indexOf(monthName.slice(0, 3).toLowerCase());
  if (month === -1) return undefined;
  return build(fullYear(yearText), month, +day, +hour, +minute, +second, 0, offsetOf(zone));
}

/** RFC 2822's rule for the two- and three-digit years of old feeds. */
function fullYear(text: string): number {
  const year = Number(text);
  if (text.length === 2) return year < 50 ? 2000 + year : 1900 + year;
  if (text.length === 3) return 1900 + year;
  return year;
}

function offsetOf(zone: string | undefined): number {
  if (!zone) return 0;
  const numeric = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (numeric) {
    const [, sign, hours, minutes = '0'] = numeric;
    return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
  }
  // Military letters other than Z carry no reliable offset (RFC 2822 4.3): UTC, like unknown names.
  return ZONES[zone.toUpperCase()] ?? 0;
}

/** Rejects what Date.UTC would roll over, such as 31 April or 25:00. */
function build(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  offsetMinutes: number,
): Date | undefined {
  // 24:00 is not accepted, and 60 seconds only as a leap second, read as :59.
  // Date.UTC would also read a year below 100 as 19xx.
  if (year < 1000 || month < 0 || month > 11 || hour > 23 || minute > 59 || second > 60) return undefined;
  const local = Date.UTC(year, month, day, hour, minute, Math.min(second, 59), ms);
  const check = new Date(local);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month) return undefined;
  return new Date(local - offsetMinutes * 60_000);
}
