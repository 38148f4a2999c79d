import type pg from 'pg';

type Print = Record<string, string>;

/** SQL summing up `tables`: each one's row count and a hash of its rows, in one query. */
function summary(tables: string[]): string {
  // Authenticating with a token records its use: that is not storing anything the request asked for.
  const row = `(to_jsonb(t) - 'last_used_at')::text`;
  return tables
    .map((name) => {
      const literal = `'${name.replace(/'/g, "''")}'`;
      const table = `public."${name.replace(/"/g, '""')}"`;
      return `SELECT ${literal} AS name, count(*) || ':' || md5(coalesce(string_agg(${row}, ',' ORDER BY ${row}), '')) AS print FROM ${table} t`;
    })
    .join('\nUNION ALL\n');
}

/**
 * What every public table holds, summed up, so that a change to any row (an insert, an update, a
 * delete) shows. Hashing every table after every request would cost most of the walk's time: while
 * PostgreSQL's WAL has not moved, no logged table can have changed, and only the unlogged ones
 * (which write no WAL) are read again.
 */
export async function fingerprinter(pool: pg.Pool): Promise<() => Promise<Print>> {
  const { rows } = await pool.query<{ name: string; unlogged: boolean }>(
    `SELECT c.relname AS name, c.relpersistence = 'u' AS unlogged
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
  );
  const all = summary(rows.map((r) => r.name));
  const unlogged = summary(rows.filter((r) => r.unlogged).map((r) => r.name));
  const read = async (sql: string): Promise<Print> =>
    sql ? Object.fromEntries((await pool.query(sql)).rows.map((r) => [r.name, r.print])) : {};
  let last: { lsn: string; print: Print } | null = null;
  return async () => {
    // Read before the tables: a write that lands meanwhile moves the WAL past it, and is seen next time.
    const { rows: wal } = await pool.query<{ lsn: string }>(
      'SELECT pg_current_wal_insert_lsn()::text AS lsn',
    );
    const lsn = wal[0]!.lsn;
    if (last?.lsn === lsn) return { ...last.print, ...(await read(unlogged)) };
    last = { lsn, print: await read(all) };
    return last.print;
  };
}
