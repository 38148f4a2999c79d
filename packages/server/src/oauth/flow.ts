/**
 * OAuth 2 authorization code grant (RFC 6749) with PKCE (RFC 7636), as the connector's `oauth`
 * method describes it: the authorization URL, the code exchange, the refresh and the userinfo call.
 * Every call goes through the egress client (the endpoints are URLs an org writes). Hand-written
 * rather than through a client library because providers bend the protocol in ways a strict one
 * refuses: GitHub answers a failed exchange with 200 and an `error` field, Slack's `token_type` is
 * `bot`, some answer form-encoded bodies, comma-separated scopes, or `expires_in` as a string.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ConnectorDefinition, OAuthAuthMethod } from '@svc/connector-sdk';
import { readCapped } from '../egress/read.js';

/** The token svc keeps for an OAuth connection (sealed), which runs get as `SyncCredentials`. */
export interface OAuthToken {
  accessToken: string;
  refreshToken?: string | null;
  expiresAt?: string | null;
  scope?: string | null;
  tokenType?: string | null;
  /** When the provider answered it: with `expiresAt`, its lifetime, which sets when it is renewed. */
  obtainedAt?: string | null;
}

/** The provider refused (`error` is its RFC 6749 code: `invalid_grant`, `access_denied`...). */
export class OAuthError extends Error {
  override name = 'OAuthError';
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

export function oauthMethodOf(definition: ConnectorDefinition): OAuthAuthMethod | null {
  const method = definition.authSchema?.methods.find((m) => m.type === 'oauth');
  return method?.type === 'oauth' ? method : null;
}

/** `GitHub` -> `GITHUB`, `google-workspace` -> `GOOGLE_WORKSPACE`: the default secret names' stem. */
export const providerSecretStem = (provider: string) => provider.toUpperCase().replace(/[^A-Z0-9]/g, '_');

/** The org secrets that hold the OAuth client's id and secret. */
export function clientSecretNames(method: OAuthAuthMethod): { id: string; secret: string } {
  const stem = providerSecretStem(method.provider);
  return {
    id: method.clientIdKey ?? `${stem}_CLIENT_ID`,
    secret: method.clientSecretKey ?? `${stem}_CLIENT_SECRET`,
  };
}

/**
 * The scopes to ask for: the method's required ones, every feed's, and the optional ones the
 * person asked for (`extra`), each once, in that order.
 */
export function scopesToRequest(
  definition: ConnectorDefinition,
  method: OAuthAuthMethod,
  extra: string[] = [],
): string[] {
  const feeds = Object.values(definition.feeds ?? {}).flatMap((feed) => feed.requiredScopes ?? []);
  return [...new Set([...method.requiredScopes, ...feeds, ...extra])];
}

/** The scopes a person may add to a request: the optional ones and any feed's. */
export function askableScopes(definition: ConnectorDefinition, method: OAuthAuthMethod): Set<string> {
  return new Set([
    ...(method.optionalScopes ?? []),
    ...method.requiredScopes,
    ...Object.values(definition.feeds ?? {}).flatMap((feed) => feed.requiredScopes ?? []),
  ]);
}

/** A random nonce (the `state`, the PKCE verifier): 32 bytes, base64url. */
export const nonce = () => randomBytes(32).toString('base64url');

export const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The S256 code challenge of a PKCE verifier. */
export const codeChallenge = (verifier: string) => sha256(verifier).toString('base64url');

export function authorizationUrl(
  method: OAuthAuthMethod,
  input: { clientId: string; redirectUri: string; scopes: string[]; state: string; verifier: string | null },
): string {
  if (!method.authorizationUrl) throw new Error('the oauth method names no authorizationUrl');
  const url = new URL(method.authorizationUrl);
  // The connector's own parameters first (access_type=offline, prompt=consent...): ours win.
  for (const [name, value] of Object.entries(method.authParams ?? {})) url.searchParams.set(name, value);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', input.clientId);
  url.searchParams.set('redirect_uri', input.redirectUri);
  if (input.scopes.length > 0) url.searchParams.set('scope', input.scopes.join(' '));
  url.searchParams.set('state', input.state);
  if (input.verifier) {
    url.searchParams.set('code_challenge', codeChallenge(input.verifier));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.toString();
}

export interface OAuthClient {
  clientId: string;
  /** Null for a public client (`tokenEndpointAuthMethod: none`). */
  clientSecret: string | null;
}

type Fetch = typeof globalThis.fetch;

/** The code exchange: the token for the `code` the provider redirected with. */
export function exchangeCode(
  fetch: Fetch,
  method: OAuthAuthMethod,
  client: OAuthClient,
  input: { code: string; redirectUri: string; verifier: string | null },
  now = Date.now(),
): Promise<OAuthToken> {
  return tokenCall(
    fetch,
    method,
    client,
    {
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.redirectUri,
      ...(input.verifier ? { code_verifier: input.verifier } : {}),
    },
    null,
    now,
  );
}

/** A refresh. A provider that rotates refresh tokens answers a new one; else the old one is kept. */
export function refreshToken(
  fetch: Fetch,
  method: OAuthAuthMethod,
  client: OAuthClient,
  current: OAuthToken,
  now = Date.now(),
): Promise<OAuthToken> {
  if (!current.refreshToken) {
    return Promise.reject(new OAuthError('invalid_grant', 'the token has no refresh token'));
  }
  return tokenCall(
    fetch,
    method,
    client,
    { grant_type: 'refresh_token', refresh_token: current.refreshToken },
    current,
    now,
  );
}

async function tokenCall(
  fetch: Fetch,
  method: OAuthAuthMethod,
  client: OAuthClient,
  params: Record<string, string>,
  previous: OAuthToken | null,
  now: number,
): Promise<OAuthToken> {
  if (!method.tokenUrl) throw new Error('the oauth method names no tokenUrl');
  const body = new URLSearchParams(params);
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
  };
  const auth = method.tokenEndpointAuthMethod ?? 'client_secret_post';
  if (auth === 'client_secret_basic') {
    // RFC 6749 2.3.1: each part form-encoded before the base64.
    const encode = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');
    headers.authorization = `Basic ${Buffer.from(
      `${encode(client.clientId)}:${encode(client.clientSecret ?? '')}`,
    ).toString('base64')}`;
  } else {
    body.set('client_id', client.clientId);
    if (auth === 'client_secret_post' && client.clientSecret) body.set('client_secret', client.clientSecret);
  }
  const response = await fetch(method.tokenUrl, {
    method: 'POST',
    headers,
    body: body.toString(),
    redirect: 'error',
    signal: AbortSignal.timeout(15_000),
  });
  const text = await readCappedOr(response, MAX_ANSWER_BYTES, 'the token endpoint');
  const answer = parseBody(text, response.headers.get('content-type'));
  const error = typeof answer.error === 'string' ? answer.error.slice(0, 100) : null;
  if (!response.ok || error) {
    // What the endpoint says is kept (attempts, a connection's errorMessage, a run's): an endpoint
    // that echoes the request must not carry the client secret, the code or a token along.
    const redact = redactor([
      client.clientSecret,
      headers.authorization?.slice('Basic '.length),
      ...Object.entries(params)
        .filter(([name]) => name !== 'grant_type' && name !== 'redirect_uri')
        .map(([, value]) => value),
      previous?.accessToken,
      previous?.refreshToken,
    ]);
    const description =
      typeof answer.error_description === 'string' ? `: ${answer.error_description.slice(0, 300)}` : '';
    throw new OAuthError(
      redact(error ?? `http_${response.status}`),
      redact(`the token endpoint answered ${response.status}${error ? ` ${error}` : ''}${description}`),
    );
  }
  const accessToken = answer.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new OAuthError('invalid_response', 'the token endpoint answered no access_token');
  }
  const expiresIn = Number(answer.expires_in);
  const scope =
    typeof answer.scope === 'string'
      ? answer.scope
      : Array.isArray(answer.scope)
        ? answer.scope.join(' ')
        : null;
  return {
    accessToken,
    refreshToken:
      typeof answer.refresh_token === 'string' && answer.refresh_token !== ''
        ? answer.refresh_token
        : (previous?.refreshToken ?? null),
    // A lifetime past what a date can say (`expires_in: 1e20`) is no known expiry, not a failure.
    expiresAt:
      Number.isFinite(expiresIn) && expiresIn > 0 && now + expiresIn * 1000 < MAX_DATE_MS
        ? new Date(now + expiresIn * 1000).toISOString()
        : null,
    // RFC 6749 5.1: no scope in the answer means the scope asked for (or held before).
    scope: scope ?? previous?.scope ?? null,
    tokenType: typeof answer.token_type === 'string' ? answer.token_type : null,
    obtainedAt: new Date(now).toISOString(),
  };
}

