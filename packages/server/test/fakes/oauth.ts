/**
 * A fake OAuth 2 provider on 127.0.0.1 that speaks RFC 6749 and RFC 7636 as real providers do, and
 * records every call: `/authorize` (consent is given, or declined when told, by redirecting the
 * browser back as a provider does after its consent screen), `/token` (authorization code and
 * refresh grants, client authentication as configured, PKCE verified), `/userinfo`, and a resource
 * API (`/api/items`) that takes only a live access token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOAuthSettings {
  clientId: string;
  clientSecret: string;
  /** How the client must authenticate at the token endpoint. */
  tokenEndpointAuthMethod: 'client_secret_post' | 'client_secret_basic' | 'none';
  /** Require PKCE (S256) on every authorization. */
  requirePkce: boolean;
  /** Seconds an access token lives (`expires_in`). */
  expiresIn: number;
  /** Answer a new refresh token on every refresh (and refuse the old one from then on). */
  rotateRefreshTokens: boolean;
  /** Grant only these of the scopes asked for (undefined: all of them). */
  grantOnly?: string[];
  /** The person declines consent. */
  deny: boolean;
  /** Milliseconds the token endpoint takes to answer a refresh (to make refreshes overlap). */
  refreshDelayMs: number;
  /** The token endpoint is down for refreshes: it answers this status (503: `temporarily_unavailable`). */
  refreshStatus?: number;
}

export interface RecordedCall {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  query: Record<string, string>;
  form: Record<string, string>;
  status: number;
}

interface Grant {
  scopes: string[];
  refreshToken: string;
}

export interface FakeOAuth {
  url: string;
  settings: FakeOAuthSettings;
  calls: RecordedCall[];
  /** Token calls of `grant_type`. */
  tokenCalls(grantType?: string): RecordedCall[];
  /** Makes an access token stop working at once (the API answers 401), as a provider may. */
  expire(accessToken: string): void;
  /** Makes every refresh token stop working (the grant was revoked at the provider). */
  revokeGrants(): void;
  /** Every access and refresh token issued, for canaries. */
  issued(): string[];
  /** Follows an authorization URL as a browser does: the consent's redirect, without following it. */
  consent(authorizationUrl: string): Promise<string>;
  close(): Promise<void>;
}

