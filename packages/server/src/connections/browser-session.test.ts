import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { startTestRunWorkers } from '../../test/runtime.js';
import type { RunWorkers } from '../runs/worker.js';
import { keepRequiredCookies, normaliseDomain, requiredDomainOf } from './browser-cookies.js';

/**
 * `browser` auth (DESIGN.md section 10): a captured session is kept sealed, reaches the
 * connection's syncs on `ctx.sessionState` and never their log or any answer; a DevTools URL at an
 * internal address is refused before any connection is made; a service that refuses the session
 * puts the connection in `error`, saying how to capture it again.
 */

describe('which cookies a session keeps', () => {
  const required = ['example.com', '.shop.test'];

  it('keeps the required domains and their subdomains, never a look-alike', () => {
    expect(requiredDomainOf('example.com', required)).toBe('example.com');
    expect(requiredDomainOf('.example.com', required)).toBe('example.com');
    expect(requiredDomainOf('a.b.example.com', required)).toBe('example.com');
    expect(requiredDomainOf('EXAMPLE.com.', required)).toBe('example.com');
    expect(requiredDomainOf('evil-example.com', required)).toBeNull();
    expect(requiredDomainOf('example.com.evil.test', required)).toBeNull();
    expect(requiredDomainOf('com', required)).toBeNull();
    expect(requiredDomainOf('', required)).toBeNull();
    expect(requiredDomainOf('www.shop.test', required)).toBe('shop.test');
    // The most specific required domain counts the cookie.
    expect(requiredDomainOf('a.api.example.com', ['example.com', 'api.example.com'])).toBe('api.example.com');
    expect(normaliseDomain('*.Example.com')).toBe('example.com');
  });

  it('counts each required domain, none left out', () => {
    const cookies = [
      { domain: '.example.com', name: 'a' },
      { domain: 'www.example.com', name: 'b' },
      { domain: 'evil-example.com', name: 'c' },
      { domain: 'other.test', name: 'd' },
    ];
    const { kept, counts } = keepRequiredCookies(cookies, required);
    expect(kept.map((c) => c.name)).toEqual(['a', 'b']);
    expect(counts).toEqual({ 'example.com': 2, 'shop.test': 0 });
  });
});

let server: TestServer;
let workers: RunWorkers;
/** The service the connector syncs from: answers 401 unless the session cookie is the live one. */
let service: Server;
let serviceUrl: string;
let liveSession = 'sess-value-0123456789';
const serviceSaw: string[] = [];

const SECRET_A = 'sess-value-0123456789';
const SECRET_B = 'csrf-value-abcdefghij';
const OTHER = 'other-domain-value-zzzz';
const ROTATED = 'rotated-session-value-42';

/** The service's URL is the definition's default: a host the definition names, where the session may go. */
const connector = (serviceDefault: string) => `
import { createHttpClient, defineConnector, log } from '@svc/connector-sdk';
export default defineConnector({
  key: 'session-site', name: 'Session site', version: '1.0.0',
  authSchema: { methods: [{ type: 'browser', capture: 'cli', requiredDomains: ['example.test'] }] },
  optionsSchema: { type: 'object', properties: { serviceUrl: { type: 'string', default: '${serviceDefault}' }, rotate: { type: 'boolean' } } },
  feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    const cookies = ctx.sessionState?.cookies ?? [];
    // A careless connector logs the whole session: the values must not reach the run's log.
    log.info('got the session', { cookies, header: cookies.map((c) => c.name + '=' + c.value).join('; ') });
    const http = createHttpClient({ baseUrl: ctx.config.serviceUrl });
    await http.request('GET', '/me', { headers: { cookie: cookies.map((c) => c.name + '=' + c.value).join('; ') } });
    return {
      events: [{ origin_id: 'seen-' + Date.now(), payload_text: 'session', occurred_at: '2026-01-01T00:00:00Z', metadata: { cookies } }],
      checkpoint: null,
      auth_update: ctx.config.rotate
        ? { cookies: [...cookies.filter((c) => c.name !== 'sid'), { ...cookies.find((c) => c.name === 'sid'), value: '${ROTATED}' },
            { name: 'stray', value: 'stray-value-xyz', domain: 'other.test', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' }] }
        : null,
    };
  } } },
  actions: { names: { key: 'names', name: 'Cookie names', requiresApproval: false, async execute(ctx) {
    return { success: true, output: { names: (ctx.sessionState?.cookies ?? []).map((c) => c.name + '@' + c.domain) } };
  } } },
});`;

