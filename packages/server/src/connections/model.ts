import { type ConnectorDefinition, type FeedDefinition, schemaProblems } from '@svc/connector-sdk';
import type { ProblemDetail } from '../http/problem.js';

type Details = NonNullable<ProblemDetail>;

/** The default time between two syncs of a feed (one hour), when nobody set `syncIntervalMs`. */
export const DEFAULT_SYNC_INTERVAL_MS = 3_600_000;

/** `Issues of {repo}` with the feed's config: a placeholder without a value stays as written. */
export function renderDisplayName(
  template: string | undefined,
  config: Record<string, unknown>,
): string | null {
  if (!template) return null;
  return template.replace(/\{([A-Za-z0-9_.-]+)\}/g, (whole, name: string) => {
    const value = config[name];
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : whole;
  });
}

/**
 * The config a feed's sync runs with, as far as it is known before the run: the connection's
 * options, then the feed's own config over them (runs/scope.ts merges the same way, then adds the
 * env_keys values). A feed's required fields are checked against this, so that a value the
 * connection already has (the repository of a code-host connection) is not asked of every feed.
 */
export const runConfig = (
  connectionConfig: Record<string, unknown>,
  feedConfig: Record<string, unknown>,
) => ({
  ...connectionConfig,
  ...feedConfig,
});

/** Problems of `value` against `schema` as problem details under `path` (`/body/config`). */
export function schemaDetails(
  schema: Record<string, unknown> | undefined,
  value: unknown,
  path: string,
): Details {
  if (!schema) return [];
  return schemaProblems(schema, value).map((line) => {
    const at = line.indexOf(': ');
    const field = at > 0 ? line.slice(0, at) : '';
    return {
      path: field ? `${path}/${field.replaceAll('.', '/')}` : path,
      message: at > 0 ? line.slice(at + 2) : line,
    };
  });
}

/** What an `oauth` connection takes besides the flow svc runs itself: a token obtained elsewhere. */
export const OAUTH_TOKEN_FIELDS = ['accessToken', 'refreshToken', 'expiresAt', 'scope'];

/** The methods a person completes after the connection exists (svc runs the flow). */
const PERSON_METHODS = ['oauth', 'browser', 'interactive'] as const;

/**
 * What the connector's auth asks of a new connection's `credentials`: `none` takes nothing;
 * `env_keys` takes each field's value (all of them, when the method is required and no other
 * method can connect it); `oauth` may take a token obtained outside svc (`accessToken`, and
 * optionally `refreshToken`, `expiresAt`, `scope`). OAuth, browser and interactive methods are
 * otherwise completed after the connection exists (`pendingAuth` says how).
 */
export function credentialProblems(
  definition: ConnectorDefinition,
  credentials: Record<string, string> | undefined,
): Details {
  const methods = definition.authSchema?.methods ?? [{ type: 'none' as const }];
  const envKeys = methods.find((m) => m.type === 'env_keys');
  const oauth = methods.some((m) => m.type === 'oauth');
  const none = methods.some((m) => m.type === 'none');
  const byPerson = methods.some((m) => (PERSON_METHODS as readonly string[]).includes(m.type));
  const problems: Details = [];
  const given = credentials ?? {};
  if (oauth && given.accessToken !== undefined) {
    for (const key of Object.keys(given)) {
      if (!OAUTH_TOKEN_FIELDS.includes(key)) {
        problems.push({
          path: `/body/credentials/${key}`,
          message: `is not a field of an OAuth token (${OAUTH_TOKEN_FIELDS.join(', ')})`,
        });
      }
    }
    return problems;
  }
  const fields = envKeys?.type === 'env_keys' ? envKeys.fields.map((f) => f.key) : [];
  for (const key of Object.keys(given)) {
    if (!fields.includes(key)) {
      problems.push({
        path: `/body/credentials/${key}`,
        message: fields.length
          ? `is not a field of the connector's env_keys (${fields.join(', ')})`
          : oauth
            ? 'the connector connects with OAuth: connect it (POST .../oauth/start), or give a token obtained elsewhere as credentials.accessToken'
            : 'the connector takes no env_keys values',
      });
    }
  }
  if (envKeys?.type === 'env_keys') {
    const required = envKeys.required !== false && !none && !byPerson;
    const anyGiven = fields.some((key) => given[key] !== undefined);
    if (required || anyGiven) {
      for (const key of fields) {
        const field = envKeys.fields.find((f) => f.key === key);
        if (given[key] === undefined && (required || field?.required !== false))
          problems.push({ path: `/body/credentials/${key}`, message: 'is required' });
      }
    }
  }
  return problems;
}

/**
 * Why a connection made without credentials cannot run yet, and what connects it, or null when it
 * can: the connector's required methods that a person completes (OAuth consent, a browser
 * session, an interactive flow), unless `none` or another way is available.
 */
export function pendingAuth(
  definition: ConnectorDefinition,
  connectionId: string,
  hasCredentials: boolean,
): string | null {
  const methods = definition.authSchema?.methods ?? [];
  if (hasCredentials || methods.length === 0 || methods.some((m) => m.type === 'none')) return null;
  const how = connectCommands(definition, connectionId);
  return how ? `not connected yet: connect it with ${how}` : null;
}

/**
 * The commands that connect a connection again through the methods a person completes (the
 * required ones), or null when it has none: "`svc connection connect 7` (OAuth consent)".
 */
export function connectCommands(definition: ConnectorDefinition, connectionId: string): string | null {
  const waiting = (definition.authSchema?.methods ?? []).filter(
    (m) =>
      (PERSON_METHODS as readonly string[]).includes(m.type) && !('required' in m && m.required === false),
  );
  if (waiting.length === 0) return null;
  return waiting
    .map((m) =>
      m.type === 'oauth'
        ? `\`svc connection connect ${connectionId}\` (OAuth consent)`
        : m.type === 'browser'
          ? `\`svc memory browser-auth --connection ${connectionId}\` (a browser session)`
          : `\`svc connection auth ${connectionId}\` (the connector's sign-in)`,
    )
    .join(' or ');
}

/** The feeds a new connection gets: every one of the definition's, except those users manage. */
export function autoFeeds(definition: ConnectorDefinition): FeedDefinition[] {
  return Object.values(definition.feeds ?? {}).filter((feed) => !feed.userManaged);
}
