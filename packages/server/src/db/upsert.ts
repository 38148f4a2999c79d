import type { MutationResult } from '@svc/core';
import type { Pool, PoolClient } from 'pg';

export interface UpsertTable {
  table: string;
  /** Columns of the conflict target, first in the parameter list. */
  keys: string[];
  /** Columns that an upsert may change; the row is untouched when none of them differs. */
  values: string[];
  /** Columns to answer with. */
  returning: string[];
}

/**
 * One statement that inserts, updates only when a value differs (so `updated_at` and the row's
 * version stay put on a repeat), and answers the row with `result`: created, updated or unchanged.
 * Parameters: the keys, then the values, in the order given.
 */
export function upsertStatement({ table, keys, values, returning }: UpsertTable): string {
  const columns = [...keys, ...values];
  const params = columns.map((_, i) => `$${i + 1}`);
  const cols = returning.join(', ');
  const match = keys.map((k, i) => `${k} = $${i + 1}`).join(' AND ');
  return `
    WITH up AS (
      INSERT INTO ${table} (${columns.join(', ')}) VALUES (${params.join(', ')})
      ON CONFLICT (${keys.join(', ')}) DO UPDATE
         SET ${values.map((v) => `${v} = excluded.${v}`).join(', ')}, updated_at = now()
       WHERE (${values.map((v) => `${table}.${v}`).join(', ')}) IS DISTINCT FROM (${values.map((v) => `excluded.${v}`).join(', ')})
      RETURNING ${cols}, (xmax = 0) AS inserted
    )
    SELECT ${cols}, CASE WHEN inserted THEN 'created' ELSE 'updated' END AS result FROM up
    UNION ALL
    SELECT ${cols}, 'unchanged' FROM ${table} WHERE ${match} AND NOT EXISTS (SELECT 1 FROM up)`;
}

export async function upsert<Row>(
  db: Pool | PoolClient,
  statement: string,
  params: unknown[],
): Promise<Row & { result: MutationResult }> {
  const { rows } = await db.query<Row & { result: MutationResult }>(statement, params);
  return rows[0] as Row & { result: MutationResult };
}
