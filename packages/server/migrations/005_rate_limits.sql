-- Request budgets (GCRA): one row per key, holding the theoretical arrival time of the next
-- request. UNLOGGED: a crash forgets the budgets, which only lets a client start afresh.
CREATE UNLOGGED TABLE rate_limits (
  key text PRIMARY KEY,
  tat timestamptz NOT NULL
);
