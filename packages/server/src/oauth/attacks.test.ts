import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOAuth, startFakeOAuth } from '../../test/fakes/oauth.js';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';
import { parseEgressAllow } from '../egress/policy.js';
import { oauthFetch } from './egress.js';
import { freshToken, RefreshFailedError } from './refresh.js';

/** Half a 60-second token's life later, when it is due for renewal. */
const LATER = { now: () => Date.now() + 45_000 };
/** Long after any token these tests are given expired. */
const EXPIRED = { now: () => Date.now() + 600_000 };

/**
 * Attacks on the OAuth boundary (issue 18): the `state`, what a hostile or echoing token endpoint
 * can make svc store or show, the URLs an org writes, another org's ids, and the refresh under a
 * malicious answer. Each test is the proof that a boundary holds (or, once fixed, holds again).
 */

let server: TestServer;
let orgId: string;
const logged: string[] = [];
const answers: string[] = [];
const fakes: FakeOAuth[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    logged.push(String(chunk));
    done();
  },
});

/** A hostile provider on 127.0.0.1 (allowed), whose token endpoint answers whatever a test says. */
interface Evil {
  url: string;
  calls: { path: string; form: Record<string, string>; headers: IncomingMessage['headers'] }[];
  token: (form: Record<string, string>, res: ServerResponse) => void;
  userinfo: (res: ServerResponse) => void;
  redirectTo?: string;
  close(): Promise<void>;
}
/** A listener on 127.0.0.2 (refused by the test policy): any connection to it is a break. */
let forbidden: Server;
let forbiddenUrl: string;
const forbiddenSockets: Socket[] = [];
const evils: Evil[] = [];

async function startEvil(): Promise<Evil> {
  const evil: Evil = {
    url: '',
    calls: [],
    token: (_form, res) =>
      json(res, 200, { access_token: 'at-evil-default', refresh_token: 'rt-evil-default' }),
    userinfo: (res) => json(res, 200, { id: 1, name: 'Evil' }),
    close: async () => {},
  };
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    evil.calls.push({ path, form, headers: req.headers });
    if (evil.redirectTo) {
      res.writeHead(307, { location: evil.redirectTo }).end();
      return;
    }
    if (path === '/token') evil.token(form, res);
    else if (path === '/userinfo') evil.userinfo(res);
    else json(res, 404, {});
  });
  const sockets = new Set<Socket>();
  http.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  evil.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  evil.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      http.close(() => resolve());
    });
  evils.push(evil);
  return evil;
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function call(method: string, path: string, options: Parameters<TestServer['call']>[2] = {}) {
  const answer = await server.call(method, path, options);
  answers.push(JSON.stringify(answer.body));
  return answer;
}

const CLIENT_SECRET = 'client-secret-canary-7f3a9c1e55';

async function install(key: string, method: Record<string, unknown>, org = 'default'): Promise<void> {
  const source = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: '${key}', name: 'Attack (${key})', version: '1.0.0',
  authSchema: { methods: [${JSON.stringify({
    type: 'oauth',
    provider: `atk-${key}`,
    requiredScopes: ['read'],
    ...method,
  })}] },
  feeds: { items: { key: 'items', name: 'Items', requiredScopes: ['read'],
    configSchema: { type: 'object', properties: { apiUrl: { type: 'string' } } },
    sync: async () => ({ events: [], checkpoint: null }) } },
});`;
  const installed = await call('POST', `/api/${org}/connectors`, { body: { source } });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  const stem = `ATK_${key.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
  await call('PUT', `/api/${org}/secrets/${stem}_CLIENT_ID`, { body: { value: 'client-id-atk' } });
  await call('PUT', `/api/${org}/secrets/${stem}_CLIENT_SECRET`, { body: { value: CLIENT_SECRET } });
}

