import { describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestServer } from '../../test/harness.js';
import { hashToken } from '../auth/tokens.js';
import { findSession, passwordCheck } from './store.js';

/** A browser's view of one console session: its cookie and CSRF token, sent as a browser would. */
interface Browser {
  cookie: string;
  csrf: string;
  setCookie: string;
}

describe('console sessions', async () => {
  const server = await startTestServer({ authFailuresPerMinute: 5 });
  await server.call('POST', '/api/orgs', { body: { slug: 'acme', name: 'Acme' } });

  const signIn = async (credential: string, org?: string) => {
    const response = await fetch(`${server.url}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credential, ...(org ? { org } : {}) }),
    });
    const body = (await response.json()) as any;
    const setCookie = response.headers.get('set-cookie') ?? '';
    const cookie = setCookie.split(';')[0] ?? '';
    return { status: response.status, body, browser: { cookie, csrf: body.session?.csrfToken, setCookie } };
  };

  const send = async (
    browser: Browser,
    method: string,
    path: string,
    options: { body?: unknown; csrf?: string | null; origin?: string } = {},
  ) => {
    const headers: Record<string, string> = { cookie: browser.cookie };
    const csrf = options.csrf === undefined ? browser.csrf : options.csrf;
    if (csrf !== null && method !== 'GET') headers['x-csrf-token'] = csrf;
    if (options.origin) headers.origin = options.origin;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };

  const token = async (scopes: string[], org = 'default') => {
    const created = await server.call('POST', `/api/${org}/tokens`, {
      body: { name: `t-${Math.random().toString(36).slice(2)}`, scopes },
    });
    return created.body as { secret: string; token: { id: string } };
  };

  it('exchanges the admin password for an HttpOnly, SameSite=Strict cookie and a CSRF token', async () => {
    const { status, body, browser } = await signIn(ADMIN_PASSWORD);
    expect(status).toBe(201);
    expect(browser.setCookie).toMatch(/^svc_session=[A-Za-z0-9_-]{43};/);
    expect(browser.setCookie).toMatch(/HttpOnly/);
    expect(browser.setCookie).toMatch(/SameSite=Strict/);
    expect(browser.setCookie).toMatch(/Path=\//);
    expect(browser.setCookie).toMatch(/Max-Age=43200/);
    expect(browser.setCookie).not.toMatch(/Secure/); // plain HTTP on 127.0.0.1
    expect(body.session).toMatchObject({ kind: 'admin_password', org: 'default', token: null });
    expect(body.session.scopes).toEqual(['admin', 'messages', 'read', 'write']);
    // The answer never carries the cookie's value.
    expect(JSON.stringify(body)).not.toContain(browser.cookie.split('=')[1]);

    const again = await send(browser, 'GET', '/api/session');
    expect(again.status).toBe(200);
    expect(again.body.session.csrfToken).toBe(browser.csrf);
    expect((await send(browser, 'GET', '/api/acme/agents')).status).toBe(200);
  });

  it('refuses a change without the CSRF token or from another origin, and changes nothing', async () => {
    const { browser } = await signIn(ADMIN_PASSWORD);
    const agent = { agentId: 'csrf-target', name: 'Target' };
    const missing = await send(browser, 'POST', '/api/default/agents', { body: agent, csrf: null });
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe('csrf_failed');
    const wrong = await send(browser, 'POST', '/api/default/agents', { body: agent, csrf: 'x'.repeat(43) });
    expect(wrong.body.code).toBe('csrf_failed');
    const foreign = await send(browser, 'POST', '/api/default/agents', {
      body: agent,
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('csrf_failed');
    expect((await server.call('GET', '/api/default/agents/csrf-target')).status).toBe(404);

    const ok = await send(browser, 'POST', '/api/default/agents', {
      body: agent,
      origin: new URL(server.url).origin,
    });
    expect(ok.status).toBe(201);
  });

  it("gives a token's session exactly its token's scopes, in its own org only", async () => {
    const read = await token(['read']);
    const { status, body, browser } = await signIn(read.secret);
    expect(status).toBe(201);
    expect(body.session).toMatchObject({ kind: 'token', org: 'default', scopes: ['read'] });
    expect((await send(browser, 'GET', '/api/default/agents')).status).toBe(200);
    const write = await send(browser, 'POST', '/api/default/agents', {
      body: { agentId: 'nope', name: 'N' },
    });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('forbidden');
    expect((await send(browser, 'GET', '/api/acme/agents')).status).toBe(404);
    // Nor may it move to another org, or sign in to one.
    expect((await send(browser, 'PATCH', '/api/session', { body: { org: 'acme' } })).status).toBe(403);
    expect((await signIn(read.secret, 'acme')).status).toBe(404);
  });

  it('ends a session at sign-out, and with its token', async () => {
    const { browser } = await signIn(ADMIN_PASSWORD);
    const out = await send(browser, 'DELETE', '/api/session');
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/svc_session=;.*Max-Age=0/);
    const after = await send(browser, 'GET', '/api/default/agents');
    expect(after.status).toBe(401);
    expect(after.body.detail).toMatch(/sign in again/);

    const write = await token(['write']);
    const tokenSession = (await signIn(write.secret)).browser;
    expect((await send(tokenSession, 'GET', '/api/default/agents')).status).toBe(200);
    await server.call('DELETE', `/api/default/tokens/${write.token.id}`);
    expect((await send(tokenSession, 'GET', '/api/default/agents')).status).toBe(401);
  });

  it('moves an admin session between orgs: the org-less message routes follow it', async () => {
    await server.call('POST', '/api/acme/agents', { body: { agentId: 'acme-only', name: 'Acme only' } });
    const { browser } = await signIn(ADMIN_PASSWORD);
    const path = '/api/v1/agents/acme-only/messages';
    const message = { body: { platform: 'api', content: 'hello' } };
    expect((await send(browser, 'POST', path, message)).status).toBe(404);
    const moved = await send(browser, 'PATCH', '/api/session', { body: { org: 'acme' } });
    expect(moved.status).toBe(200);
    expect(moved.body.session.org).toBe('acme');
    expect((await send(browser, 'POST', path, message)).status).toBe(202);
    expect((await send(browser, 'PATCH', '/api/session', { body: { org: 'nowhere' } })).status).toBe(404);
    // A sign-in may pick the org at once.
    const direct = await signIn(ADMIN_PASSWORD, 'acme');
    expect(direct.body.session.org).toBe('acme');
  });

  it('ends admin sessions when the admin password is no longer the one they were opened with', async () => {
    const { browser } = await signIn(ADMIN_PASSWORD);
    const secret = browser.cookie.slice('svc_session='.length);
    const key = server.options.encryptionKey;
    expect(
      await findSession(server.pool, secret, passwordCheck(key, hashToken(ADMIN_PASSWORD))),
    ).not.toBeNull();
    expect(
      await findSession(server.pool, secret, passwordCheck(key, hashToken('a-new-password-9876543210'))),
    ).toBeNull();
    expect(await findSession(server.pool, secret, null)).toBeNull();
  });

  it('prefers a bearer value to a cookie, and answers GET /api/session only for a session', async () => {
    const response = await fetch(`${server.url}/api/session`, {
      headers: { authorization: `Bearer ${ADMIN_PASSWORD}`, cookie: 'svc_session=forged' },
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).code).toBe('not_found');
  });
  // Last: it leaves this address throttled.
  it('refuses bad credentials with no cookie, against the same budget as bearer values', async () => {
    const bad = await signIn('not-the-password');
    expect(bad.status).toBe(401);
    expect(bad.browser.setCookie).toBe('');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await signIn(`wrong-${i}`)).status);
    expect(statuses).toContain(429);
    // A bearer guess from the same address is now throttled too.
    const bearer = await server.call('GET', '/api/whoami', { token: 'still-wrong' });
    expect(bearer.status).toBe(429);
  });
});

describe('console sessions behind HTTPS', async () => {
  const server = await startTestServer({ publicUrl: 'https://svc.example.com' });
  it('marks the cookie Secure', async () => {
    const response = await fetch(`${server.url}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credential: ADMIN_PASSWORD }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('set-cookie')).toMatch(/; Secure/);
  });
});
