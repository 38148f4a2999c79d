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

/** What an `oauth` connection takes until svc runs the authorization flow itself: a token got elsewhere. */
export const OAUTH_TOKEN_FIELDS = ['accessToken', 'refreshToken', 'expiresAt', 'scope'];

/**
 * What the connector's auth asks of a new connection: `none` takes nothing; `env_keys` takes each
 * field's value in `credentials` (all of them, unless the method is optional); `oauth` takes a token
 * obtained outside svc (`accessToken`, and optionally `refreshToken`, `expiresAt`, `scope`), handed
 * to the connector as `ctx.credentials`; `interactive` takes nothing here (an auth run obtains
 * them). Browser methods are not connected through this route yet: said so, by name.
 */
export function credentialProblems(
  definition: ConnectorDefinition,
  credentials: Record<string, string> | undefined,
): Details {
  const methods = definition.authSchema?.methods ?? [{ type: 'none' as const }];
  const envKeys = methods.find((m) => m.type === 'env_keys');
  const oauth = methods.some((m) => m.type === 'oauth');
  // A connector that authenticates interactively is connected without credentials: an auth run
  // (POST /connections/:id/auth-runs) obtains them.
  const none = methods.some((m) => m.type === 'none' || m.type === 'interactive');
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
            ? 'the connector connects with OAuth: give the token as credentials.accessToken'
            : 'the connector takes no env_keys values',
      });
    }
  }
  if (envKeys?.type === 'env_keys') {
    const required = envKeys.required !== false && !none;
    const anyGiven = fields.some((key) => given[key] !== undefined);
    if (required || anyGiven) {
      for (const key of fields) {
        if (given[key] === undefined)
          problems.push({ path: `/body/credentials/${key}`, message: 'is required' });
      }
    }
  } else if (oauth && !none) {
    problems.push({
      path: '/body/credentials/accessToken',
      message:
        'is required: the connector connects with OAuth, and svc takes a token obtained outside it (accessToken, and optionally refreshToken, expiresAt, scope)',
    });
  } else if (!none) {
    problems.push({
      path: '/body/connectorKey',
      message: `connects with ${methods.map((m) => m.type).join(' or ')}, which svc does not take through this route yet (none, env_keys and an oauth token only)`,
    });
  }
  return problems;
}

/** The feeds a new connection gets: every one of the definition's, except those users manage. */
export function autoFeeds(definition: ConnectorDefinition): FeedDefinition[] {
  return Object.values(definition.feeds ?? {}).filter((feed) => !feed.userManaged);
}
