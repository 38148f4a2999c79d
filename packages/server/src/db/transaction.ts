import type { Pool, PoolClient } from 'pg';

const ROLLBACK = Symbol('rollback');

/** What `work` returns to end its transaction without committing anything, answering `value`. */
export interface RolledBack<T> {
  [ROLLBACK]: T;
}

export const rollback = <T>(value: T): RolledBack<T> => ({ [ROLLBACK]: value });

const rolledBack = <T, R>(outcome: T | RolledBack<R>): outcome is RolledBack<R> =>
  typeof outcome === 'object' && outcome !== null && ROLLBACK in outcome;

/**
 * Runs `work` in a transaction on a connection of its own: committed when it returns, rolled back
 * when it throws or returns `rollback(value)`. The connection goes back to the pool either way.
 */
export async function transaction<T, R = never>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T | RolledBack<R>>,
): Promise<T | R> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const outcome = await work(client);
    if (rolledBack(outcome)) {
      await client.query('ROLLBACK');
      return outcome[ROLLBACK];
    }
    await client.query('COMMIT');
    return outcome;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** A row a worker holds under a lease: where it is, the state it holds it in, and its fencing token. */
export interface FencedRow {
  table: 'messages' | 'runs' | 'outbox';
  id: string;
  /** `running` for turns and runs, `sending` for deliveries. */
  status: 'running' | 'sending';
  leaseToken: number;
}

/**
 * Runs `work` in a transaction that holds `row`, and only while its lease is this worker's: a
 * worker whose lease lapsed (and whose work another worker may now hold) writes nothing, and gets
 * what `lost` answers (or throws) instead.
 */
export async function whileFenced<T, L>(
  pool: Pool,
  row: FencedRow,
  work: (client: PoolClient) => Promise<T>,
  lost: () => L,
): Promise<T | L> {
  return transaction(pool, async (client) => {
    const held = await client.query(
      `SELECT 1 FROM ${row.table} WHERE id = $1 AND lease_token = $2 AND status = $3 FOR UPDATE`,
      [row.id, row.leaseToken, row.status],
    );
    if (held.rowCount !== 1) return rollback(lost());
    return work(client);
  });
}
