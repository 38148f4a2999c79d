import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOAuth, type FakeOAuthSettings, startFakeOAuth } from '../../test/fakes/oauth.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { startTestRunWorkers } from '../../test/runtime.js';
import { until } from '../../test/until.js';
import { parseEgressAllow } from '../egress/policy.js';
import { requestSync } from '../runs/queue.js';
import type { RunWorkers } from '../runs/worker.js';
import { oauthFetch } from './egress.js';
import { freshToken } from './refresh.js';

/**
 * OAuth connections end to end (DESIGN.md section 10, "Auth flows"): a person is sent to a fake
 * provider (a real HTTP server speaking RFC 6749 and PKCE), comes back to the public callback, and
 * the connection's syncs use the token, renewed before it expires and after a 401, once across
 * processes; refusals of every kind say what to do; no token or secret is ever shown.
 */

let server: TestServer;
let workers: RunWorkers;
let orgId: string;
const logged: string[] = [];
/** Every answer the tests read, for the canary at the end. */
const answers: string[] = [];
const fakes: FakeOAuth[] = [];

const sink = new Writable({
  write(chunk, _encoding, done) {
    logged.push(String(chunk));
    done();
  },
});

async function call(method: string, path: string, options: Parameters<TestServer['call']>[2] = {}) {
  const answer = await server.call(method, path, options);
  answers.push(JSON.stringify(answer.body));
  return answer;
}

/** A connector of provider `provider` whose oauth method points at `fake`, installed from source. */
async function installConnector(
  key: string,
  fake: FakeOAuth,
  method: Record<string, unknown> = {},
): Promise<void> {
  const source = `
import { createHttpClient, defineConnector } from '@svc/connector-sdk';
const items = (feed) => async (ctx) => {
  const http = createHttpClient({ baseUrl: '${fake.url}', headers: { authorization: 'Bearer ' + ctx.credentials.accessToken } });
  const { data } = await http.get('/api/items');
  // Told to (by its config), it takes its time and rotates the token itself, as some connectors do.
  if (ctx.config.rotateAfterMs) await new Promise((resolve) => setTimeout(resolve, ctx.config.rotateAfterMs));
  return {
    events: data.map((item) => ({ origin_id: '${key}-' + feed + '-' + item.id, payload_text: item.title, occurred_at: new Date(Date.UTC(2026, 0, 1)) })),
    checkpoint: null,
    ...(ctx.config.rotateAfterMs ? { auth_update: { accessToken: 'rotated-by-the-connector' } } : {}),
  };
};
export default defineConnector({
  key: '${key}', name: 'Fake hub (${key})', version: '1.0.0',
  authSchema: { methods: [${JSON.stringify({
    type: 'oauth',
    provider: `hub-${key}`,
    requiredScopes: ['read'],
    optionalScopes: ['private', 'write'],
    authorizationUrl: `${fake.url}/authorize`,
    tokenUrl: `${fake.url}/token`,
    userinfoUrl: `${fake.url}/userinfo`,
    ...method,
  })}] },
  feeds: {
    items: { key: 'items', name: 'Items', requiredScopes: ['read'], sync: items('items') },
    secrets: { key: 'secrets', name: 'Private items', requiredScopes: ['private'], sync: items('secrets') },
  },
});`;
  const installed = await call('POST', '/api/default/connectors', { body: { source } });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  const stem = `HUB_${key.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
  await call('PUT', `/api/default/secrets/${stem}_CLIENT_ID`, { body: { value: fake.settings.clientId } });
  await call('PUT', `/api/default/secrets/${stem}_CLIENT_SECRET`, {
    body: { value: fake.settings.clientSecret },
  });
}

async function fake(settings: Partial<FakeOAuthSettings> = {}) {
  const started = await startFakeOAuth(settings);
  fakes.push(started);
  return started;
}

async function newConnection(key: string, org = 'default') {
  const made = await call('POST', `/api/${org}/connections`, { body: { connectorKey: key } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  // Its syncs run when a test asks, not when the scheduler finds them due.
  await server.pool.query(
    `UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE connection_id = $1`,
    [made.body.connection.id],
  );
  return made.body as {
    connection: { id: number; status: string; errorMessage: string };
    feeds: { id: number; feedKey: string }[];
  };
}

/** The whole flow as a person makes it: start, the provider's consent, back to the callback. */
async function connect(
  connectionId: number,
  fakeServer: FakeOAuth,
  body: Record<string, unknown> = {},
  org = 'default',
) {
  const started = await call('POST', `/api/${org}/connections/${connectionId}/oauth/start`, { body });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const back = await fakeServer.consent(started.body.authorizationUrl);
  const landed = await fetch(back);
  return {
    started: started.body,
    back,
    page: { status: landed.status, html: await landed.text(), headers: landed.headers },
  };
}

async function syncAndWait(feedId: number) {
  const requested = await requestSync(server.pool, orgId, String(feedId));
  if (!requested) throw new Error('no run');
  for (let i = 0; i < 400; i++) {
    const { body } = await call('GET', `/api/default/runs/${requested.id}`);
    if (!['pending', 'running'].includes(body.run.status)) return body.run;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${requested.id} did not end`);
}

