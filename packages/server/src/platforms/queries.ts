import type { MutationResult, PlatformPut } from '@svc/core';
import type { Pool } from 'pg';
import { ProblemError } from '../http/problem.js';
import { PLATFORM_COLUMNS, type PlatformRow } from './model.js';

export interface PutOutcome {
  result: MutationResult;
  row: PlatformRow;
  restartsWorker: boolean;
}

/**
 * In one transaction, with the agent row locked so that two PUTs on one agent cannot both pass the
 * naming rule: checks ownership of the stable ID and the "several of a type need names" rule, then
 * writes only what differs. The live worker restarts when `type` or `config` changed.
 */
export async function putPlatform(
  pool: Pool,
  orgId: string,
  agentId: string,
  stableId: string,
  body: PlatformPut,
): Promise<PutOutcome | 'agent_missing'> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const agent = await client.query('SELECT 1 FROM agents WHERE org_id = $1 AND agent_id = $2 FOR UPDATE', [
      orgId,
      agentId,
    ]);
    if (agent.rowCount === 0) {
      await client.query('ROLLBACK');
      return 'agent_missing';
    }
    const existing = (
      await client.query<PlatformRow & { org_id: string }>(
        `SELECT org_id, ${PLATFORM_COLUMNS} FROM platforms WHERE stable_id = $1 FOR UPDATE`,
        [stableId],
      )
    ).rows[0];
    if (existing && (String(existing.org_id) !== orgId || existing.agent_id !== agentId)) {
      throw new ProblemError(
        409,
        'stable_id_taken',
        `the stable ID "${stableId}" is used by another agent on this deployment`,
        [{ path: '/params/stableId', message: 'taken' }],
      );
    }
    const siblings = (
      await client.query<{ stable_id: string; name: string | null }>(
        'SELECT stable_id, name FROM platforms WHERE org_id = $1 AND agent_id = $2 AND type = $3 AND stable_id <> $4',
        [orgId, agentId, body.type, stableId],
      )
    ).rows;
    const unnamed = siblings.filter((s) => s.name === null).map((s) => s.stable_id);
    if (siblings.length > 0 && (!body.name || unnamed.length > 0)) {
      throw new ProblemError(
        409,
        'platform_name_required',
        `agent "${agentId}" has ${siblings.length + 1} platforms of type "${body.type}"; each needs a name` +
          (unnamed.length > 0 ? ` (unnamed: ${unnamed.join(', ')})` : ''),
        [{ path: '/body/name', message: 'required when an agent has several platforms of this type' }],
      );
    }
    const config = JSON.stringify(body.config);
    const name = body.name ?? null;
    let result: MutationResult = 'unchanged';
    let row = existing as PlatformRow | undefined;
    let restartsWorker = false;
    if (!existing) {
      row = (
        await client.query<PlatformRow>(
          `INSERT INTO platforms (stable_id, org_id, agent_id, type, name, config) VALUES ($1, $2, $3, $4, $5, $6)
           RETURNING ${PLATFORM_COLUMNS}`,
          [stableId, orgId, agentId, body.type, name, config],
        )
      ).rows[0];
      result = 'created';
    } else {
      const updated = await client.query<PlatformRow & { restarts: boolean }>(
        `UPDATE platforms p SET type = $2, name = $3, config = $4::jsonb, updated_at = now()
          WHERE stable_id = $1 AND (p.type, p.name, p.config) IS DISTINCT FROM ($2, $3, $4::jsonb)
          RETURNING ${PLATFORM_COLUMNS}, ($2 <> $5 OR $4::jsonb <> $6::jsonb) AS restarts`,
        [stableId, body.type, name, config, existing.type, JSON.stringify(existing.config)],
      );
      if (updated.rows[0]) {
        row = updated.rows[0];
        restartsWorker = updated.rows[0].restarts;
        result = 'updated';
      }
    }
    await client.query('COMMIT');
    return { result, row: row as PlatformRow, restartsWorker };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    if ((error as { code?: string }).code === '23505') {
      throw new ProblemError(
        409,
        'stable_id_taken',
        `the stable ID "${stableId}" is used by another agent on this deployment`,
      );
    }
    throw error;
  } finally {
    client.release();
  }
}