export async function startFakeOAuth(settings: Partial<FakeOAuthSettings> = {}): Promise<FakeOAuth> {
  const current: FakeOAuthSettings = {
    clientId: 'client-id-fake',
    clientSecret: `client-secret-${randomBytes(8).toString('hex')}`,
    tokenEndpointAuthMethod: 'client_secret_post',
    requirePkce: false,
    expiresIn: 3600,
    rotateRefreshTokens: true,
    deny: false,
    refreshDelayMs: 0,
    ...settings,
  };
  const calls: RecordedCall[] = [];
  const codes = new Map<
    string,
    { redirectUri: string; scopes: string[]; challenge: string | null; clientId: string; used: boolean }
  >();
  const accessTokens = new Map<string, { expiresAt: number; scopes: string[] }>();
  const refreshTokens = new Map<string, Grant>();
  const issued: string[] = [];
  let serial = 0;

  const issue = (scopes: string[], refreshToken?: string) => {
    serial++;
    const accessToken = `at-${serial}-${randomBytes(12).toString('hex')}`;
    accessTokens.set(accessToken, { expiresAt: Date.now() + current.expiresIn * 1000, scopes });
    const refresh = refreshToken ?? `rt-${serial}-${randomBytes(12).toString('hex')}`;
    refreshTokens.set(refresh, { scopes, refreshToken: refresh });
    issued.push(accessToken, refresh);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: current.expiresIn,
      refresh_token: refresh,
      scope: scopes.join(' '),
    };
  };

  /** The client's authentication as the configured method wants it, or why not. */
  const clientProblem = (headers: IncomingHttpHeaders, form: Record<string, string>): string | null => {
    const basic = headers.authorization?.startsWith('Basic ')
      ? Buffer.from(headers.authorization.slice(6), 'base64').toString()
      : null;
    switch (current.tokenEndpointAuthMethod) {
      case 'client_secret_basic': {
        if (form.client_secret)
          return 'client_secret in the body, but this client authenticates with HTTP Basic';
        const [id, secret] = (basic ?? ':')
          .split(':')
          .map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
        return id === current.clientId && secret === current.clientSecret ? null : 'bad Basic credentials';
      }
      case 'client_secret_post':
        if (basic) return 'HTTP Basic, but this client authenticates with client_secret_post';
        return form.client_id === current.clientId && form.client_secret === current.clientSecret
          ? null
          : 'bad client_id or client_secret';
      case 'none':
        if (basic || form.client_secret) return 'a public client sends no secret';
        return form.client_id === current.clientId ? null : 'bad client_id';
    }
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const form = Object.fromEntries(new URLSearchParams(raw));
    const call: RecordedCall = {
      path: url.pathname,
      method: req.method ?? 'GET',
      headers: req.headers,
      query: Object.fromEntries(url.searchParams),
      form,
      status: 200,
    };
    calls.push(call);
    const json = (status: number, body: unknown) => {
      call.status = status;
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    const bearer = req.headers.authorization?.startsWith('Bearer ') ? req.headers.authorization.slice(7) : '';
    const live = accessTokens.get(bearer);

    if (url.pathname === '/authorize' && req.method === 'GET') {
      const q = call.query;
      const back = new URL(q.redirect_uri ?? 'http://invalid');
      if (q.client_id !== current.clientId || q.response_type !== 'code')
        return json(400, { error: 'invalid_request' });
      if (current.requirePkce && (q.code_challenge_method !== 'S256' || !q.code_challenge)) {
        back.searchParams.set('error', 'invalid_request');
        back.searchParams.set('error_description', 'PKCE required');
      } else if (current.deny) {
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'The user denied the request');
      } else {
        const asked = (q.scope ?? '').split(' ').filter(Boolean);
        const code = `code-${randomBytes(12).toString('hex')}`;
        codes.set(code, {
          redirectUri: q.redirect_uri ?? '',
          scopes: current.grantOnly ? asked.filter((s) => current.grantOnly?.includes(s)) : asked,
          challenge: q.code_challenge ?? null,
          clientId: q.client_id ?? '',
          used: false,
        });
        back.searchParams.set('code', code);
      }
      if (q.state) back.searchParams.set('state', q.state);
      call.status = 302;
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }

    if (url.pathname === '/token' && req.method === 'POST') {
      if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
        return json(400, { error: 'invalid_request', error_description: 'form body expected' });
      }
      const problem = clientProblem(req.headers, form);
      if (problem) return json(401, { error: 'invalid_client', error_description: problem });
      if (form.grant_type === 'authorization_code') {
        const grant = codes.get(form.code ?? '');
        if (!grant || grant.used)
          return json(400, { error: 'invalid_grant', error_description: 'unknown or used code' });
        grant.used = true;
        if (grant.redirectUri !== form.redirect_uri) {
          return json(400, { error: 'invalid_grant', error_description: 'redirect_uri does not match' });
        }
        if (grant.challenge !== null || current.requirePkce) {
          const verifier = form.code_verifier ?? '';
          const challenge = createHash('sha256').update(verifier).digest('base64url');
          if (challenge !== grant.challenge) {
            return json(400, { error: 'invalid_grant', error_description: 'code_verifier does not match' });
          }
        }
        return json(200, issue(grant.scopes));
      }
      if (form.grant_type === 'refresh_token') {
        if (current.refreshDelayMs > 0)
          await new Promise((resolve) => setTimeout(resolve, current.refreshDelayMs));
        if (current.refreshStatus) return json(current.refreshStatus, { error: 'temporarily_unavailable' });
        const grant = refreshTokens.get(form.refresh_token ?? '');
        if (!grant)
          return json(400, {
            error: 'invalid_grant',
            error_description: 'refresh token is invalid or revoked',
          });
        if (current.rotateRefreshTokens) refreshTokens.delete(grant.refreshToken);
        const answer = issue(grant.scopes, current.rotateRefreshTokens ? undefined : grant.refreshToken);
        if (!current.rotateRefreshTokens) delete (answer as { refresh_token?: string }).refresh_token;
        return json(200, answer);
      }
      return json(400, { error: 'unsupported_grant_type' });
    }

    if (url.pathname === '/userinfo') {
      if (!live || live.expiresAt <= Date.now()) return json(401, { error: 'invalid_token' });
      return json(200, { id: 4242, login: 'octo-person', name: 'Octo Person' });
    }

    if (url.pathname === '/api/items') {
      if (!live || live.expiresAt <= Date.now()) return json(401, { message: 'Bad credentials' });
      return json(200, [
        { id: 'item-1', title: 'First item', scopes: live.scopes },
        { id: 'item-2', title: 'Second item', scopes: live.scopes },
      ]);
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    settings: current,
    calls,
    tokenCalls: (grantType) =>
      calls.filter(
        (c) => c.path === '/token' && (grantType === undefined || c.form.grant_type === grantType),
      ),
    expire: (accessToken) => {
      const token = accessTokens.get(accessToken);
      if (token) token.expiresAt = 0;
    },
    revokeGrants: () => refreshTokens.clear(),
    issued: () => [...issued],
    async consent(authorizationUrl) {
      const response = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status !== 302 || !location)
        throw new Error(`the fake's consent answered ${response.status}`);
      return location;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
