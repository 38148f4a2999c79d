import type { AgentConfig, AgentConfigPatch } from '@svc/core';
import type { Pool } from 'pg';
import { rollback, transaction } from '../db/transaction.js';
import { upsertStatements } from '../db/upsert.js';
import { rawJson } from '../platforms/model.js';

export interface AgentRow {
  agent_id: string;
  name: string;
  description: string;
  providers: { key: string; secret_ref: string }[];
  created_at: Date;
  updated_at: Date;
}

export const UPSERT_AGENT = upsertStatements({
  table: 'agents',
  keys: ['org_id', 'agent_id'],
  values: ['name', 'description', 'providers'],
  returning: ['agent_id', 'name', 'description', 'providers', 'created_at', 'updated_at'],
});

/** The SQL of `listAgentsJson`: parameters org, with config, with platforms, agentId, webhook base, set vars. */
export const LIST_AGENTS_JSON = `
  SELECT json_build_object('agentId', a.agent_id, 'name', a.name, 'description', a.description,
                           'providers', svc_providers_json(a.providers, $6),
                           'createdAt', svc_iso(a.created_at), 'updatedAt', svc_iso(a.updated_at)) AS core,
         CASE WHEN $2 THEN svc_config_json(a.config) END AS config,
         CASE WHEN $3 THEN COALESCE(
           (SELECT json_agg(svc_platform_json(p, $5, $6) ORDER BY p.stable_id)
              FROM platforms p WHERE p.org_id = a.org_id AND p.agent_id = a.agent_id), '[]') END AS platforms
    FROM agents a
   WHERE a.org_id = $1 AND ($4::text IS NULL OR a.agent_id = $4)
   ORDER BY a.agent_id`;

/**
 * Every agent (or one) as the JSON text of its answer, built by PostgreSQL in one statement
 * whatever the org's size; `config` and `platforms` are spliced in only when asked for.
 */
export async function listAgentsJson(
  pool: Pool,
  orgId: string,
  include: { config: boolean; platforms: boolean },
  context: { webhookBase: string; setVars: string[] },
  agentId: string | null = null,
): Promise<string[]> {
  const { rows } = await pool.query<{ core: string; config: string | null; platforms: string | null }>({
    text: LIST_AGENTS_JSON,
    values: [orgId, include.config, include.platforms, agentId, context.webhookBase, context.setVars],
    types: rawJson,
  });
  return rows.map(
    (row) =>
      `${row.core.slice(0, -1)}${row.config === null ? '' : `, "config" : ${row.config}`}` +
      `${row.platforms === null ? '' : `, "platforms" : ${row.platforms}`}}`,
  );
}

export interface ConfigPatchOutcome {
  before: Partial<AgentConfig>;
  after: Partial<AgentConfig>;
  updatedAt: Date;
  changed: boolean;
}

/**
 * Keys with a value replace the setting; keys with `null` remove it. The row is written only when
 * the merged object differs (jsonb equality ignores key order), so a repeat leaves it untouched.
 * The row is locked first, so that `before` is what this change replaced, not what a concurrent
 * writer's change replaced.
 */
export async function patchConfig(
  pool: Pool,
  orgId: string,
  agentId: string,
  patch: AgentConfigPatch,
): Promise<ConfigPatchOutcome | null> {
  const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== null && v !== undefined));
  const clear = Object.entries(patch)
    .filter(([, v]) => v === null)
    .map(([k]) => k);
  return transaction(pool, async (client) => {
    const current = await client.query<{ config: Partial<AgentConfig>; config_updated_at: Date }>(
      'SELECT config, config_updated_at FROM agents WHERE org_id = $1 AND agent_id = $2 FOR UPDATE',
      [orgId, agentId],
    );
    const before = current.rows[0];
    if (!before) {
      return rollback(null);
    }
    const updated = await client.query<{ config: Partial<AgentConfig>; config_updated_at: Date }>(
      `UPDATE agents a SET config = (a.config || $3::jsonb) - $4::text[], config_updated_at = now()
        WHERE a.org_id = $1 AND a.agent_id = $2 AND ((a.config || $3::jsonb) - $4::text[]) IS DISTINCT FROM a.config
       RETURNING a.config, a.config_updated_at`,
      [orgId, agentId, JSON.stringify(set), clear],
    );
    const after = updated.rows[0] ?? before;
    return {
      before: before.config,
      after: after.config,
      updatedAt: after.config_updated_at,
      changed: !!updated.rows[0],
    };
  });
}
