import { findSecretReferences, type MutationResult, type Platform, type PlatformPut } from '@svc/core';
import type { Pool } from 'pg';
import { rollback, transaction } from '../db/transaction.js';
import { ProblemError } from '../http/problem.js';
import { rawJson } from './model.js';

interface ExistingRow {
  org_id: string;
  agent_id: string;
  type: string;
  config: unknown;
}

export interface PutOutcome {
  result: MutationResult;
  platform: Platform;
  restartsWorker: boolean;
}

const taken = (stableId: string) =>
  new ProblemError(
    409,
    'stable_id_taken',
    `the stable ID "${stableId}" is used by another agent on this deployment`,
    [{ path: '/params/stableId', message: 'taken' }],
  );

/**
 * In one transaction, with the agent row locked so that two PUTs on one agent cannot both pass the
 * naming rule: checks ownership of the stable ID and the "several of a type need names" rule, then
 * writes only what differs. The live worker restarts when `type` or `config` changed.
 */
export async function putPlatform(
  pool: Pool,
  target: { orgId: string; agentId: string; stableId: string },
  body: PlatformPut,
  context: { webhookBase: string; setVars: string[] },
): Promise<PutOutcome | 'agent_missing'> {
  const { orgId, agentId, stableId } = target;
  try {
    return await transaction(pool, async (client) => {
      const agent = await client.query(
        'SELECT 1 FROM agents WHERE org_id = $1 AND agent_id = $2 FOR UPDATE',
        [orgId, agentId],
      );
      if (agent.rowCount === 0) {
        return rollback('agent_missing');
      }
      const existing = (
        await client.query<ExistingRow>(
          'SELECT org_id, agent_id, type, config FROM platforms WHERE stable_id = $1 FOR UPDATE',
          [stableId],
        )
      ).rows[0];
      if (existing && (String(existing.org_id) !== orgId || existing.agent_id !== agentId))
        throw taken(stableId);
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
      const values = [
        stableId,
        body.type,
        body.name ?? null,
        JSON.stringify(body.config),
        JSON.stringify(findSecretReferences(body.config, '/config')),
      ];
      let result: MutationResult = 'unchanged';
      let restartsWorker = false;
      if (!existing) {
        await client.query(
          `INSERT INTO platforms (stable_id, type, name, config, secret_refs, org_id, agent_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [...values, orgId, agentId],
        );
        result = 'created';
      } else {
        const updated = await client.query<{ restarts: boolean }>(
          `UPDATE platforms p SET type = $2, name = $3, config = $4::jsonb, secret_refs = $5::jsonb, updated_at = now()
            WHERE stable_id = $1 AND (p.type, p.name, p.config) IS DISTINCT FROM ($2, $3, $4::jsonb)
            RETURNING ($2 <> $6 OR $4::jsonb <> $7::jsonb) AS restarts`,
          [...values, existing.type, JSON.stringify(existing.config)],
        );
        if (updated.rows[0]) {
          result = 'updated';
          restartsWorker = updated.rows[0].restarts;
        }
      }
      const answer = await client.query<{ platform: Platform }>(
        'SELECT svc_platform_json(p, $2, $3) AS platform FROM platforms p WHERE stable_id = $1',
        [stableId, context.webhookBase, context.setVars],
      );
      return { result, platform: answer.rows[0]?.platform as Platform, restartsWorker };
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw taken(stableId);
    throw error;
  }
}

/** The platforms of an agent as the JSON text of the answer's list, or null when there is no agent. */
export async function listPlatformsJson(
  pool: Pool,
  orgId: string,
  agentId: string,
  context: { webhookBase: string; setVars: string[] },
): Promise<string | null> {
  const { rows } = await pool.query<{ agent_exists: boolean; platforms: string }>({
    text: `SELECT EXISTS (SELECT 1 FROM agents WHERE org_id = $1 AND agent_id = $2) AS agent_exists,
                  COALESCE((SELECT json_agg(svc_platform_json(p, $3, $4) ORDER BY p.stable_id)
                              FROM platforms p WHERE p.org_id = $1 AND p.agent_id = $2), '[]') AS platforms`,
    values: [orgId, agentId, context.webhookBase, context.setVars],
    types: rawJson,
  });
  return rows[0]?.agent_exists ? (rows[0].platforms as string) : null;
}
