import { createHash } from 'node:crypto';
import type { MutationResult } from '@svc/core';
import type { Pool, PoolClient, QueryConfig } from 'pg';

export interface UpsertTable {
  table: string;
  /** Columns of the conflict target, first in the parameter list. */
  keys: string[];
  /** Columns that an upsert may change; the row is untouched when none of them differs. */
  values: string[];
  /** Columns to answer with. */
  returning: string[];
  /** The column set to `now()` when a value changes; default `updated_at`. */
  stamp?: string;
}

export interface UpsertStatements {
  /** Read-only: the row, if it already holds these values. */
  check: QueryConfig;
  /** Inserts, or updates only what differs; answers the row with its `result`. */
  write: QueryConfig;
}

/** Named, so that each pooled connection parses and plans the statement once. */
function prepared(text: string): QueryConfig {
  return { name: `svc_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
}

/**
 * Two statements over the same parameters (the keys, then the values, in the order given).
 * `check` lets a repeat cost one read: no row lock, no transaction id, no WAL, no wait for the disk.
 * `write` then handles every other case, races included: it updates only when a value differs,
 * so `updated_at` stays put on a repeat that slipped past the check.
 */
export function upsertStatements({
  table,
  keys,
  values,
  returning,
  stamp = 'updated_at',
}: UpsertTable): UpsertStatements {
  const columns = [...keys, ...values];
  const params = columns.map((_, i) => `$${i + 1}`);
  const valueParams = params.slice(keys.length);
  const cols = returning.join(', ');
  const match = keys.map((k, i) => `${k} = $${i + 1}`).join(' AND ');
  const check = `
    SELECT ${cols}, 'unchanged' AS result FROM ${table}
     WHERE ${match} AND (${values.join(', ')}) IS NOT DISTINCT FROM (${valueParams.join(', ')})`;
  const write = `
    WITH up AS (
      INSERT INTO ${table} (${columns.join(', ')}) VALUES (${params.join(', ')})
      ON CONFLICT (${keys.join(', ')}) DO UPDATE
         SET ${values.map((v) => `${v} = excluded.${v}`).join(', ')}, ${stamp} = now()
       WHERE (${values.map((v) => `${table}.${v}`).join(', ')}) IS DISTINCT FROM (${values.map((v) => `excluded.${v}`).join(', ')})
      RETURNING ${cols}, (xmax = 0) AS inserted
    )
    SELECT ${cols}, CASE WHEN inserted THEN 'created' ELSE 'updated' END AS result FROM up
    UNION ALL
    SELECT ${cols}, 'unchanged' FROM ${table} WHERE ${match} AND NOT EXISTS (SELECT 1 FROM up)`;
  return { check: prepared(check), write: prepared(write) };
}

export async function upsert<Row>(
  db: Pool | PoolClient,
  statements: UpsertStatements,
  params: unknown[],
): Promise<Row & { result: MutationResult }> {
  const unchanged = await db.query<Row & { result: MutationResult }>({ ...statements.check, values: params });
  if (unchanged.rows[0]) return unchanged.rows[0];
  const { rows } = await db.query<Row & { result: MutationResult }>({ ...statements.write, values: params });
  if (rows[0]) return rows[0];
  // An identical row committed by a concurrent request after the write's snapshot was taken: the
  // write changed nothing and could not see it; a new statement can.
  const again = await db.query<Row & { result: MutationResult }>({ ...statements.check, values: params });
  if (again.rows[0]) return again.rows[0];
  throw new Error(`upsert into a row that changed concurrently; retry the request`);
}
