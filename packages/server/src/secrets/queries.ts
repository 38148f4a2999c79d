import { timingSafeEqual } from 'node:crypto';
import type { MutationResult } from '@svc/core';
import type { Pool } from 'pg';
import { transaction } from '../db/transaction.js';
import { seal, unseal } from './cipher.js';
import { secretContext } from './resolve.js';

export interface SecretRow {
  name: string;
  created_at: Date;
  updated_at: Date;
}

/** Same bytes, compared without leaking where they differ. */
function sameValue(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Stores `value` sealed under `key` for (org, name). The row is locked first, so that two PUTs of
 * one name compare against what the other wrote; the same value again writes nothing.
 */
export async function putSecret(
  pool: Pool,
  key: Buffer,
  orgId: string,
  name: string,
  value: string,
): Promise<{ result: MutationResult; row: SecretRow }> {
  const context = secretContext(orgId, name);
  return transaction(pool, async (client) => {
    const current = (
      await client.query<SecretRow & { value: Buffer }>(
        'SELECT name, value, created_at, updated_at FROM org_secrets WHERE org_id = $1 AND name = $2 FOR UPDATE',
        [orgId, name],
      )
    ).rows[0];
    if (current && sameValue(unseal(key, current.value, context), value)) {
      return { result: 'unchanged', row: current };
    }
    const { rows } = await client.query<SecretRow & { created: boolean }>(
      `INSERT INTO org_secrets (org_id, name, value) VALUES ($1, $2, $3)
       ON CONFLICT (org_id, name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
       RETURNING name, created_at, updated_at, (xmax = 0) AS created`,
      [orgId, name, seal(key, value, context)],
    );
    const row = rows[0] as SecretRow & { created: boolean };
    return { result: row.created ? 'created' : 'updated', row };
  });
}

export async function listSecrets(pool: Pool, orgId: string): Promise<SecretRow[]> {
  const { rows } = await pool.query<SecretRow>(
    'SELECT name, created_at, updated_at FROM org_secrets WHERE org_id = $1 ORDER BY name',
    [orgId],
  );
  return rows;
}

/** False when the org has no such secret. */
export async function deleteSecret(pool: Pool, orgId: string, name: string): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM org_secrets WHERE org_id = $1 AND name = $2', [
    orgId,
    name,
  ]);
  return (rowCount ?? 0) > 0;
}