async function newConnection(key: string, org = 'default'): Promise<number> {
  const made = await call('POST', `/api/${org}/connections`, { body: { connectorKey: key } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  await server.pool.query(
    `UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE connection_id = $1`,
    [made.body.connection.id],
  );
  return made.body.connection.id;
}

async function start(connectionId: number, org = 'default') {
  const started = await call('POST', `/api/${org}/connections/${connectionId}/oauth/start`, { body: {} });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const state = new URL(started.body.authorizationUrl).searchParams.get('state') ?? '';
  return { ...started.body, state } as {
    attemptId: number;
    authorizationUrl: string;
    state: string;
    redirectUri: string;
  };
}

/** The provider's redirect back, made by hand: `query` as a provider (or an attacker) writes it. */
async function land(query: Record<string, string> | string) {
  const qs = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  const started = Date.now();
  const response = await fetch(`${server.url}/api/v1/oauth/callback?${qs}`);
  const html = await response.text();
  answers.push(html);
  return { status: response.status, html, ms: Date.now() - started };
}

async function attempt(connectionId: number, attemptId: number, org = 'default') {
  return (await call('GET', `/api/${org}/connections/${connectionId}/oauth/attempts/${attemptId}`)).body
    .attempt as { status: string; message: string | null };
}

async function connection(connectionId: number, org = 'default') {
  return (await call('GET', `/api/${org}/connections/${connectionId}`)).body.connection as {
    status: string;
    errorMessage: string | null;
  };
}

async function ownerOf(key: string, connectionId: number) {
  const definition = (
    await server.pool.query(
      `SELECT definition FROM connector_definitions WHERE org_id = $1 AND connector_key = $2`,
      [orgId, key],
    )
  ).rows[0].definition;
  return { orgId, orgSlug: 'default', connectionId: String(connectionId), definition };
}

const oauthClient = oauthFetch(parseEgressAllow('127.0.0.1'));
const deps = () => ({
  pool: server.pool,
  encryptionKey: server.options.encryptionKey,
  secrets: server.options.secrets,
  fetch: oauthClient.fetch,
});

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true, logger: pino({ level: 'trace' }, sink) });
  orgId = String((await server.pool.query(`SELECT id FROM orgs WHERE slug = 'default'`)).rows[0].id);
  forbidden = createServer((_req, res) => res.end('{}'));
  forbidden.on('connection', (s) => forbiddenSockets.push(s));
  await new Promise<void>((resolve) => forbidden.listen(0, '127.0.0.2', resolve));
  forbiddenUrl = `http://127.0.0.2:${(forbidden.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await oauthClient.close();
  await Promise.all([...fakes.map((f) => f.close()), ...evils.map((e) => e.close())]);
  forbidden?.close();
});

describe('attack 1: the state', () => {
  it('five callbacks racing with one state make exactly one code exchange', async () => {
    const provider = await startFakeOAuth();
    fakes.push(provider);
    const source = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({ key: 'atk-race', name: 'Race', version: '1.0.0',
  authSchema: { methods: [${JSON.stringify({
    type: 'oauth',
    provider: 'atk-race',
    requiredScopes: ['read'],
    authorizationUrl: `${provider.url}/authorize`,
    tokenUrl: `${provider.url}/token`,
  })}] },
  feeds: { items: { key: 'items', name: 'Items', sync: async () => ({ events: [], checkpoint: null }) } } });`;
    expect((await call('POST', '/api/default/connectors', { body: { source } })).status).toBe(201);
    await call('PUT', '/api/default/secrets/ATK_RACE_CLIENT_ID', {
      body: { value: provider.settings.clientId },
    });
    await call('PUT', '/api/default/secrets/ATK_RACE_CLIENT_SECRET', {
      body: { value: provider.settings.clientSecret },
    });
    const id = await newConnection('atk-race');
    const started = await start(id);
    const back = await provider.consent(started.authorizationUrl);
    const pages = await Promise.all(Array.from({ length: 5 }, () => fetch(back).then((r) => r.text())));
    expect(pages.filter((p) => p.includes('Connected to'))).toHaveLength(1);
    expect(pages.filter((p) => p.includes('already used'))).toHaveLength(4);
    expect(provider.tokenCalls('authorization_code')).toHaveLength(1);
    expect((await attempt(id, started.attemptId)).status).toBe('connected');
  });

  it('a state is used up by a failed exchange too, and code together with error is a denial with no exchange', async () => {
    const evil = await startEvil();
    await install('atk-state', { authorizationUrl: `${evil.url}/authorize`, tokenUrl: `${evil.url}/token` });
    const id = await newConnection('atk-state');
    evil.token = (_form, res) => json(res, 400, { error: 'invalid_grant' });
    const first = await start(id);
    expect((await land({ state: first.state, code: 'c1' })).html).toContain('Not connected');
    // Replayed with another code: used, no second exchange.
    expect((await land({ state: first.state, code: 'c2' })).html).toContain('already used');
    expect(evil.calls.filter((c) => c.path === '/token')).toHaveLength(1);

    const second = await start(id);
    const both = await land({ state: second.state, code: 'c3', error: 'access_denied' });
    expect(both.html).toContain('did not grant access');
    expect(evil.calls.filter((c) => c.path === '/token')).toHaveLength(1);
    expect((await attempt(id, second.attemptId)).status).toBe('denied');
  });

  it('a huge, repeated or odd state or code answers a page, never a crash or an exchange', async () => {
    const evil = await startEvil();
    await install('atk-odd', { authorizationUrl: `${evil.url}/authorize`, tokenUrl: `${evil.url}/token` });
    const id = await newConnection('atk-odd');
    const started = await start(id);
    for (const query of [
      `state=${'s'.repeat(7000)}&code=x`,
      `state=${encodeURIComponent(started.state)}&state=other&code=x`,
      `state[]=${encodeURIComponent(started.state)}&code=x`,
      'state=%00%FF%FE&code=%00',
      `state=${encodeURIComponent(`${started.state} `)}&code=x`,
      '',
    ]) {
      const page = await land(query);
      expect(page.status, query.slice(0, 40)).toBe(200);
      expect(page.html).not.toContain('Connected to');
    }
    expect(evil.calls).toEqual([]);
    // The real state still works once, with a huge code (cut, sent as it arrived, refused there).
    evil.token = (form, res) =>
      json(res, 400, { error: 'invalid_grant', error_description: `len ${form.code?.length}` });
    const page = await land({ state: started.state, code: 'c'.repeat(6000) });
    expect(page.html).toContain('Not connected');
    expect(evil.calls).toHaveLength(1);
  });

  it('what the public callback reflects is escaped under a CSP that runs nothing, and the state never reaches a log', async () => {
    const evil = await startEvil();
    await install('atk-xss', { authorizationUrl: `${evil.url}/authorize`, tokenUrl: `${evil.url}/token` });
    const id = await newConnection('atk-xss');
    const started = await start(id);
    const page = await land({
      state: started.state,
      error: '<script>alert(1)</script>`<img src=x onerror=alert(2)>`',
      error_description: '"><iframe src=//evil>',
    });
    expect(page.html).not.toMatch(/<script>|<img|<iframe/);
    expect(page.html).toContain('&lt;script&gt;');
    const headers = (await fetch(`${server.url}/api/v1/oauth/callback?state=x`)).headers;
    expect(headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(logged.join('\n')).not.toContain(started.state);
  });

  it('an expired state is refused even when it races the clock, and its connection is left alone', async () => {
    const evil = await startEvil();
    await install('atk-exp', { authorizationUrl: `${evil.url}/authorize`, tokenUrl: `${evil.url}/token` });
    const id = await newConnection('atk-exp');
    const started = await start(id);
    await server.pool.query(`UPDATE oauth_attempts SET expires_at = now() WHERE id = $1`, [
      started.attemptId,
    ]);
    expect((await land({ state: started.state, code: 'x' })).html).toContain('expired');
    expect(evil.calls).toEqual([]);
    expect((await connection(id)).status).toBe('error');
  });
});

