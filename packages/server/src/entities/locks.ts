import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';

/**
 * Above this many identities a call locks its whole org instead of each identity: every advisory
 * lock takes a slot of PostgreSQL's shared lock table (max_locks_per_transaction x max_connections,
 * a few thousand on a default server, shared with every table lock), and a backfill of a thousand
 * events would otherwise take thousands of them at once, per worker.
 */
export const MOST_IDENTITY_LOCKS = 256;

/** A 64-bit advisory lock key; a collision only makes two unrelated calls wait for each other. */
const lockKey = (parts: string[]): bigint =>
  createHash('sha256').update(JSON.stringify(parts)).digest().readBigInt64BE(0);

/**
 * Serialises this transaction with every other one linking any of `identities` in the org, until
 * it ends. Two levels, so that both kinds of call exclude each other exactly when they share an
 * identity: a call with few identities holds the org's lock shared and each identity's lock; a
 * larger one holds the org's lock alone, exclusively. Identity locks are taken in ascending key
 * order, after the org's, so two calls never wait for each other in a cycle.
 */
export async function lockIdentities(
  client: PoolClient,
  orgId: string,
  identities: { entityType: string; namespace: string; value: string }[],
): Promise<void> {
  const org = lockKey(['entity-links', orgId]).toString();
  const keys = [
    ...new Set(
      identities.map((i) => lockKey(['entity-identity', orgId, i.entityType, i.namespace, i.value])),
    ),
  ].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (keys.length > MOST_IDENTITY_LOCKS) {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [org]);
    return;
  }
  await client.query('SELECT pg_advisory_xact_lock_shared($1::bigint)', [org]);
  // unnest yields the array in order, so the locks are taken in the order sorted above.
  await client.query('SELECT count(pg_advisory_xact_lock(k)) FROM unnest($1::bigint[]) AS k', [
    keys.map(String),
  ]);
}
