/** What the harness needs from a run's inputs besides the inputs themselves. */

import { schemaProblems } from '../definition/json-schema.js';
import type {
  ActionDefinition,
  ConnectorDefinition,
  FeedDefinition,
  JsonSchema,
} from '../definition/types.js';
import type { EventEnvelope } from '../events/envelope.js';
import type { LogEntry } from '../logging/index.js';
import type { Checkpoint, SyncCredentials } from '../runtime/types.js';

/** The harness was used wrongly (an unknown feed, config against the schema...): nothing ran. */
export class HarnessError extends Error {
  override name = 'HarnessError';
}

/**
 * The connector's sync threw. The events it emitted and the checkpoints it committed before that
 * are kept, as a server keeps them: the last checkpoint is where the next sync resumes.
 */
export class SyncFailedError extends Error {
  override name = 'SyncFailedError';
  constructor(
    readonly feedKey: string,
    cause: unknown,
    readonly events: EventEnvelope[],
    readonly checkpointUpdates: (Checkpoint | null)[],
    readonly logs: LogEntry[],
  ) {
    // The connector's own words, unchanged: they are what its author and its tests look for.
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }

  /** The last checkpoint committed before the failure; undefined when none was. */
  get lastCheckpoint(): Checkpoint | null | undefined {
    return this.checkpointUpdates.at(-1);
  }
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

/** The feed or action under `key`, or a HarnessError that lists the ones there are. */
export function findByKey(definition: ConnectorDefinition, kind: 'feed', key: string): FeedDefinition;
export function findByKey(definition: ConnectorDefinition, kind: 'action', key: string): ActionDefinition;
export function findByKey(
  definition: ConnectorDefinition,
  kind: 'feed' | 'action',
  key: string,
): FeedDefinition | ActionDefinition {
  const map: Record<string, FeedDefinition | ActionDefinition> =
    (kind === 'feed' ? definition.feeds : definition.actions) ?? {};
  const found = map[key];
  if (found) return found;
  const known = Object.keys(map).join(', ') || 'none';
  throw new HarnessError(`connector "${definition.key}" has no ${kind} "${key}"; its ${kind}s: ${known}`);
}

/** Nothing when there is no schema or `value` conforms; otherwise a HarnessError listing why. */
export function checkAgainst(schema: JsonSchema | undefined, value: unknown, what: string): void {
  if (!schema) return;
  const problems = schemaProblems(schema, value);
  if (problems.length > 0) throw new HarnessError(`${what}:\n  ${problems.join('\n  ')}`);
}