describe('attack 2: credentials leaking through what the token endpoint echoes', () => {
  it('a token endpoint echoing the request in error_description: the client secret, the code and the PKCE verifier reach no attempt, page or log', async () => {
    const evil = await startEvil();
    await install('atk-echo', {
      authorizationUrl: `${evil.url}/authorize`,
      tokenUrl: `${evil.url}/token`,
      usePkce: true,
    });
    const id = await newConnection('atk-echo');
    evil.token = (form, res) =>
      json(res, 400, {
        error: 'invalid_request',
        error_description: `secret=${form.client_secret} code=${form.code} verifier=${form.code_verifier}`,
      });
    const started = await start(id);
    const code = 'auth-code-canary-41d2e8a7b0';
    const page = await land({ state: started.state, code });
    const sent = evil.calls.find((c) => c.path === '/token')?.form ?? {};
    expect(sent.client_secret).toBe(CLIENT_SECRET);
    const verifier = sent.code_verifier ?? '';
    expect(verifier.length).toBeGreaterThan(20);
    const got = await attempt(id, started.attemptId);
    expect(got.status).toBe('failed');
    const { rows } = await server.pool.query('SELECT outcome_message FROM oauth_attempts WHERE id = $1', [
      started.attemptId,
    ]);
    for (const secret of [CLIENT_SECRET, code, verifier]) {
      expect(page.html, 'the page').not.toContain(secret);
      expect(JSON.stringify(got), 'the attempt').not.toContain(secret);
      expect(String(rows[0].outcome_message), 'outcome_message').not.toContain(secret);
      expect(logged.join('\n'), 'the log').not.toContain(secret);
    }
    // What the provider said is still there, for the person.
    expect(got.message).toContain('invalid_request');
  });

  it('a refresh refused with the refresh token echoed back: the connection errorMessage and the thrown message hold no token', async () => {
    const evil = await startEvil();
    await install('atk-echo-rt', {
      authorizationUrl: `${evil.url}/authorize`,
      tokenUrl: `${evil.url}/token`,
    });
    const id = await newConnection('atk-echo-rt');
    const refresh = 'rt-canary-a81be0c4f55d9e';
    const access = 'at-canary-19fe33cc6a2b70';
    evil.token = (_form, res) =>
      json(res, 200, { access_token: access, refresh_token: refresh, expires_in: 60 });
    const started = await start(id);
    expect((await land({ state: started.state, code: 'x' })).html).toContain('Connected to');
    for (const error of ['invalid_grant', 'temporarily_unavailable']) {
      evil.token = (form, res) =>
        json(res, 400, {
          error,
          error_description: `bad refresh_token ${form.refresh_token} for ${form.client_secret}`,
        });
      // Past its expiry: a failure that may pass fails the renewal too once the token is gone.
      const thrown = await freshToken(deps(), await ownerOf('atk-echo-rt', id), EXPIRED).catch(
        (e: Error) => e,
      );
      expect(thrown).toBeInstanceOf(RefreshFailedError);
      const after = await connection(id);
      for (const secret of [refresh, access, CLIENT_SECRET]) {
        expect((thrown as Error).message, error).not.toContain(secret);
        expect(String(after.errorMessage), error).not.toContain(secret);
      }
      expect(after.errorMessage).toContain(error);
      // Connected again for the next round.
      evil.token = (_form, res) =>
        json(res, 200, { access_token: access, refresh_token: refresh, expires_in: 60 });
      expect((await land({ state: (await start(id)).state, code: 'x' })).html).toContain('Connected to');
    }
  });
});

