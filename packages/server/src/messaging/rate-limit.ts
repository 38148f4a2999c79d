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
 * Takes one request from `key`'s budget, or answers how many seconds to wait. Runs inside the
 * caller's transaction, so that what the budget pays for and the payment commit together. The
 * budget lives in PostgreSQL, so every replica shares it exactly. GCRA keeps it to one row: the row
 * holds the time at which the budget would be whole again (`tat`); each request pushes it by
 * period/count, and a request is refused when that would put it more than a period ahead. The row
 * is locked before it is read, so concurrent requests are decided one after another.
 */
export async function takeFromBudget(
  client: PoolClient,
  limit: RateLimit,
  key: string,
): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
  const step = limit.periodMs / limit.count;
  await client.query('INSERT INTO rate_limits (key, tat) VALUES ($1, now()) ON CONFLICT (key) DO NOTHING', [
    key,
  ]);
  const { rows } = await client.query<{ tat_ms: number; now_ms: number }>(
    `SELECT extract(epoch FROM tat) * 1000 AS tat_ms, extract(epoch FROM now()) * 1000 AS now_ms
       FROM rate_limits WHERE key = $1 FOR UPDATE`,
    [key],
  );
  const tat = Number(rows[0]?.tat_ms);
  const now = Number(rows[0]?.now_ms);
  const next = Math.max(tat, now) + step;
  if (next - now > limit.periodMs) {
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((next - now - limit.periodMs) / 1000)),
    };
  }
  await client.query('UPDATE rate_limits SET tat = to_timestamp($2 / 1000.0) WHERE key = $1', [key, next]);
  return { allowed: true };
}
