import { basename } from 'node:path';
import type { ApplyManifestPut } from '@svc/core';
import type { DesiredState } from '../plan/types.js';
import { type ApiClient, ApiError } from '../session/client.js';
import { describeFailure } from './execute.js';

/**
 * What the project declares, as ids only (never a value: a secret cannot be among them), for
 * `PUT /api/:org/apply-manifest`. The whole project, whatever `--only` restricted the plan to:
 * what it declares nowhere is drift, whichever part this run wrote.
 */
export function projectManifest(desired: DesiredState, dir: string): ApplyManifestPut {
  return {
    project: projectLabel(dir),
    agents: desired.agents.map((a) => a.agentId),
    platforms: desired.agents.flatMap((a) => a.platforms.map((p) => p.stableId)),
    entityTypes: desired.entityTypes.map((t) => t.slug),
    relationshipTypes: desired.relationshipTypes.map((t) => t.slug),
    watchers: desired.watchers.map((w) => w.slug),
  };
}

/** The project folder's name as the server takes it (no control characters, at most 200); null if none. */
export function projectLabel(dir: string): string | null {
  let label = basename(dir).replace(/\p{Cc}/gu, '');
  while (label.length > 200) label = Array.from(label).slice(0, -1).join('');
  return label === '' ? null : label;
}

/**
 * Records the manifest once an apply succeeded. Its failure does not undo the apply, whose changes
 * are made: it is a warning, and the exit code stays 0.
 */
export async function recordManifest(
  client: ApiClient,
  org: string,
  manifest: ApplyManifestPut,
  warn: (line: string) => void,
): Promise<void> {
  try {
    await client.request('PUT', `/api/${org}/apply-manifest`, manifest);
  } catch (error) {
    const why =
      error instanceof ApiError && error.problem?.code === 'route_not_found'
        ? 'this server does not keep apply manifests (it is older than this svc)'
        : describeFailure(error as Error);
    warn(
      `svc apply: warning: the changes were applied, but recording what the project declares failed: ${why}`,
    );
    warn(
      '  until it is recorded, the console cannot tell what svc apply manages from drift; run svc apply again to record it',
    );
  }
}