describe('attack 3: SSRF through the URLs an org writes', () => {
  it.each([
    ['http://169.254.169.254/latest/meta-data/iam/token', /metadata|not https/],
    ['https://169.254.169.254/token', /metadata/],
    ['https://10.1.2.3/token', /private/],
    ['http://[::ffff:a9fe:a9fe]/token', /metadata/],
    ['https://[fd00:ec2::254]/token', /metadata|private/],
    ['http://0/token', /unspecified/],
    ['http://example.com/token', /not https/],
    ['http://localhost./token', /not https/],
  ])('tokenUrl %s is refused, and the secret goes nowhere', async (tokenUrl, why) => {
    const key = `atk-ssrf-${evils.length}-${Math.abs(hash(tokenUrl))}`;
    const evil = await startEvil();
    await install(key, { authorizationUrl: `${evil.url}/authorize`, tokenUrl });
    const id = await newConnection(key);
    const started = await start(id);
    const page = await land({ state: started.state, code: 'x' });
    expect(page.html).toContain('Not connected');
    const got = await attempt(id, started.attemptId);
    expect(got.status).toBe('failed');
    expect(got.message).toMatch(why);
    expect((await connection(id)).status).toBe('error');
  });

  it('a name that resolves to loopback is refused by address, over https or http, when the operator allows none', async () => {
    const strict = oauthFetch(parseEgressAllow(''));
    try {
      for (const url of [
        'https://localhost:8443/token',
        'http://localhost:8080/token',
        'http://[::1]:8080/token',
        'http://127.0.0.1:8080/token',
      ]) {
        const error = await strict.fetch(url, { method: 'POST' }).then(
          () => null,
          (e: { code?: string; message: string }) => e,
        );
        expect(error?.code, `${url}: ${error?.message}`).toBe('egress_refused');
      }
      // Plain http to a public name is refused before any lookup.
      await expect(strict.fetch('http://oauth.example.com/token')).rejects.toThrow(/https only/);
    } finally {
      await strict.close();
    }
  });

  it('decimal and hex spellings of a refused address are refused as it is (127.0.0.2, not allowed)', async () => {
    const port = new URL(forbiddenUrl).port;
    for (const host of ['2130706434', '0x7f000002', '127.2', '[::ffff:7f00:2]']) {
      const key = `atk-spell-${Math.abs(hash(host))}`;
      const evil = await startEvil();
      await install(key, {
        authorizationUrl: `${evil.url}/authorize`,
        tokenUrl: `http://${host}:${port}/token`,
      });
      const id = await newConnection(key);
      const started = await start(id);
      await land({ state: started.state, code: 'x' });
      expect((await attempt(id, started.attemptId)).message, host).toMatch(/loopback/);
    }
    expect(forbiddenSockets).toHaveLength(0);
  });

  it('a redirect from the allowed token endpoint to a refused host is not followed, nor is the token sent to a refused userinfoUrl', async () => {
    const evil = await startEvil();
    await install('atk-redirect', {
      authorizationUrl: `${evil.url}/authorize`,
      tokenUrl: `${evil.url}/token`,
    });
    const id = await newConnection('atk-redirect');
    evil.redirectTo = `${forbiddenUrl}/token`;
    const started = await start(id);
    await land({ state: started.state, code: 'x' });
    expect((await attempt(id, started.attemptId)).status).toBe('failed');

    evil.redirectTo = undefined;
    const evil2 = await startEvil();
    await install('atk-userinfo', {
      authorizationUrl: `${evil2.url}/authorize`,
      tokenUrl: `${evil2.url}/token`,
      userinfoUrl: `${forbiddenUrl}/userinfo`,
    });
    const id2 = await newConnection('atk-userinfo');
    const page = await land({ state: (await start(id2)).state, code: 'x' });
    expect(page.html).toContain('Connected to');
    // A userinfo redirect to a refused host is not followed either.
    const evil3 = await startEvil();
    evil3.redirectTo = `${forbiddenUrl}/userinfo`;
    await install('atk-userinfo-redirect', {
      authorizationUrl: `${evil2.url}/authorize`,
      tokenUrl: `${evil2.url}/token`,
      userinfoUrl: `${evil3.url}/userinfo`,
    });
    const id3 = await newConnection('atk-userinfo-redirect');
    expect((await land({ state: (await start(id3)).state, code: 'x' })).html).toContain('Connected to');
    expect(forbiddenSockets).toHaveLength(0);
  });
});