const bearers = (fakeServer: FakeOAuth) =>
  fakeServer.calls.filter((c) => c.path === '/api/items').map((c) => c.headers.authorization?.slice(7));

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true, logger: pino({ level: 'trace' }, sink) });
  orgId = String((await server.pool.query(`SELECT id FROM orgs WHERE slug = 'default'`)).rows[0].id);
  // The chores (scheduling, reaping, renewing tokens due) run when a test says.
  workers = await startTestRunWorkers(server, { scheduleMs: 3_600_000 });
}, 60_000);

afterAll(async () => {
  await workers?.close(1000);
  await Promise.all(fakes.map((f) => f.close()));
});

describe('connecting with OAuth', () => {
  it.each([
    ['client_secret_post', true],
    ['client_secret_basic', false],
    ['none', true],
  ] as const)(
    'with %s (PKCE %s): the person consents, lands on a page that says so, and syncs use the token',
    async (auth, pkce) => {
      const key = `hub-${auth.replaceAll('_', '-')}`;
      const provider = await fake({ tokenEndpointAuthMethod: auth, requirePkce: pkce });
      await installConnector(key, provider, { tokenEndpointAuthMethod: auth, usePkce: pkce });
      const made = await newConnection(key);
      // Until a person consents, it cannot run, and says how to connect it.
      expect(made.connection.status).toBe('error');
      expect(made.connection.errorMessage).toContain(`svc connection connect ${made.connection.id}`);

      const { started, page } = await connect(made.connection.id, provider);
      const asked = new URL(started.authorizationUrl);
      expect(asked.searchParams.get('scope')).toBe('read private');
      expect(asked.searchParams.get('code_challenge_method')).toBe(pkce ? 'S256' : null);
      expect(started.redirectUri).toBe(`${server.url}/api/v1/oauth/callback`);
      expect(page.status).toBe(200);
      expect(page.html).toContain(`Connected to Fake hub (${key})`);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");

      const attempt = await call(
        'GET',
        `/api/default/connections/${made.connection.id}/oauth/attempts/${started.attemptId}`,
      );
      expect(attempt.body.attempt).toMatchObject({
        status: 'connected',
        message: 'connected as Octo Person',
      });
      const connection = (await call('GET', `/api/default/connections/${made.connection.id}`)).body
        .connection;
      expect(connection).toMatchObject({
        status: 'active',
        accountId: '4242',
        displayName: 'Octo Person',
        errorMessage: null,
      });
      expect(connection.grantedScopes).toEqual(['read', 'private']);
      // The exchange authenticated as the method says, with the verifier when PKCE is on.
      const exchange = provider.tokenCalls('authorization_code')[0];
      expect(exchange?.status).toBe(200);
      expect(exchange?.form.code_verifier !== undefined).toBe(pkce);

      const items = made.feeds.find((f) => f.feedKey === 'items');
      const run = await syncAndWait(items?.id ?? 0);
      expect(run.status, run.errorMessage).toBe('completed');
      expect(run.itemsCollected).toBe(2);
      expect(bearers(provider)).toEqual([provider.issued()[0]]);
    },
  );

  it('refuses to send anyone to the provider while the OAuth client is not set up, naming the secret to set', async () => {
    const provider = await fake();
    await installConnector('hub-unset', provider);
    await call('DELETE', '/api/default/secrets/HUB_HUB_UNSET_CLIENT_SECRET');
    const made = await newConnection('hub-unset');
    const started = await call('POST', `/api/default/connections/${made.connection.id}/oauth/start`, {
      body: {},
    });
    expect(started.status).toBe(422);
    expect(started.body.code).toBe('oauth_client_missing');
    expect(started.body.detail).toContain('svc secrets set HUB_HUB_UNSET_CLIENT_SECRET');
    expect(provider.calls).toEqual([]);
  });

  it('says so when the person declines, and leaves the connection as it was', async () => {
    const provider = await fake({ deny: true });
    await installConnector('hub-deny', provider);
    const made = await newConnection('hub-deny');
    const { started, page } = await connect(made.connection.id, provider);
    expect(page.status).toBe(200);
    expect(page.html).toContain('consent was declined');
    expect(page.html).toContain(`svc connection connect ${made.connection.id}`);
    const attempt = await call(
      'GET',
      `/api/default/connections/${made.connection.id}/oauth/attempts/${started.attemptId}`,
    );
    expect(attempt.body.attempt.status).toBe('denied');
    expect((await call('GET', `/api/default/connections/${made.connection.id}`)).body.connection.status).toBe(
      'error',
    );
    expect(provider.tokenCalls()).toEqual([]);
  });

  it('takes a state once, for 10 minutes, and only one it issued', async () => {
    const provider = await fake();
    await installConnector('hub-state', provider);
    const made = await newConnection('hub-state');
    const { back, page } = await connect(made.connection.id, provider);
    expect(page.html).toContain('Connected to');
    // The same redirect again (a reload, or someone who saw the URL): refused, nothing exchanged.
    const again = await fetch(back);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('This link was already used');
    expect(provider.tokenCalls('authorization_code')).toHaveLength(1);

    // A state this server never issued.
    const forged = new URL(back);
    forged.searchParams.set('state', 'forged-state-value');
    const refused = await fetch(forged);
    expect(refused.status).toBe(200);
    expect(await refused.text()).toContain('never issued');

    // An expired one.
    const started = await call('POST', `/api/default/connections/${made.connection.id}/oauth/start`, {
      body: {},
    });
    await server.pool.query(
      `UPDATE oauth_attempts SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [started.body.attemptId],
    );
    const late = await fetch(await provider.consent(started.body.authorizationUrl));
    expect(late.status).toBe(200);
    expect(await late.text()).toContain('This link expired');
    expect(provider.tokenCalls('authorization_code')).toHaveLength(1);
  });

  it("binds a state to its org and connection: another org's attempt connects only its own", async () => {
    const provider = await fake();
    await installConnector('hub-orgs', provider);
    expect((await call('POST', '/api/orgs', { body: { slug: 'other-oauth', name: 'Other' } })).status).toBe(
      201,
    );
    const source = (
      await server.pool.query(`SELECT source FROM connector_definitions WHERE connector_key = 'hub-orgs'`)
    ).rows[0].source;
    expect((await call('POST', '/api/other-oauth/connectors', { body: { source } })).status).toBe(201);
    await call('PUT', '/api/other-oauth/secrets/HUB_HUB_ORGS_CLIENT_ID', {
      body: { value: provider.settings.clientId },
    });
    await call('PUT', '/api/other-oauth/secrets/HUB_HUB_ORGS_CLIENT_SECRET', {
      body: { value: provider.settings.clientSecret },
    });
    const mine = await newConnection('hub-orgs');
    const theirs = await newConnection('hub-orgs', 'other-oauth');
    const { started, page } = await connect(theirs.connection.id, provider, {}, 'other-oauth');
    expect(page.html).toContain('Connected to');
    // Their attempt is not ours to read, and our connection is untouched.
    expect(
      (
        await call(
          'GET',
          `/api/default/connections/${theirs.connection.id}/oauth/attempts/${started.attemptId}`,
        )
      ).status,
    ).toBe(404);
    expect((await call('GET', `/api/default/connections/${mine.connection.id}`)).body.connection.status).toBe(
      'error',
    );
    expect(
      (await call('GET', `/api/other-oauth/connections/${theirs.connection.id}`)).body.connection.status,
    ).toBe('active');
  });
});

describe('scopes', () => {
  it('pause a feed whose scopes were not granted, naming them, until a reconnect grants them', async () => {
    const provider = await fake({ grantOnly: ['read'] });
    await installConnector('hub-scopes', provider);
    const made = await newConnection('hub-scopes');
    const { page } = await connect(made.connection.id, provider);
    expect(page.html).toContain('Not granted: private');
    let feeds = (await call('GET', `/api/default/connections/${made.connection.id}/feeds`)).body.feeds;
    const paused = feeds.find((f: { feedKey: string }) => f.feedKey === 'secrets');
    expect(paused.status).toBe('paused');
    expect(paused.lastError).toContain('needs the OAuth scope private');
    expect(paused.lastError).toContain(`svc connection connect ${made.connection.id} --scope private`);
    expect(feeds.find((f: { feedKey: string }) => f.feedKey === 'items').status).toBe('active');

    provider.settings.grantOnly = undefined;
    await connect(made.connection.id, provider);
    feeds = (await call('GET', `/api/default/connections/${made.connection.id}/feeds`)).body.feeds;
    expect(feeds.find((f: { feedKey: string }) => f.feedKey === 'secrets')).toMatchObject({
      status: 'active',
      lastError: null,
    });
  });

  it('asks for an optional scope when told, and for no scope the connector does not name', async () => {
    const provider = await fake();
    await installConnector('hub-optional', provider);
    const made = await newConnection('hub-optional');
    const started = await call('POST', `/api/default/connections/${made.connection.id}/oauth/start`, {
      body: { scopes: ['write'] },
    });
    expect(new URL(started.body.authorizationUrl).searchParams.get('scope')).toBe('read private write');
    const refused = await call('POST', `/api/default/connections/${made.connection.id}/oauth/start`, {
      body: { scopes: ['admin'] },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].message).toContain('"admin" is not one of its scopes');
  });
});

describe('refreshing tokens', () => {
  async function connected(
    key: string,
    settings: Partial<FakeOAuthSettings>,
    method: Record<string, unknown> = {},
  ) {
    const provider = await fake(settings);
    await installConnector(key, provider, method);
    const made = await newConnection(key);
    const { page } = await connect(made.connection.id, provider);
    expect(page.html).toContain('Connected to');
    // Renewed tokens live an hour: one renewal serves every run after it.
    provider.settings.expiresIn = 3600;
    // A 2-second token is due for renewal after half its life.
    const lifetime = settings.expiresIn ?? 3600;
    if (lifetime < 60) await new Promise((resolve) => setTimeout(resolve, lifetime * 500 + 100));
    const items = made.feeds.find((f) => f.feedKey === 'items')?.id ?? 0;
    return { provider, connectionId: made.connection.id, items };
  }

  it('renews a token close to its expiry before the run, and keeps the rotated refresh token', async () => {
    const { provider, items } = await connected('hub-expiring', { expiresIn: 2 });
    const run = await syncAndWait(items);
    expect(run.status, run.errorMessage).toBe('completed');
    const refreshes = provider.tokenCalls('refresh_token');
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]?.form.refresh_token).toBe(provider.issued()[1]);
    // The sync used the renewed token, which lives an hour: the next run renews nothing.
    expect(bearers(provider)).toEqual([provider.issued()[2]]);
    await syncAndWait(items);
    expect(provider.tokenCalls('refresh_token')).toHaveLength(1);
    // The provider rotated the refresh token (the first no longer works): the kept one is the new.
    provider.expire(provider.issued()[2] ?? '');
    expect((await syncAndWait(items)).status).toBe('completed');
    expect(provider.tokenCalls('refresh_token')[1]).toMatchObject({
      status: 200,
      form: { refresh_token: provider.issued()[3] },
    });
  });

  it('renews once after the service refuses the token (401), and the run goes on', async () => {
    const { provider, items } = await connected('hub-refused', {});
    provider.expire(provider.issued()[0] ?? '');
    const run = await syncAndWait(items);
    expect(run.status, run.errorMessage).toBe('completed');
    expect(provider.tokenCalls('refresh_token')).toHaveLength(1);
    expect(bearers(provider)).toEqual([provider.issued()[0], provider.issued()[2]]);
    const logs = (await call('GET', `/api/default/runs/${run.id}/logs`)).body.lines.map(
      (l: { msg: string }) => l.msg,
    );
    expect(logs.join('\n')).toContain('the service refused the OAuth token');
  });

  it('makes one token call when two processes need the same refresh at once', async () => {
    const { provider, connectionId } = await connected('hub-race', { expiresIn: 2, refreshDelayMs: 300 });
    const definition = (
      await server.pool.query(`SELECT definition FROM connector_definitions WHERE connector_key = 'hub-race'`)
    ).rows[0].definition;
    // Two processes: each its own database pool and HTTP client, as two `svc worker`s have.
    const second = await startTestServer({ databaseUrl: server.databaseUrl });
    const owner = { orgId, orgSlug: 'default', connectionId: String(connectionId), definition };
    const deps = (s: TestServer) => ({
      pool: s.pool,
      encryptionKey: s.options.encryptionKey,
      secrets: s.options.secrets,
      fetch: oauthFetch(parseEgressAllow('127.0.0.1')).fetch,
    });
    const [a, b] = await Promise.all([freshToken(deps(server), owner), freshToken(deps(second), owner)]);
    await second.close();
    expect(provider.tokenCalls('refresh_token')).toHaveLength(1);
    expect(a?.accessToken).toBe(provider.issued()[2]);
    expect(b?.accessToken).toBe(a?.accessToken);
  });

  it('keeps the connection when a renewal fails for a reason that may pass, while the token is good; says to reconnect once it is not', async () => {
    const { provider, connectionId, items } = await connected('hub-flaky', { expiresIn: 4 });
    provider.settings.refreshStatus = 503;
    const run = await syncAndWait(items);
    expect(run.status, run.errorMessage).toBe('completed');
    expect(bearers(provider)).toEqual([provider.issued()[0]]);
    const logs = (await call('GET', `/api/default/runs/${run.id}/logs`)).body.lines.map(
      (l: { msg: string }) => l.msg,
    );
    expect(logs.join('\n')).toContain('the token could not be renewed');
    expect((await call('GET', `/api/default/connections/${connectionId}`)).body.connection.status).toBe(
      'active',
    );

    // Expired, and the provider still down: now the connection says so.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const failed = await syncAndWait(items);
    expect(failed.status).toBe('failed');
    const connection = (await call('GET', `/api/default/connections/${connectionId}`)).body.connection;
    expect(connection.status).toBe('error');
    expect(connection.errorMessage).toContain(`reconnect it with \`svc connection connect ${connectionId}\``);
    expect(bearers(provider)).toHaveLength(1);
  });

  it('moves the connection to revoked when the provider answers invalid_grant, saying to reconnect and how', async () => {
    const { provider, connectionId, items } = await connected('hub-revoked', { expiresIn: 2 });
    provider.revokeGrants();
    const run = await syncAndWait(items);
    expect(run.status).toBe('failed');
    expect(run.errorMessage).toContain('invalid_grant');
    const connection = (await call('GET', `/api/default/connections/${connectionId}`)).body.connection;
    expect(connection.status).toBe('revoked');
    expect(connection.errorMessage).toContain(`reconnect it with \`svc connection connect ${connectionId}\``);
    expect(connection.credentialKeys).toEqual([]);
    // No sync is scheduled for it, and a reconnect brings it back.
    expect(bearers(provider)).toEqual([]);
    provider.settings.expiresIn = 3600;
    await connect(connectionId, provider);
    expect((await call('GET', `/api/default/connections/${connectionId}`)).body.connection.status).toBe(
      'active',
    );
    expect((await syncAndWait(items)).status).toBe('completed');
  });
});

