/** What the harness needs from a run's inputs besides the inputs themselves. */

import type { ConnectorDefinition } from '../definition/types.js';
import type { SyncCredentials } from '../runtime/types.js';

/** The harness was used wrongly (an unknown feed, config against the schema...): nothing ran. */
export class HarnessError extends Error {
  override name = 'HarnessError';
}

/**
 * Every value a log line must never show: the OAuth tokens, the values of `env_keys` fields marked
 * secret (they arrive merged into config), and the captured browser cookies.
 */
export function credentialValues(
  definition: ConnectorDefinition,
  config: Record<string, unknown>,
  credentials: SyncCredentials | null | undefined,
  sessionState: Record<string, unknown> | null | undefined,
): string[] {
  const values: unknown[] = [credentials?.accessToken, credentials?.refreshToken];
  for (const method of definition.authSchema?.methods ?? []) {
    if (method.type !== 'env_keys') continue;
    for (const field of method.fields) if (field.secret !== false) values.push(config[field.key]);
  }
  if (sessionState) values.push(...leaves(sessionState));
  return values.filter((v): v is string => typeof v === 'string' && v.length >= 4);
}

/** Cookie values and the like, however the session state nests them. */
function leaves(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) =>
      k === 'value' || typeof v === 'object' ? leaves(v) : [],
    );
  }
  return [value];
}
