/**
 * Applying a connection's credentials, a flat `Record<string, string>`, to a request as the
 * operation's security says. Field names are matched ignoring case, `-` and `_` (`API_KEY`,
 * `api_key` and `apiKey` are one name), so `env_keys` fields need no exact spelling:
 *
 * - http `bearer`, `oauth2`, `openIdConnect`: the field named like the scheme, else `access_token`,
 *   else `token`; sent as `Authorization: Bearer <value>`.
 * - `apiKey` (header or query): the field named like the scheme, else like its header or query
 *   parameter (`X-API-Key`), else `api_key`.
 * - http `basic`: `username` and `password`.
 * - `apiKey` in a cookie and `mutualTLS`: not supported.
 */

import type { OpenApiSecurityScheme } from './types.js';

export type Credentials = Record<string, string>;

export interface AppliedCredentials {
  headers: Record<string, string>;
  query: Record<string, string>;
  /** Every value sent, as sent, so that none is echoed back in a result or an error. */
  secrets: string[];
}

const normal = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

function field(credentials: Credentials, ...names: (string | undefined)[]): string | undefined {
  for (const name of names) {
    if (!name) continue;
    // Own string fields only: a scheme the description names `constructor` must not find Object's.
    const exact = Object.hasOwn(credentials, name) ? credentials[name] : undefined;
    if (typeof exact === 'string' && exact) return exact;
    const match = Object.entries(credentials).find(
      ([k, v]) => typeof v === 'string' && v && normal(k) === normal(name),
    );
    if (match) return match[1];
  }
  return undefined;
}

/** The request parts of one scheme, or why the credentials cannot satisfy it. */
function applyScheme(scheme: OpenApiSecurityScheme, credentials: Credentials): AppliedCredentials | string {
  const bearer =
    scheme.type === 'oauth2' ||
    scheme.type === 'openIdConnect' ||
    (scheme.type === 'http' && scheme.scheme === 'bearer');
  if (bearer) {
    const token = field(credentials, scheme.name, 'access_token', 'token');
    if (!token) return `${scheme.name} (bearer) needs a credential "access_token" or "token"`;
    return { headers: { authorization: `Bearer ${token}` }, query: {}, secrets: [token] };
  }
  if (scheme.type === 'http' && scheme.scheme === 'basic') {
    const username = field(credentials, 'username');
    const password = field(credentials, 'password');
    if (username === undefined || password === undefined) {
      return `${scheme.name} (basic) needs credentials "username" and "password"`;
    }
    const encoded = Buffer.from(`${username}:${password}`).toString('base64');
    return { headers: { authorization: `Basic ${encoded}` }, query: {}, secrets: [password, encoded] };
  }
  if (scheme.type === 'apiKey' && (scheme.in === 'header' || scheme.in === 'query') && scheme.parameterName) {
    const key = field(credentials, scheme.name, scheme.parameterName, 'api_key');
    if (!key) return `${scheme.name} (API key) needs a credential "${scheme.name}" or "api_key"`;
    const part = { [scheme.parameterName]: key };
    return scheme.in === 'header'
      ? { headers: part, query: {}, secrets: [key] }
      : { headers: {}, query: part, secrets: [key] };
  }
  const kind =
    scheme.type === 'apiKey'
      ? `API keys in ${scheme.in ?? 'an unknown place'}`
      : `${scheme.type}${scheme.scheme ? ` ${scheme.scheme}` : ''}`;
  return `${scheme.name}: ${kind} is not supported`;
}

/**
 * The first alternative of `security` whose every scheme the credentials satisfy. An error
 * message, naming what is missing but no value, when none is.
 */
export function applyCredentials(
  security: OpenApiSecurityScheme[][],
  credentials: Credentials,
): AppliedCredentials | { error: string } {
  if (security.length === 0) return { headers: {}, query: {}, secrets: [] };
  const reasons: string[] = [];
  // Optional authentication (`{}`) is the last resort: a credential the connection has is sent.
  const ordered = [...security].sort((a, b) => Number(a.length === 0) - Number(b.length === 0));
  for (const alternative of ordered) {
    const applied: AppliedCredentials = { headers: {}, query: {}, secrets: [] };
    const failed = alternative
      .map((scheme) => applyScheme(scheme, credentials))
      .find((part) => {
        if (typeof part === 'string') return true;
        Object.assign(applied.headers, part.headers);
        Object.assign(applied.query, part.query);
        applied.secrets.push(...part.secrets);
        return false;
      });
    if (failed === undefined) return applied;
    reasons.push(failed as string);
  }
  return {
    error: `the connection's credentials do not fit the operation's security: ${reasons.join('; or ')}`,
  };
}
