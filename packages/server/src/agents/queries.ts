import { type AgentConfig, type AgentConfigPatch, SETTING_KEYS } from '@svc/core';
import type { Pool } from 'pg';
import { upsertStatement } from '../db/upsert.js';
import { PLATFORM_JSON, type PlatformRow } from '../platforms/model.js';

export interface AgentRow {
  agent_id: string;
  name: string;
  description: string;
  created_at: Date;
  updated_at: Date;
  config?: Partial<AgentConfig> | null;
  platforms?: PlatformRow[] | null;
}

export const UPSERT_AGENT = upsertStatement({
  table: 'agents',
  keys: ['org_id', 'agent_id'],
  values: ['name', 'description'],
  returning: ['agent_id', 'name', 'description', 'created_at', 'updated_at'],
});

/** Every agent with, on request, its settings and platforms: one statement whatever the org's size. */
export async function listAgents(
  pool: Pool,
  orgId: string,
  include: { config: boolean; platforms: boolean },
  agentId: string | null = null,
): Promise<AgentRow[]> {
  const { rows } = await pool.query<AgentRow>(
    `SELECT a.agent_id, a.name, a.description, a.created_at, a.updated_at,
            CASE WHEN $2 THEN a.config END AS config,
            CASE WHEN $3 THEN COALESCE(
              (SELECT json_agg(${PLATFORM_JSON} ORDER BY p.stable_id)
                 FROM platforms p WHERE p.org_id = a.org_id AND p.agent_id = a.agent_id), '[]') END AS platforms
       FROM agents a
      WHERE a.org_id = $1 AND ($4::text IS NULL OR a.agent_id = $4)
      ORDER BY a.agent_id`,
    [orgId, include.config, include.platforms, agentId],
  );
  return rows;
}

/** All 13 settings, `null` where unset. */
export function fullConfig(stored: Partial<AgentConfig> | null | undefined): AgentConfig {
  return Object.fromEntries(SETTING_KEYS.map((k) => [k, stored?.[k] ?? null])) as AgentConfig;
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
  const { rows } = await pool.query<{
    before: Partial<AgentConfig>;
    after: Partial<AgentConfig>;
    updated_at: Date;
    changed: boolean;
  }>(
    `WITH prev AS (
       SELECT config, config_updated_at FROM agents WHERE org_id = $1 AND agent_id = $2
     ), up AS (
       UPDATE agents a SET config = (a.config || $3::jsonb) - $4::text[], config_updated_at = now()
        WHERE a.org_id = $1 AND a.agent_id = $2 AND ((a.config || $3::jsonb) - $4::text[]) IS DISTINCT FROM a.config
       RETURNING a.config, a.config_updated_at
     )
     SELECT prev.config AS before, COALESCE(up.config, prev.config) AS after,
            COALESCE(up.config_updated_at, prev.config_updated_at) AS updated_at, up.config IS NOT NULL AS changed
       FROM prev LEFT JOIN up ON true`,
    [orgId, agentId, JSON.stringify(set), clear],
  );
  const row = rows[0];
  return row
    ? { before: row.before, after: row.after, updatedAt: row.updated_at, changed: row.changed }
    : null;
}