describe("attack 4: another org's ids, and a read token", () => {
  it('start, attempts, revoke and browser-session on another org are 404; a read token starts and revokes nothing', async () => {
    const evil = await startEvil();
    expect((await call('POST', '/api/orgs', { body: { slug: 'atk-other', name: 'Other' } })).status).toBe(
      201,
    );
    await install(
      'atk-x',
      { authorizationUrl: `${evil.url}/authorize`, tokenUrl: `${evil.url}/token` },
      'atk-other',
    );
    await install('atk-x', { authorizationUrl: `${evil.url}/authorize`, tokenUrl: `${evil.url}/token` });
    const theirs = await newConnection('atk-x', 'atk-other');
    const theirAttempt = await start(theirs, 'atk-other');
    expect((await land({ state: theirAttempt.state, code: 'x' })).html).toContain('Connected to');
    const base = `/api/default/connections/${theirs}`;
    expect((await call('POST', `${base}/oauth/start`, { body: {} })).status).toBe(404);
    expect((await call('GET', `${base}/oauth/attempts/${theirAttempt.attemptId}`)).status).toBe(404);
    expect((await call('POST', `${base}/revoke`)).status).toBe(404);
    expect((await call('POST', `${base}/browser-session`, { body: { cookies: [] } })).status).toBe(404);
    expect((await call('GET', `${base}/browser-session`)).status).toBe(404);
    expect((await call('PATCH', base, { body: { credentials: { accessToken: 'x' } } })).status).toBe(404);
    expect((await connection(theirs, 'atk-other')).status).toBe('active');

    const mine = await newConnection('atk-x');
    const reader = await createToken(server, 'default', ['read']);
    expect(
      (await call('POST', `/api/default/connections/${mine}/oauth/start`, { body: {}, token: reader.secret }))
        .status,
    ).toBe(403);
    expect(
      (await call('POST', `/api/default/connections/${mine}/revoke`, { token: reader.secret })).status,
    ).toBe(403);
    // A token of the other org reaches nothing here.
    const theirToken = await createToken(server, 'atk-other', ['read', 'write']);
    expect(
      (
        await call('POST', `/api/default/connections/${mine}/oauth/start`, {
          body: {},
          token: theirToken.secret,
        })
      ).status,
    ).toBeGreaterThanOrEqual(401);
    const { rows } = await server.pool.query(
      'SELECT count(*)::int AS n FROM oauth_attempts WHERE connection_id = $1',
      [mine],
    );
    expect(rows[0].n).toBe(0);
  });

  it("an org-wide grant of one org is not another org's: a second org's connection of the same connector stays unconnected", async () => {
    const evil = await startEvil();
    expect((await call('POST', '/api/orgs', { body: { slug: 'atk-wide', name: 'Wide' } })).status).toBe(201);
    const method = {
      authorizationUrl: `${evil.url}/authorize`,
      tokenUrl: `${evil.url}/token`,
      scope: 'organization',
    };
    await install('atk-wide', method);
    await install('atk-wide', method, 'atk-wide');
    const ours = await newConnection('atk-wide');
    expect((await land({ state: (await start(ours)).state, code: 'x' })).html).toContain('Connected to');
    const theirs = await newConnection('atk-wide', 'atk-wide');
    expect((await connection(theirs, 'atk-wide')).status).toBe('error');
    expect((await connection(ours)).status).toBe('active');
  });

  // A connection that joins an org-wide grant is granted the hosts the grant was given for when the
  // person connected, not whatever its own new config names.
  it("a write token's new connection of an org-wide grant does not get the org's token granted for the host its config names", async () => {
    const evil = await startEvil();
    await install('atk-wide-new', {
      authorizationUrl: `${evil.url}/authorize`,
      tokenUrl: `${evil.url}/token`,
      scope: 'organization',
    });
    const first = await call('POST', '/api/default/connections', {
      body: { connectorKey: 'atk-wide-new', config: { apiUrl: 'https://api.service.test/v1' } },
    });
    expect((await land({ state: (await start(first.body.connection.id)).state, code: 'x' })).html).toContain(
      'Connected to',
    );
    const writer = await createToken(server, 'default', ['read', 'write']);
    const second = await call('POST', '/api/default/connections', {
      body: { connectorKey: 'atk-wide-new', config: { apiUrl: 'https://attacker.example/collect' } },
      token: writer.secret,
    });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.body.connection.status).toBe('active');
    const { rows } = await server.pool.query('SELECT granted_hosts FROM connections WHERE id = $1', [
      second.body.connection.id,
    ]);
    expect(rows[0].granted_hosts).not.toContain('attacker.example');
  });

  it('revoking a connection voids the links handed out before: a pending state no longer connects it', async () => {
    const evil = await startEvil();
    await install('atk-revoke', { authorizationUrl: `${evil.url}/authorize`, tokenUrl: `${evil.url}/token` });
    const id = await newConnection('atk-revoke');
    const old = await start(id);
    expect((await land({ state: (await start(id)).state, code: 'x' })).html).toContain('Connected to');
    expect(
      (await call('POST', `/api/default/connections/${id}/revoke`, { body: { reason: 'leaked' } })).status,
    ).toBe(200);
    const tokenCalls = evil.calls.length;
    // Whoever holds the old link (it was pasted somewhere) binds their own account to the connection.
    const page = await land({ state: old.state, code: 'attacker-code' });
    expect(page.html).not.toContain('Connected to');
    expect(evil.calls.length).toBe(tokenCalls);
    expect((await connection(id)).status).toBe('revoked');
  });

  it('a revoke that lands while the provider is answering the code exchange wins: nothing is kept', async () => {
    const evil = await startEvil();
    await install('atk-revoke-race', {
      authorizationUrl: `${evil.url}/authorize`,
      tokenUrl: `${evil.url}/token`,
    });
    const id = await newConnection('atk-revoke-race');
    const started = await start(id);
    let answered!: () => void;
    const asked = new Promise<void>((resolve) => {
      evil.token = (_form, res) => {
        resolve();
        answered = () => json(res, 200, { access_token: 'at-late', refresh_token: 'rt-late' });
      };
    });
    const landing = land({ state: started.state, code: 'x' });
    await asked;
    expect((await call('POST', `/api/default/connections/${id}/revoke`)).status).toBe(200);
    answered();
    const page = await landing;
    expect(page.html).not.toContain('Connected to');
    expect((await connection(id)).status).toBe('revoked');
    const { rows } = await server.pool.query('SELECT credentials FROM connections WHERE id = $1', [id]);
    expect(rows[0].credentials).toBeNull();
    expect((await attempt(id, started.attemptId)).status).toBe('failed');
  });
});

