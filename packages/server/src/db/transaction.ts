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
