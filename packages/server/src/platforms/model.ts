import { findSecretReferences, type Platform, webhookPath } from '@svc/core';
import { iso } from '../http/common.js';
import type { AppOptions } from '../http/types.js';

export interface PlatformRow {
  stable_id: string;
  agent_id: string;
  type: Platform['type'];
  name: string | null;
  config: Platform['config'];
  created_at: Date | string;
  updated_at: Date | string;
}

/** Columns of a platform, as a JSON object (for aggregation under agents) or plain columns. */
export const PLATFORM_COLUMNS = 'stable_id, agent_id, type, name, config, created_at, updated_at';
export const PLATFORM_JSON = `json_build_object(
  'stable_id', p.stable_id, 'agent_id', p.agent_id, 'type', p.type, 'name', p.name, 'config', p.config,
  'created_at', p.created_at, 'updated_at', p.updated_at)`;

/**
 * Config values keep their `$REFERENCES`; the server resolves them from its own environment only
 * when it uses them. Here it only reports which ones it could not resolve.
 */
export function toPlatform(
  row: PlatformRow,
  options: Pick<AppOptions, 'secretEnv' | 'basePath' | 'publicUrl'>,
): Platform {
  const problems = findSecretReferences(row.config, '/config')
    .filter((ref) => !options.secretEnv[ref.variable])
    .map((ref) => ({
      code: 'secret_missing' as const,
      variable: ref.variable,
      path: ref.path,
      message: `environment variable ${ref.variable} is not set on the server`,
    }));
  return {
    stableId: row.stable_id,
    agentId: row.agent_id,
    type: row.type,
    name: row.name,
    config: row.config,
    webhookUrl: `${options.publicUrl ?? ''}${options.basePath}${webhookPath(row.stable_id)}`,
    status: problems.length > 0 ? 'error' : 'ok',
    problems,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
