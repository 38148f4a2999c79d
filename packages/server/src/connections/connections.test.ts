import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

/** Connections and their feeds: the spec's records, env_keys credentials sealed, feeds wired. */

let server: TestServer;

const keyed = `
import { defineConnector, configSchema, z } from '@svc/connector-sdk';
export default defineConnector({
  key: 'shop',
  name: 'Shop',
  version: '1.0.0',
  authSchema: { methods: [{ type: 'env_keys', fields: [{ key: 'api_key', secret: true }, { key: 'region' }] }] },
  optionsSchema: configSchema(z.object({ currency: z.enum(['EUR', 'USD']).optional() })),
  feeds: {
    orders: { key: 'orders', name: 'Orders', displayNameTemplate: 'Orders since {since}',
      configSchema: configSchema(z.object({ since: z.string().optional() })), async sync() { return { events: [], checkpoint: null }; } },
    custom: { key: 'custom', name: 'Custom', userManaged: true, async sync() { return { events: [], checkpoint: null }; } },
  },
});`;

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  expect((await server.call('POST', '/api/default/connectors', { body: { package: 'rss' } })).status).toBe(
    201,
  );
  expect((await server.call('POST', '/api/default/connectors', { body: { source: keyed } })).status).toBe(
    201,
  );
});

const connect = (body: unknown) => server.call('POST', '/api/default/connections', { body });

