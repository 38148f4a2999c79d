import type { AgentConfig } from '@svc/core';
import type { Pool } from 'pg';
import { platformVersionSql } from '../messaging/queries.js';
import type { PlatformTarget } from '../platforms/lookup.js';

/** A platform as its webhook needs it, with the version of its row and its org's it was read at. */
export interface VersionedPlatform extends PlatformTarget {
  version: string;
}

/**
 * The platform as `platformByStableId` reads it (config still holding secret references, never
 * their values), with its version: the message insert checks that version, so that a call checked
 * under a platform as it was last read is only taken while the platform is still that one.
 */
export async function versionedPlatform(pool: Pool, stableId: string): Promise<VersionedPlatform | null> {
  const { rows } = await pool.query<{
    stable_id: string;
    type: PlatformTarget['type'];
    config: Record<string, unknown>;
    org_id: string;
    slug: string;
    agent_id: string;
    guardrails: AgentConfig['guardrails'] | null;
    version: string;
  }>({
    name: 'svc_webhook_platform',
    text: `SELECT p.stable_id, p.type, p.config, p.org_id, o.slug, p.agent_id, a.config->'guardrails' AS guardrails,
                  ${platformVersionSql('p', 'o')} AS version
             FROM platforms p JOIN orgs o ON o.id = p.org_id
             JOIN agents a ON a.org_id = p.org_id AND a.agent_id = p.agent_id
            WHERE p.stable_id = $1`,
    values: [stableId],
  });
  const row = rows[0];
  if (!row) return null;
  return {
    stableId: row.stable_id,
    type: row.type,
    config: row.config,
    org: { id: String(row.org_id), slug: row.slug },
    agentId: row.agent_id,
    guardrails: row.guardrails,
    version: row.version,
  };
}

const KEPT = 10_000;

/**
 * Platforms as last read, by stable ID: a guess, never trusted alone. A webhook call is checked
 * under its platform's guess (its secrets are still resolved at each call, so a changed secret
 * applies at once), and its messages are inserted only if the platform's row is still the version
 * guessed; otherwise the call is checked again under the platform read anew. What is kept holds
 * secret references, never a secret's value.
 */
export function createPlatformHints() {
  const hints = new Map<string, VersionedPlatform>();
  return {
    get: (stableId: string) => hints.get(stableId),
    set(platform: VersionedPlatform) {
      hints.delete(platform.stableId);
      if (hints.size >= KEPT) hints.delete(hints.keys().next().value as string);
      hints.set(platform.stableId, platform);
    },
    delete: (stableId: string) => hints.delete(stableId),
  };
}
