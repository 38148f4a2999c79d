import type { AgentConfig } from '@svc/core';
import type { Pool } from 'pg';
import type { OrgRef } from '../http/types.js';

/** A platform as its webhook and its deliveries need it: config still holding secret references. */
export interface PlatformTarget {
  stableId: string;
  type: 'team_chat' | 'messenger';
  config: Record<string, unknown>;
  org: OrgRef;
  agentId: string;
  /** The agent's, read in the same query: a webhook call needs them to queue its message. */
  guardrails: AgentConfig['guardrails'] | null;
}

/**
 * Read on every call, never kept: a config changed by `svc apply` (a `restartsWorker` change) is
 * used from the next webhook or delivery on, and no process holds a secret longer than one call.
 */
export async function platformByStableId(pool: Pool, stableId: string): Promise<PlatformTarget | null> {
  const { rows } = await pool.query<{
    stable_id: string;
    type: PlatformTarget['type'];
    config: Record<string, unknown>;
    org_id: string;
    slug: string;
    agent_id: string;
    guardrails: AgentConfig['guardrails'] | null;
  }>(
    `SELECT p.stable_id, p.type, p.config, p.org_id, o.slug, p.agent_id, a.config->'guardrails' AS guardrails
       FROM platforms p JOIN orgs o ON o.id = p.org_id
       JOIN agents a ON a.org_id = p.org_id AND a.agent_id = p.agent_id
      WHERE p.stable_id = $1`,
    [stableId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    stableId: row.stable_id,
    type: row.type,
    config: row.config,
    org: { id: String(row.org_id), slug: row.slug },
    agentId: row.agent_id,
    guardrails: row.guardrails,
  };
}

/** Telegram unless the config says `flavor = "whatsapp"`. */
export const isWhatsApp = (platform: Pick<PlatformTarget, 'type' | 'config'>) =>
  platform.type === 'messenger' && platform.config.flavor === 'whatsapp';