describe('POST /api/:org/connections', () => {
  it('connects a connector with auth none; its feed waits for the config its schema needs', async () => {
    const res = await connect({ connectorKey: 'rss', displayName: 'News' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.connection).toMatchObject({
      organizationId: 'default',
      connectorKey: 'rss',
      displayName: 'News',
      status: 'active',
      credentialKeys: [],
    });
    expect(res.body.feeds).toHaveLength(1);
    const [feed] = res.body.feeds;
    expect(feed).toMatchObject({
      feedKey: 'items',
      status: 'paused',
      consecutiveFailures: 0,
      itemsCollected: 0,
    });
    expect(feed.lastError).toMatch(/needs config before it can sync: url is required/);
    // It cannot be started without the config it needs.
    const started = await server.call('PATCH', `/api/default/feeds/${feed.id}`, {
      body: { status: 'active' },
    });
    expect(started).toMatchObject({ status: 422, body: { errors: [{ path: '/body/config/url' }] } });

    const patched = await server.call('PATCH', `/api/default/feeds/${feed.id}`, {
      body: { config: { url: 'https://example.com/feed.xml' } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.feed).toMatchObject({
      status: 'active',
      lastError: null,
      displayName: 'Feed https://example.com/feed.xml',
      config: { url: 'https://example.com/feed.xml' },
    });
    expect(patched.body.feed.nextSyncAt).not.toBeNull();
    const bad = await server.call('PATCH', `/api/default/feeds/${feed.id}`, {
      body: { config: { url: 'ftp://x' } },
    });
    expect(bad).toMatchObject({ status: 422, body: { errors: [{ path: '/body/config/url' }] } });
    const paused = await server.call('PATCH', `/api/default/feeds/${feed.id}`, {
      body: { status: 'paused' },
    });
    expect(paused.body).toMatchObject({ result: 'updated', feed: { status: 'paused', nextSyncAt: null } });
  });

  it("checks a feed's config with the connection's under it, as its runs get them: nothing asked twice", async () => {
    expect(
      (await server.call('POST', '/api/default/connectors', { body: { package: 'code-host' } })).status,
    ).toBe(201);
    const res = await connect({
      connectorKey: 'code-host',
      config: { repo: 'octo/hello' },
      credentials: { accessToken: 'gho_feeds' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const feeds = res.body.feeds.map((f: { feedKey: string; status: string; lastError: string | null }) => [
      f.feedKey,
      f.status,
      f.lastError,
    ]);
    expect(feeds).toEqual([
      ['issues', 'active', null],
      ['pull_requests', 'active', null],
    ]);
    expect(res.body.feeds[0].displayName).toBe('Issues of octo/hello');
    // A feed's own config is what it adds to, or changes of, the connection's.
    const issues = res.body.feeds[0].id;
    const narrowed = await server.call('PATCH', `/api/default/feeds/${issues}`, {
      body: { config: { state: 'open' } },
    });
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200);
    const other = await server.call('PATCH', `/api/default/feeds/${issues}`, {
      body: { config: { repo: 'octo/other' } },
    });
    expect(other.body.feed.displayName).toBe('Issues of octo/other');
    const bad = await server.call('PATCH', `/api/default/feeds/${issues}`, {
      body: { config: { repo: 'nope' } },
    });
    expect(bad).toMatchObject({ status: 422, body: { errors: [{ path: '/body/config/repo' }] } });
  });

  it('takes env_keys values, seals them, and never answers them; user-managed feeds are not wired', async () => {
    const res = await connect({
      connectorKey: 'shop',
      config: { currency: 'EUR' },
      credentials: { api_key: 'sk-shop-secret-value', region: 'eu' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.connection.credentialKeys).toEqual(['api_key', 'region']);
    expect(res.body.feeds.map((f: { feedKey: string }) => f.feedKey)).toEqual(['orders']);
    expect(res.body.feeds[0]).toMatchObject({ status: 'active', displayName: 'Orders since {since}' });
    const { rows } = await server.pool.query<{ credentials: Buffer }>(
      'SELECT credentials FROM connections WHERE id = $1',
      [res.body.connection.id],
    );
    expect(rows[0]?.credentials.toString('latin1')).not.toContain('sk-shop-secret-value');
    const listed = await server.call('GET', '/api/default/connections');
    expect(JSON.stringify(listed.body)).not.toContain('sk-shop-secret-value');
    const one = await server.call('GET', `/api/default/connections/${res.body.connection.id}`);
    expect(one.body.connection).toMatchObject({ connectorKey: 'shop', config: { currency: 'EUR' } });
    const feeds = await server.call('GET', `/api/default/connections/${res.body.connection.id}/feeds`);
    expect(feeds.body.feeds).toHaveLength(1);
  });

  it('refuses what the connector does not take, naming each field, and creates nothing', async () => {
    const before = (await server.call('GET', '/api/default/connections')).body.connections.length;
    const missing = await connect({ connectorKey: 'shop', credentials: { region: 'eu', token: 'x' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      '/body/credentials/api_key',
      '/body/credentials/token',
    ]);
    const options = await connect({
      connectorKey: 'shop',
      config: { currency: 'GBP' },
      credentials: { api_key: 'k', region: 'eu' },
    });
    expect(options).toMatchObject({ status: 422, body: { errors: [{ path: '/body/config/currency' }] } });
    const absent = await connect({ connectorKey: 'nope' });
    expect(absent).toMatchObject({ status: 422, body: { errors: [{ path: '/body/connectorKey' }] } });
    expect((await server.call('GET', '/api/default/connections')).body.connections).toHaveLength(before);
    expect((await server.call('GET', '/api/default/connections/999999')).status).toBe(404);
    expect(
      (await server.call('PATCH', '/api/default/feeds/999999', { body: { status: 'paused' } })).status,
    ).toBe(404);
  });

  it('pauses and resumes a connection, and renames it', async () => {
    const { connection } = (await connect({ connectorKey: 'rss' })).body;
    const path = `/api/default/connections/${connection.id}`;
    const paused = await server.call('PATCH', path, { body: { status: 'paused', displayName: 'Quiet' } });
    expect(paused.body).toMatchObject({
      result: 'updated',
      connection: { status: 'paused', displayName: 'Quiet' },
    });
    expect((await server.call('PATCH', path, { body: { status: 'paused' } })).body.result).toBe('unchanged');
    await server.pool.query("UPDATE connections SET status = 'revoked' WHERE id = $1", [connection.id]);
    const revoked = await server.call('PATCH', path, { body: { status: 'active' } });
    expect(revoked).toMatchObject({ status: 409, body: { code: 'conflict' } });
  });

  it('keeps connections and feeds when the connector is upgraded', async () => {
    const before = (await server.call('GET', '/api/default/connections')).body.connections.length;
    const upgraded = await server.call('POST', '/api/default/connectors', {
      body: { source: keyed.replace("version: '1.0.0'", "version: '1.1.0'") },
    });
    expect(upgraded.body.result).toBe('updated');
    expect((await server.call('GET', '/api/default/connections')).body.connections).toHaveLength(before);
  });
});
