import type { Pool } from 'pg';

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
 * Takes one request from `key`'s budget, or answers how many seconds to wait. The budget lives in
 * PostgreSQL, so every replica shares it exactly; GCRA keeps it to one row and one statement: the
 * row holds the time at which the budget would be whole again (`tat`), each request pushes it by
 * period/count, and a request is refused when that would put it more than a period ahead. The
 * CTE's outer SELECT sees the row as it was, which is what a refused request needs.
 */
export async function takeFromBudget(
  pool: Pool,
  limit: RateLimit,
  key: string,
): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
  const step = limit.periodMs / limit.count;
  const { rows } = await pool.query<{ granted: boolean; wait_ms: number | null }>(
    `WITH hit AS (
       INSERT INTO rate_limits AS r (key, tat) VALUES ($1, now() + make_interval(secs => $2 / 1000.0))
       ON CONFLICT (key) DO UPDATE SET tat = greatest(r.tat, now()) + make_interval(secs => $2 / 1000.0)
        WHERE greatest(r.tat, now()) + make_interval(secs => $2 / 1000.0) <= now() + make_interval(secs => $3 / 1000.0)
       RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM hit) AS granted,
            (SELECT extract(epoch FROM tat - now()) * 1000 + $2 - $3 FROM rate_limits WHERE key = $1) AS wait_ms`,
    [key, step, limit.periodMs],
  );
  const row = rows[0];
  if (row?.granted) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(Number(row?.wait_ms ?? step) / 1000)) };
}
