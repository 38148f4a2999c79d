import type { AgentConfig } from '@svc/core';
import type { Pool } from 'pg';
import { platformVersionSql } from '../messaging/queries.js';
import type { PlatformTarget } from '../platforms/lookup.js';

/**
 * A platform as its webhook needs it, with its org's secrets that its config names, still sealed
 * (as stored), and the version of all of it (`platformVersionSql`).
 */
export interface VersionedPlatform extends PlatformTarget {
  sealed: ReadonlyMap<string, Buffer>;
  version: string;
}

/**
 * The platform as `platformByStableId` reads it (config still holding secret references), with
 * the org secrets it names, sealed, and its version, in one statement: the message insert checks
 * that version, so that a call checked under a platform as it was last read is only taken while
 * the platform, its org and its secrets are still those.
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
    sealed: Record<string, string>;
    version: string;
  }>({
    name: 'svc_webhook_platform',
    text: `SELECT p.stable_id, p.type, p.config, p.org_id, o.slug, p.agent_id, a.config->'guardrails' AS guardrails,
                  ${platformVersionSql('p', 'o')} AS version,
                  (SELECT coalesce(json_object_agg(s.name, encode(s.value, 'base64')), '{}')
                     FROM org_secrets s WHERE s.org_id = p.org_id AND strpos(p.config::text, s.name) > 0) AS sealed
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
    sealed: new Map(Object.entries(row.sealed).map(([name, value]) => [name, Buffer.from(value, 'base64')])),
    version: row.version,
  };
}

const KEPT = 10_000;

/**
 * Platforms as last read, by stable ID, with their secrets as stored (sealed under
 * SVC_ENCRYPTION_KEY): a guess, never trusted alone. A webhook call is checked under its
 * platform's guess, opening the secrets it needs for this call only, and its messages are inserted
 * only while the platform, its org and those secrets are still the version guessed; otherwise the
 * call is checked again under the platform read anew. So a changed secret or config applies from
 * the next call on, as when both were read at each call, for one statement a call instead of three.
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