/** The most of an OAuth endpoint's answer that is read: past it, the answer is refused unread. */
const MAX_ANSWER_BYTES = 65_536;
const MAX_DATE_MS = 8.64e15;

/** The body of `response` up to `max` bytes, or the failure of an answer longer than that. */
async function readCappedOr(response: Response, max: number, what: string): Promise<string> {
  const text = await readCapped(response, max);
  if (text === null) throw new OAuthError('invalid_response', `${what} answered more than ${max / 1024} KiB`);
  return text;
}

/** Replaces each of `secrets` (and its URL-encoded form) in a text by `[redacted]`. */
function redactor(secrets: (string | null | undefined)[]): (text: string) => string {
  const forms = secrets
    .filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4)
    .flatMap((secret) => [
      secret,
      encodeURIComponent(secret),
      encodeURIComponent(secret).replace(/%20/g, '+'),
    ])
    .sort((a, b) => b.length - a.length);
  return (text) => forms.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}

function parseBody(text: string, contentType: string | null): Record<string, unknown> {
  if (contentType?.includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    // Some providers answer form-encoded under another content type.
    return text.includes('=') ? Object.fromEntries(new URLSearchParams(text)) : {};
  }
}

/** The scopes a token holds: space- or comma-separated, as providers write them. */
export const grantedScopesOf = (token: OAuthToken, requested: string[]): string[] =>
  token.scope ? [...new Set(token.scope.split(/[\s,]+/).filter((scope) => scope !== ''))] : requested;

/** Who the token belongs to, from `userinfoUrl`: an id and a name, whichever fields it has. */
export async function userinfo(
  fetch: Fetch,
  url: string,
  token: OAuthToken,
): Promise<{ accountId: string | null; displayName: string | null }> {
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token.accessToken}`, accept: 'application/json' },
    redirect: 'error',
    signal: AbortSignal.timeout(15_000),
  });
  if (!response.ok)
    throw new OAuthError(`http_${response.status}`, `the userinfo endpoint answered ${response.status}`);
  const info = parseBody(
    await readCappedOr(response, MAX_ANSWER_BYTES, 'the userinfo endpoint'),
    'application/json',
  );
  const redact = redactor([token.accessToken, token.refreshToken]);
  const first = (...names: string[]) => {
    for (const name of names) {
      const value = info[name];
      // Shown on the connection (and the callback page): never a token the endpoint echoed.
      if ((typeof value === 'string' && value !== '') || typeof value === 'number')
        return redact(String(value).slice(0, 200));
    }
    return null;
  };
  return {
    accountId: first('sub', 'id', 'user_id', 'login', 'email'),
    displayName: first('name', 'login', 'preferred_username', 'email', 'username'),
  };
}