describe('attack 5: a hostile token endpoint at refresh', () => {
  async function connectedWith(key: string) {
    const evil = await startEvil();
    await install(key, { authorizationUrl: `${evil.url}/authorize`, tokenUrl: `${evil.url}/token` });
    const id = await newConnection(key);
    evil.token = (_form, res) =>
      json(res, 200, { access_token: 'at-first', refresh_token: 'rt-first', expires_in: 60 });
    expect((await land({ state: (await start(id)).state, code: 'x' })).html).toContain('Connected to');
    return { evil, id, owner: await ownerOf(key, id) };
  }

  it.each([
    ['negative', -100, null],
    ['NaN', 'soon', null],
    ['zero', 0, null],
    ['string', '3600', 'finite'],
  ] as const)(
    'expires_in %s: a token stored with a sane expiry, no crash',
    async (_label, expiresIn, want) => {
      const { evil, owner, id } = await connectedWith(`atk-exp-${_label.toLowerCase()}`);
      evil.token = (_form, res) => json(res, 200, { access_token: 'at-second', expires_in: expiresIn });
      const token = await freshToken(deps(), owner, LATER);
      expect(token?.accessToken).toBe('at-second');
      // The refresh token the provider did not rotate is kept.
      expect(token?.refreshToken).toBe('rt-first');
      if (want === null) expect(token?.expiresAt ?? null).toBeNull();
      else expect(Number.isFinite(Date.parse(token?.expiresAt ?? ''))).toBe(true);
      expect((await connection(id)).status).toBe('active');
    },
  );

  it('expires_in huge (1e20): the renewed token is kept, not refused as an "Invalid time value"', async () => {
    const { evil, owner, id } = await connectedWith('atk-exp-huge');
    evil.token = (_form, res) => json(res, 200, { access_token: 'at-huge', expires_in: 1e20 });
    const token = await freshToken(deps(), owner, LATER).catch((e: Error) => e);
    expect(token).not.toBeInstanceOf(Error);
    expect((token as { accessToken: string }).accessToken).toBe('at-huge');
    expect((await connection(id)).status).toBe('active');
  });

  it('an empty refresh_token in the answer keeps the old one; an empty or missing access_token is a failure, not the old token in silence', async () => {
    const { evil, owner, id } = await connectedWith('atk-empty');
    evil.token = (_form, res) => json(res, 200, { access_token: 'at-2', refresh_token: '', expires_in: 60 });
    expect((await freshToken(deps(), owner, LATER))?.refreshToken).toBe('rt-first');
    for (const body of [{ access_token: '' }, { access_token: 42 }, 'not json at all', [1, 2]]) {
      evil.token = (_form, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      const thrown = await freshToken(deps(), owner, EXPIRED).catch((e: Error) => e);
      expect(thrown, JSON.stringify(body)).toBeInstanceOf(RefreshFailedError);
      expect((await connection(id)).status).toBe('error');
    }
  });

  it('an endless token answer is cut short (bounded read), not buffered until the 15 s timeout', async () => {
    const { evil, owner } = await connectedWith('atk-endless');
    const chunk = Buffer.alloc(64 * 1024, 'a');
    evil.token = (_form, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"access_token":"');
      const timer = setInterval(() => {
        if (!res.write(chunk)) return;
      }, 1);
      res.on('close', () => clearInterval(timer));
    };
    const started = Date.now();
    const thrown = await freshToken(deps(), owner, LATER).catch((e: Error) => e);
    expect(thrown).toBeInstanceOf(RefreshFailedError);
    expect(Date.now() - started).toBeLessThan(5000);
  }, 30_000);

  it('a refresh does not grant the token to a host a write token pointed the feed at since the person connected', async () => {
    const evil = await startEvil();
    await install('atk-regrant', {
      authorizationUrl: `${evil.url}/authorize`,
      tokenUrl: `${evil.url}/token`,
    });
    const made = await call('POST', '/api/default/connections', {
      body: { connectorKey: 'atk-regrant', config: { apiUrl: 'https://api.service.test/v1' } },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.connection.id as number;
    const feedId = made.body.feeds[0].id as number;
    evil.token = (_form, res) =>
      json(res, 200, { access_token: 'at-regrant-1', refresh_token: 'rt-regrant-1', expires_in: 60 });
    expect((await land({ state: (await start(id)).state, code: 'x' })).html).toContain('Connected to');
    const granted = async () =>
      (await server.pool.query('SELECT granted_hosts FROM connections WHERE id = $1', [id])).rows[0]
        .granted_hosts as string[];
    expect(await granted()).toContain('api.service.test');
    // A write token points the feed at its own host: runs fail (the token was not granted there)...
    const patched = await call('PATCH', `/api/default/feeds/${feedId}`, {
      body: { config: { apiUrl: 'https://attacker.example/collect' } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(await granted()).not.toContain('attacker.example');
    // ...until the token is renewed, which nobody set again.
    evil.token = (_form, res) =>
      json(res, 200, { access_token: 'at-regrant-2', refresh_token: 'rt-regrant-2', expires_in: 3600 });
    expect((await freshToken(deps(), await ownerOf('atk-regrant', id), LATER))?.accessToken).toBe(
      'at-regrant-2',
    );
    expect(await granted()).not.toContain('attacker.example');
    expect(await granted()).toContain('api.service.test');
  });

  it('two connections of an org-wide grant refreshing at once make one token call, and both get the new token', async () => {
    const evil = await startEvil();
    await install('atk-wide-race', {
      authorizationUrl: `${evil.url}/authorize`,
      tokenUrl: `${evil.url}/token`,
      scope: 'organization',
    });
    const a = await newConnection('atk-wide-race');
    const b = await newConnection('atk-wide-race');
    evil.token = (_form, res) =>
      json(res, 200, { access_token: 'at-w1', refresh_token: 'rt-w1', expires_in: 60 });
    expect((await land({ state: (await start(a)).state, code: 'x' })).html).toContain('Connected to');
    let n = 0;
    evil.token = (form, res) => {
      n++;
      setTimeout(
        () =>
          form.refresh_token === 'rt-w1'
            ? json(res, 200, { access_token: `at-w2-${n}`, refresh_token: 'rt-w2', expires_in: 3600 })
            : json(res, 400, { error: 'invalid_grant' }),
        300,
      );
    };
    const [ta, tb] = await Promise.all([
      freshToken(deps(), await ownerOf('atk-wide-race', a), LATER),
      freshToken(deps(), await ownerOf('atk-wide-race', b), LATER),
    ]);
    expect(evil.calls.filter((c) => c.form.grant_type === 'refresh_token')).toHaveLength(1);
    expect(ta?.accessToken).toBe('at-w2-1');
    expect(tb?.accessToken).toBe('at-w2-1');
    expect((await connection(a)).status).toBe('active');
    expect((await connection(b)).status).toBe('active');
  });
});

describe('canary', () => {
  it('no client secret or issued token in any answer, page or log line of this file', () => {
    const everything = [...answers, ...logged].join('\n');
    for (const secret of [
      CLIENT_SECRET,
      'rt-canary-a81be0c4f55d9e',
      'at-canary-19fe33cc6a2b70',
      'rt-first',
      'rt-w1',
    ]) {
      expect(everything.includes(secret), secret).toBe(false);
    }
    for (const provider of fakes)
      for (const secret of [...provider.issued(), provider.settings.clientSecret])
        expect(everything.includes(secret), secret).toBe(false);
  });
});

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}