/** A fake DevTools endpoint on 127.0.0.2, which the test server's SVC_EGRESS_ALLOW (127.0.0.1) does not list. */
let devtools: Server;
const devtoolsSockets: Socket[] = [];
let devtoolsUrl: string;

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  service = createServer((request, response) => {
    const cookie = request.headers.cookie ?? '';
    serviceSaw.push(cookie);
    response.statusCode = cookie.includes(`sid=${liveSession}`)
      ? 200
      : cookie.includes('sid=forbidden')
        ? 403
        : 401;
    response.end('{}');
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => service.once('listening', resolve));
  serviceUrl = `http://127.0.0.1:${(service.address() as { port: number }).port}`;
  devtools = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ webSocketDebuggerUrl: 'ws://127.0.0.2/devtools/browser/x' }));
  });
  devtools.on('connection', (socket) => devtoolsSockets.push(socket));
  devtools.listen(0, '127.0.0.2');
  await new Promise((resolve) => devtools.once('listening', resolve));
  devtoolsUrl = `http://127.0.0.2:${(devtools.address() as { port: number }).port}`;
  const installed = await server.call('POST', '/api/default/connectors', {
    body: { source: connector(serviceUrl) },
  });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  workers = await startTestRunWorkers(server, { limits: { timeoutMs: 20_000, memoryMb: 256 } });
}, 60_000);

afterAll(async () => {
  await workers?.close(1000);
  service?.close();
  devtools?.close();
});

