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
  if (sessionState) values.push(...sessionSecrets(sessionState));
  return values.filter((v): v is string => typeof v === 'string' && v.length >= 4);
}

/**
 * Every string of a captured browser session is a credential (cookie values, CSRF tokens), except a
 * cookie's own name, domain and path, which would otherwise blank out ordinary words in the log.
 */
const COOKIE_ATTRIBUTES = new Set(['name', 'domain', 'path', 'sameSite', 'url']);

function sessionSecrets(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(sessionSecrets);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => (COOKIE_ATTRIBUTES.has(k) ? [] : sessionSecrets(v)));
  }
  return [value];
}

/** Config without the `env_keys` fields merged into it: what the feed's configSchema describes. */
export function withoutEnvKeys(
  definition: ConnectorDefinition,
  config: Record<string, unknown>,
): Record<string, unknown> {
  const keys = new Set(
    (definition.authSchema?.methods ?? []).flatMap((m) =>
      m.type === 'env_keys' ? m.fields.map((f) => f.key) : [],
    ),
  );
  return Object.fromEntries(Object.entries(config).filter(([key]) => !keys.has(key)));
}
