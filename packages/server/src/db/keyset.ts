/**
 * Keyset pages of lists ordered newest first by (time, id): events, runs. The cursor, and the SQL
 * that reads and compares its position.
 */
import { ProblemError } from '../http/problem.js';

/** Ids in paths and filters: digits only, short enough that PostgreSQL never overflows a bigint on them. */
export const isId = (value: string) => /^\d{1,18}$/.test(value);

/**
 * An opaque position in a list ordered newest first by (time, id): what the next page starts
 * after. The time travels as whole microseconds since the epoch, exact both ways: a JavaScript
 * Date would round it to the millisecond and repeat or skip rows, and a timestamp's text would
 * reach PostgreSQL unchecked (a forged one is a 500, not a 400).
 */
export const encodeCursor = (micros: string, id: string) =>
  Buffer.from(JSON.stringify([micros, id])).toString('base64url');

/**
 * PostgreSQL's first timestamp (4714 BC) and the end of year 9999: a forged cursor outside is a range
 * error. Compared as BigInts: as a Number, -210866803200000001 rounds to the first and passes.
 */
const FIRST_MICROS = -210_866_803_200_000_000n;
const LAST_MICROS = 253_402_300_800_000_000n;

function decodeCursor(cursor: string): { micros: string; id: string } | null {
  try {
    const [micros, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    if (
      typeof micros === 'string' &&
      /^-?\d{1,18}$/.test(micros) &&
      BigInt(micros) >= FIRST_MICROS &&
      BigInt(micros) <= LAST_MICROS &&
      typeof id === 'string' &&
      isId(id)
    ) {
      return { micros, id };
    }
  } catch {}
  return null;
}

/** A cursor this API did not give out is the caller's mistake, not a 500. */
export function cursorOf(raw: string | undefined): { micros: string; id: string } | null {
  if (raw === undefined) return null;
  const cursor = decodeCursor(raw);
  if (!cursor) {
    throw new ProblemError(400, 'validation_failed', 'the cursor is not one this API gave out', [
      { path: '/querystring/cursor', message: "use the previous page's nextCursor" },
    ]);
  }
  return cursor;
}

/** SQL for a column's position in a cursor: its microseconds since the epoch, as text. */
export const microsOf = (column: string) => `(extract(epoch FROM ${column}) * 1000000)::bigint::text`;

/**
 * SQL for the timestamp a cursor's microseconds stand for, from parameter `$n`. Split in seconds
 * and the rest, so that no factor goes through a float that would round it.
 */
export const timestampAt = (n: number) =>
  `(timestamptz 'epoch' + ($${n}::bigint / 1000000) * interval '1 second' + ($${n}::bigint % 1000000) * interval '1 microsecond')`;