async function connect(config: Record<string, unknown>) {
  const res = await server.call('POST', '/api/default/connections', {
    body: { connectorKey: 'session-site', config },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  // Not the scheduler's own run: the feed is made due far in the future.
  await server.pool.query(
    `UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE connection_id = $1`,
    [res.body.connection.id],
  );
  return { connectionId: String(res.body.connection.id), feedId: String(res.body.feeds[0].id) };
}

async function sync(feedId: string) {
  const started = await server.call('POST', `/api/default/feeds/${feedId}/sync`);
  expect(started.status, JSON.stringify(started.body)).toBeLessThan(300);
  const runId = started.body.run.id;
  for (let i = 0; i < 400; i++) {
    const { body } = await server.call('GET', `/api/default/runs/${runId}`);
    if (!['pending', 'running'].includes(body.run.status)) return body.run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} did not end`);
}

const cookie = (name: string, value: string, domain: string) => ({
  name,
  value,
  domain,
  path: '/',
  expires: -1,
  httpOnly: true,
  secure: true,
  sameSite: 'Lax' as const,
});

const upload = (connectionId: string, cookies: unknown[]) =>
  server.call('POST', `/api/default/connections/${connectionId}/browser-session`, { body: { cookies } });

describe('POST /connections/:id/browser-session', () => {
  it("keeps the required domains' cookies sealed; answers counts, never names or values", async () => {
    const { connectionId } = await connect({ serviceUrl });
    const res = await upload(connectionId, [
      cookie('sid', SECRET_A, '.example.test'),
      cookie('csrf', SECRET_B, 'www.example.test'),
      cookie('sid', OTHER, 'evil-example.test'),
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.session).toMatchObject({ cookies: 2, domains: [{ domain: 'example.test', cookies: 2 }] });
    expect(res.body.connection).toMatchObject({ status: 'active', errorMessage: null });
    const text = JSON.stringify(res.body);
    for (const secret of [SECRET_A, SECRET_B, OTHER, 'csrf']) expect(text).not.toContain(secret);
    for (const path of [`/api/default/connections/${connectionId}`, '/api/default/connections']) {
      const got = JSON.stringify((await server.call('GET', path)).body);
      for (const secret of [SECRET_A, SECRET_B]) expect(got).not.toContain(secret);
    }
    const facts = await server.call('GET', `/api/default/connections/${connectionId}/browser-session`);
    expect(facts.body.session).toEqual({
      capturedAt: res.body.session.capturedAt,
      cookies: 2,
      domains: [{ domain: 'example.test', cookies: 2 }],
    });
    expect(JSON.stringify(facts.body)).not.toContain(SECRET_A);
    // At rest: sealed, not JSON a database reader can read.
    const { rows } = await server.pool.query(
      'SELECT session_state, session_cookie_counts, session_captured_at FROM connections WHERE id = $1',
      [connectionId],
    );
    expect(rows[0].session_state.toString('latin1')).not.toContain(SECRET_A);
    expect(rows[0].session_cookie_counts).toEqual({ 'example.test': 2 });
    expect(rows[0].session_captured_at).toBeInstanceOf(Date);
  });

  it('refuses a session with no cookie of a required domain, saying which and to log in first', async () => {
    const { connectionId } = await connect({ serviceUrl });
    const res = await upload(connectionId, [cookie('sid', OTHER, 'evil-example.test')]);
    expect(res.status).toBe(422);
    const facts = await server.call('GET', `/api/default/connections/${connectionId}/browser-session`);
    expect(facts.body).toEqual({ session: null });
    expect(res.body.detail).toMatch(/no cookie of example\.test was captured: log in/);
    expect(JSON.stringify(res.body)).not.toContain(OTHER);
  });

  it('refuses a DevTools URL at an internal address the egress policy does not allow, before connecting', async () => {
    const { connectionId } = await connect({ serviceUrl });
    const before = devtoolsSockets.length;
    const res = await server.call('POST', `/api/default/connections/${connectionId}/browser-session`, {
      body: { cdpUrl: devtoolsUrl },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.code).toBe('egress_refused');
    expect(res.body.detail).toMatch(/SVC_EGRESS_ALLOW/);
    // Also as ws://, and with the default address of the method (127.0.0.1:9222 is allowed here, but
    // nothing listens there: an answer that says so, not a crash).
    const ws = await server.call('POST', `/api/default/connections/${connectionId}/browser-session`, {
      body: { cdpUrl: devtoolsUrl.replace('http:', 'ws:') },
    });
    expect(ws.body.code).toBe('egress_refused');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(devtoolsSockets.length).toBe(before);
  });

  it('says so when nothing answers at the DevTools URL, or it is not one', async () => {
    const { connectionId } = await connect({ serviceUrl });
    const res = await server.call('POST', `/api/default/connections/${connectionId}/browser-session`, {
      body: { cdpUrl: 'http://127.0.0.1:1' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(
      /could not read the browser's cookies at http:\/\/127\.0\.0\.1:1.*remote-debugging-port/,
    );
    const bad = await server.call('POST', `/api/default/connections/${connectionId}/browser-session`, {
      body: { cdpUrl: 'file:///etc/passwd' },
    });
    expect(bad.status).toBe(422);
    const both = await server.call('POST', `/api/default/connections/${connectionId}/browser-session`, {
      body: { cdpUrl: 'http://127.0.0.1:1', cookies: [] },
    });
    expect(both.status).toBe(400);
  });

  it('is for browser connectors only, and for connections of the org', async () => {
    expect(
      (await server.call('POST', '/api/default/connectors', { body: { package: 'rss' } })).status,
    ).toBeLessThan(300);
    const rss = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'rss' } });
    const res = await upload(String(rss.body.connection.id), [cookie('sid', SECRET_A, 'example.test')]);
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/does not connect with a browser session/);
    expect((await upload('999999', [cookie('sid', SECRET_A, 'example.test')])).status).toBe(404);
    const readToken = await server.call('POST', '/api/default/tokens', {
      body: { name: 'reader', scopes: ['read'] },
    });
    const refused = await server.call(
      'POST',
      `/api/default/connections/${rss.body.connection.id}/browser-session`,
      {
        body: { cookies: [] },
        token: readToken.body.secret,
      },
    );
    expect(refused.status).toBe(403);
  });
});

describe('a sync of a browser connection', () => {
  it('gets the session on ctx.sessionState; its log holds no cookie value', async () => {
    liveSession = SECRET_A;
    const { connectionId, feedId } = await connect({ serviceUrl });
    expect(
      (
        await upload(connectionId, [
          cookie('sid', SECRET_A, '.example.test'),
          cookie('other', OTHER, 'other.test'),
        ])
      ).status,
    ).toBe(200);
    const run = await sync(feedId);
    expect(run.status, run.errorMessage).toBe('completed');
    const { rows } = await server.pool.query('SELECT metadata FROM events WHERE feed_id = $1', [feedId]);
    expect(rows[0].metadata.cookies).toEqual([
      {
        name: 'sid',
        value: SECRET_A,
        domain: '.example.test',
        path: '/',
        expires: -1,
        httpOnly: true,
        secure: true,
        sameSite: 'Lax',
      },
    ]);
    expect(serviceSaw.at(-1)).toBe(`sid=${SECRET_A}`);
    const logs = await server.call('GET', `/api/default/runs/${run.id}/logs`);
    expect(logs.status).toBe(200);
    const text = JSON.stringify(logs.body);
    expect(text).toContain('got the session');
    expect(text).not.toContain(SECRET_A);
    const stored = await server.pool.query('SELECT msg, fields FROM run_logs WHERE run_id = $1', [run.id]);
    expect(JSON.stringify(stored.rows)).not.toContain(SECRET_A);
  }, 60_000);

  it("keeps the cookies a sync rotated (auth_update.cookies), the required domains' only", async () => {
    liveSession = SECRET_A;
    const { connectionId, feedId } = await connect({ serviceUrl, rotate: true });
    expect((await upload(connectionId, [cookie('sid', SECRET_A, '.example.test')])).status).toBe(200);
    expect((await sync(feedId)).status).toBe('completed');
    liveSession = ROTATED;
    const next = await sync(feedId);
    expect(next.status, next.errorMessage).toBe('completed');
    expect(serviceSaw.at(-1)).toBe(`sid=${ROTATED}`);
    const { rows } = await server.pool.query(
      'SELECT metadata FROM events WHERE feed_id = $1 ORDER BY id DESC LIMIT 1',
      [feedId],
    );
    expect(rows[0].metadata.cookies.map((c: { domain: string }) => c.domain)).toEqual(['.example.test']);
    // Not merged into the credentials: the connection still holds none.
    const connection = await server.call('GET', `/api/default/connections/${connectionId}`);
    expect(connection.body.connection.credentialKeys).toEqual([]);
  }, 60_000);

  it('puts the connection in error when the service refuses the session (401), saying how to capture it again', async () => {
    liveSession = 'a-session-the-person-logged-out-of';
    const { connectionId, feedId } = await connect({ serviceUrl });
    expect((await upload(connectionId, [cookie('sid', SECRET_A, '.example.test')])).status).toBe(200);
    const run = await sync(feedId);
    expect(run.status).toBe('failed');
    const broken = await server.call('GET', `/api/default/connections/${connectionId}`);
    expect(broken.body.connection.status).toBe('error');
    expect(broken.body.connection.errorMessage).toMatch(/refused its browser session/);
    expect(broken.body.connection.errorMessage).toContain(
      `svc memory browser-auth --connection ${connectionId}`,
    );
    expect(broken.body.connection.errorMessage).toContain(`/connections/${connectionId}/browser-session`);
    expect(JSON.stringify(broken.body)).not.toContain(SECRET_A);
    // A new capture brings it back.
    liveSession = SECRET_B;
    const again = await upload(connectionId, [cookie('sid', SECRET_B, 'example.test')]);
    expect(again.body.connection).toMatchObject({ status: 'active', errorMessage: null });
    expect((await sync(feedId)).status).toBe('completed');
  }, 60_000);

  it('carries the session to its domains only: a config pointed elsewhere fails the run, sending nothing', async () => {
    liveSession = SECRET_A;
    const elsewhere = serviceUrl.replace('127.0.0.1', 'localhost');
    const { connectionId, feedId } = await connect({ serviceUrl: elsewhere });
    expect((await upload(connectionId, [cookie('sid', SECRET_A, '.example.test')])).status).toBe(200);
    const seen = serviceSaw.length;
    const run = await sync(feedId);
    expect(run.status).toBe('failed');
    expect(run.errorMessage).toMatch(
      /the config points at localhost, outside the domains of this connection's browser session \(example\.test\)/,
    );
    expect(serviceSaw.length).toBe(seen);
    // Not the service's refusal: the connection stays active.
    const connection = await server.call('GET', `/api/default/connections/${connectionId}`);
    expect(connection.body.connection.status).toBe('active');
  }, 60_000);

  it('puts the connection in error on a 403 too, which for a browser session means the same', async () => {
    liveSession = SECRET_A;
    const { connectionId, feedId } = await connect({ serviceUrl });
    expect(
      (await upload(connectionId, [cookie('sid', 'forbidden-session-value', '.example.test')])).status,
    ).toBe(200);
    const run = await sync(feedId);
    expect(run.status).toBe('failed');
    expect(run.errorMessage).toMatch(/403/);
    const broken = await server.call('GET', `/api/default/connections/${connectionId}`);
    expect(broken.body.connection).toMatchObject({
      status: 'error',
      errorMessage: expect.stringContaining(`svc memory browser-auth --connection ${connectionId}`),
    });
  }, 60_000);

  it('reaches actions too, on their ctx.sessionState', async () => {
    const { connectionId } = await connect({ serviceUrl });
    expect((await upload(connectionId, [cookie('sid', SECRET_A, '.example.test')])).status).toBe(200);
    const started = await server.call('POST', `/api/default/connections/${connectionId}/actions/names`, {
      body: { input: {} },
    });
    expect(started.status, JSON.stringify(started.body)).toBeLessThan(300);
    let run = started.body.run;
    for (let i = 0; i < 400 && ['pending', 'running'].includes(run.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = (await server.call('GET', `/api/default/runs/${run.id}`)).body.run;
    }
    expect(run.status, run.errorMessage).toBe('completed');
    expect(run.actionOutput).toEqual({ names: ['sid@.example.test'] });
  }, 60_000);
});