describe('renewing tokens nobody is using', () => {
  it('renews a token when it is due without any sync, and shows a withdrawn grant on the connection at once', async () => {
    const provider = await fake({ expiresIn: 2 });
    await installConnector('hub-idle', provider);
    const made = await newConnection('hub-idle');
    await connect(made.connection.id, provider);
    // Workers whose chores run often: no sync is due, the token is renewed all the same, each
    // time at half its 2-second life (not at every chore).
    const chores = await startTestRunWorkers(server, { scheduleMs: 200 });
    try {
      await until('two renewals', () => provider.tokenCalls('refresh_token').length >= 2);
      expect(provider.tokenCalls('refresh_token').length).toBeLessThan(4);
      expect(bearers(provider)).toEqual([]);
      // The provider withdraws the grant: the next renewal says so on the connection.
      provider.revokeGrants();
      const revoked = await until('the connection is revoked', async () => {
        const { connection } = (await call('GET', `/api/default/connections/${made.connection.id}`)).body;
        return connection.status === 'revoked' && connection;
      });
      expect(revoked.errorMessage).toContain('invalid_grant');
      expect(bearers(provider)).toEqual([]);
    } finally {
      await chores.close(1000);
    }
  });
});

describe("a run's auth_update", () => {
  it('is dropped when the connection was revoked or reconnected during the run: a stale rotation undoes neither', async () => {
    const provider = await fake();
    await installConnector('hub-rotate', provider);
    const made = await call('POST', '/api/default/connections', {
      body: { connectorKey: 'hub-rotate', config: { rotateAfterMs: 1500 } },
    });
    const id = made.body.connection.id;
    await server.pool.query(
      `UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE connection_id = $1`,
      [id],
    );
    const items = made.body.feeds.find((f: { feedKey: string }) => f.feedKey === 'items').id;
    await connect(id, provider);

    // Revoked while the sync runs: it stays revoked, holding nothing.
    const revokedDuring = syncAndWait(items);
    await until('the sync is under way', () => bearers(provider).length === 1);
    await call('POST', `/api/default/connections/${id}/revoke`);
    const run = await revokedDuring;
    expect(run.status).toBe('completed');
    const logs = (await call('GET', `/api/default/runs/${run.id}/logs`)).body.lines.map(
      (l: { msg: string }) => l.msg,
    );
    expect(logs.join('\n')).toContain('its auth_update was dropped');
    const { rows } = await server.pool.query('SELECT status, credentials FROM connections WHERE id = $1', [
      id,
    ]);
    expect(rows[0]).toMatchObject({ status: 'revoked', credentials: null });

    // Reconnected while the sync runs: the new grant stays.
    await connect(id, provider);
    const reconnectedDuring = syncAndWait(items);
    await until('the second sync is under way', () => bearers(provider).length === 2);
    await connect(id, provider);
    expect((await reconnectedDuring).status).toBe('completed');
    const next = await syncAndWait(items);
    expect(next.status).toBe('completed');
    expect(bearers(provider).at(-1)).toBe(provider.issued().at(-2));
  });
});

