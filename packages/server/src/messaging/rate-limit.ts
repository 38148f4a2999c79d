import type { PoolClient } from 'pg';

/** At most `count` requests per `periodMs`, all of them at once if the budget is full. */
export interface RateLimit {
  count: number;
  periodMs: number;
}

export const DEFAULT_MESSAGE_RATE_LIMIT = '60/min';

const UNITS: Record<string, number> = { s: 1000, sec: 1000, min: 60_000, h: 3_600_000, hour: 3_600_000 };

/** `SVC_MESSAGES_RATE_LIMIT`: `60/min`, `5/s`, `1000/h`, or `off`. */
export function parseRateLimit(raw: string | undefined): RateLimit | null {
  const text = (raw ?? DEFAULT_MESSAGE_RATE_LIMIT).trim();
  if (text === 'off') return null;
  const match = /^(\d+)\s*\/\s*(s|sec|min|h|hour)$/.exec(text);
  const count = Number(match?.[1]);
  if (!match || !Number.isSafeInteger(count) || count < 1) {
    throw new Error(`SVC_MESSAGES_RATE_LIMIT "${text}" must be like 60/min, 5/s or 1000/h, or "off"`);
  }
  return { count, periodMs: UNITS[match[2] as string] as number };
}

/**
 * The budget is GCRA in one row per key: the row holds the time at which the budget would be whole
 * again (`tat`); each request pushes it by period/count, and a request is refused when that would
 * put it more than a period ahead. It lives in PostgreSQL, so every replica shares it exactly, and
 * it is paid in the caller's transaction (or statement), so that what it pays for and the payment
 * commit together. Concurrent requests on one key are decided one after another (the row lock).
 *
 * `paymentSql` is one payment as a statement that returns a row when allowed and none when
 * refused, with its key, step (ms) and period (ms) at the given parameter numbers: so that it can
 * be a part of a larger statement (the message insert of messaging/queries.ts), where `condition`
 * (SQL) says whether to pay at all.
 */
export function paymentSql(key: number, stepMs: number, periodMs: number, condition = 'true'): string {
  const step = `make_interval(secs => $${stepMs}::float8 / 1000)`;
  const period = `make_interval(secs => $${periodMs}::float8 / 1000)`;
  return `INSERT INTO rate_limits (key, tat) SELECT $${key}::text, now() + ${step} WHERE $${key}::text IS NOT NULL AND ${condition}
     ON CONFLICT (key) DO UPDATE SET tat = greatest(rate_limits.tat, now()) + ${step}
      WHERE greatest(rate_limits.tat, now()) + ${step} <= now() + ${period}
     RETURNING 1`;
}

export const paymentParams = (limit: RateLimit) => [limit.periodMs / limit.count, limit.periodMs];

/** How long a refused key waits until its next request is allowed, in whole seconds (at least 1). */
export async function retryAfterSeconds(client: Pick<PoolClient, 'query'>, limit: RateLimit, key: string) {
  const { rows } = await client.query<{ wait_ms: number }>(
    `SELECT extract(epoch FROM greatest(tat, now()) - now()) * 1000 + $2::float8 - $3::float8 AS wait_ms
       FROM rate_limits WHERE key = $1`,
    [key, ...paymentParams(limit)],
  );
  return Math.max(1, Math.ceil(Number(rows[0]?.wait_ms ?? 0) / 1000));
}

/** Takes one request from `key`'s budget inside the caller's transaction, or answers how long to wait. */
export async function takeFromBudget(
  client: PoolClient,
  limit: RateLimit,
  key: string,
): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
  const { rowCount } = await client.query(paymentSql(1, 2, 3), [key, ...paymentParams(limit)]);
  if (rowCount === 1) return { allowed: true };
  return { allowed: false, retryAfterSeconds: await retryAfterSeconds(client, limit, key) };
}