describe('revoking and org-wide grants', () => {
  it('forgets the tokens on revoke, and connecting again works', async () => {
    const provider = await fake();
    await installConnector('hub-revoke', provider);
    const made = await newConnection('hub-revoke');
    await connect(made.connection.id, provider);
    const revoked = await call('POST', `/api/default/connections/${made.connection.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.connection).toMatchObject({
      status: 'revoked',
      credentialKeys: [],
      grantedScopes: null,
    });
    const { rows } = await server.pool.query('SELECT credentials FROM connections WHERE id = $1', [
      made.connection.id,
    ]);
    expect(rows[0].credentials).toBeNull();
    // A sync asked for now would wait for a reconnect forever: refused, saying how.
    const items = made.feeds.find((f) => f.feedKey === 'items')?.id;
    const refused = await call('POST', `/api/default/feeds/${items}/sync`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(`svc connection connect ${made.connection.id}`);
    await connect(made.connection.id, provider);
    expect((await call('GET', `/api/default/connections/${made.connection.id}`)).body.connection.status).toBe(
      'active',
    );
  });

  it('shares one grant among every connection of a connector scoped to the organization', async () => {
    const provider = await fake();
    await installConnector('hub-org', provider, { scope: 'organization' });
    const first = await newConnection('hub-org');
    await connect(first.connection.id, provider);
    // A connection made later uses the grant at once.
    const second = await newConnection('hub-org');
    expect(second.connection.status).toBe('active');
    const run = await syncAndWait(second.feeds.find((f) => f.feedKey === 'items')?.id ?? 0);
    expect(run.status, run.errorMessage).toBe('completed');
    expect(bearers(provider)).toEqual([provider.issued()[0]]);
    // Revoking one forgets the org's grant: both are revoked.
    await call('POST', `/api/default/connections/${second.connection.id}/revoke`);
    expect(
      (await call('GET', `/api/default/connections/${first.connection.id}`)).body.connection.status,
    ).toBe('revoked');
  });
});

describe('secrets', () => {
  it('never shows a token or the client secret in an answer, a log line, a run log or an event (canary)', async () => {
    const { rows: logs } = await server.pool.query('SELECT msg, fields::text FROM run_logs');
    const { rows: events } = await server.pool.query(
      'SELECT payload_text, payload_data::text, metadata::text FROM events',
    );
    const { rows: attempts } = await server.pool.query(
      'SELECT outcome_message, redirect_uri FROM oauth_attempts',
    );
    const everything = [
      ...answers,
      ...logged,
      ...logs.map((row) => JSON.stringify(row)),
      ...events.map((row) => JSON.stringify(row)),
      ...attempts.map((row) => JSON.stringify(row)),
    ].join('\n');
    expect(fakes.length).toBeGreaterThan(5);
    for (const provider of fakes) {
      for (const secret of [...provider.issued(), provider.settings.clientSecret]) {
        expect(everything.includes(secret), `${secret} appeared`).toBe(false);
      }
    }
  });
});
