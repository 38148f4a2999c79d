import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeGitHub,
  OCTOCAT,
  startFakeGitHub,
} from '../../../../connectors/code-host/src/test/fake-github.js';
import { rss } from '../../../../connectors/rss/src/test/fixtures.js';
import { document, type FeedServer, startFeedServer } from '../../../../connectors/rss/src/test/server.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { startTestRunWorkers } from '../../test/runtime.js';
import type { RunWorkers } from './worker.js';

/**
 * The bundled connectors, end to end on the run worker: installed by name, connected through the
 * API, synced against their local fakes, read back through the events and entities API; and an
 * action that waits for approval, approved through the API, run once.
 */

let server: TestServer;
let workers: RunWorkers;
let site: FeedServer;
let github: FakeGitHub;

beforeAll(async () => {
  server = await startTestServer();
  site = await startFeedServer();
  github = await startFakeGitHub();
  workers = await startTestRunWorkers(server);
  expect((await server.call('POST', '/api/default/connectors', { body: { package: 'rss' } })).status).toBe(
    201,
  );
  // This org wants repositories created too (the connector only links to existing ones).
  const codeHost = await server.call('POST', '/api/default/connectors', {
    body: { package: 'code-host', entityLinkOverrides: { repository: { autoCreate: true } } },
  });
  expect(codeHost.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await workers?.close(1000);
  await site?.close();
  await github?.close();
});

/** Syncs the feed through the API and answers the run once it ended. */
async function sync(feedId: number) {
  const { body } = await server.call('POST', `/api/default/feeds/${feedId}/sync`);
  return ended(body.run.id);
}

async function ended(runId: number) {
  for (let i = 0; i < 300; i++) {
    const { body } = await server.call('GET', `/api/default/runs/${runId}`);
    if (!['pending', 'running'].includes(body.run.status)) return body.run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} did not end`);
}

describe('rss on the worker', () => {
  it("syncs a site's feed into events, and only new items the next time", async () => {
    const items = [
      { guid: 'b', title: 'Second', date: 'Mon, 23 Nov 2026 11:00:00 GMT' },
      { guid: 'a', title: 'First', date: 'Mon, 23 Nov 2026 10:00:00 GMT' },
    ];
    site.route(
      '/feed.xml',
      document(() => rss(items)),
    );
    const connected = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'rss' },
    });
    const feedId = connected.body.feeds[0].id;
    const patched = await server.call('PATCH', `/api/default/feeds/${feedId}`, {
      body: { config: { url: `${site.url}/feed.xml` } },
    });
    expect(patched.body.feed).toMatchObject({ status: 'active', displayName: `Feed ${site.url}/feed.xml` });

    const run = await sync(feedId);
    expect(run).toMatchObject({
      status: 'completed',
      itemsCollected: 2,
      runType: 'sync',
      connectorKey: 'rss',
    });
    expect(run.connectorVersion).toBe('0.1.0');
    const events = await server.call('GET', `/api/default/events?feedId=${feedId}`);
    expect(events.body.events.map((e: { title: string }) => e.title)).toEqual(['Second', 'First']);
    expect(events.body.events[1]).toMatchObject({
      payload_text: 'Text of a',
      occurred_at: '2026-11-23T10:00:00.000Z',
    });

    items.unshift({ guid: 'c', title: 'Third', date: 'Mon, 23 Nov 2026 12:00:00 GMT' });
    expect(await sync(feedId)).toMatchObject({ status: 'completed', itemsCollected: 1 });
    const feed = await server.call('GET', `/api/default/connections/${connected.body.connection.id}/feeds`);
    expect(feed.body.feeds[0]).toMatchObject({
      itemsCollected: 3,
      consecutiveFailures: 0,
      lastSyncStatus: 'completed',
    });
    expect(feed.body.feeds[0].checkpoint).not.toBeNull();
  }, 60_000);
});

describe('code-host on the worker', () => {
  let connectionId: number;

  it('syncs issues with an OAuth token, linked to their author and repository', async () => {
    github.addIssue({ title: 'Crash on start' });
    github.addIssue({ title: 'Docs typo' });
    github.addPull({ title: 'Fix crash' });
    const config = { repo: github.repo, apiUrl: github.url };
    const connected = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'code-host', config, credentials: { accessToken: github.token } },
    });
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);
    connectionId = connected.body.connection.id;
    expect(connected.body.connection.credentialKeys).toEqual(['accessToken']);
    const issues = connected.body.feeds.find((f: { feedKey: string }) => f.feedKey === 'issues');
    await server.call('PATCH', `/api/default/feeds/${issues.id}`, { body: { config } });

    const run = await sync(issues.id);
    expect(run, JSON.stringify(run)).toMatchObject({
      status: 'completed',
      itemsCollected: 2,
      itemsRejected: 0,
    });
    // The token went to the code host, as a bearer token.
    expect(github.requests.some((r) => r.headers.authorization === `Bearer ${github.token}`)).toBe(true);

    const members = await server.call('GET', `/api/default/entities?type=member`);
    expect(members.body.entities).toHaveLength(1);
    const [author] = members.body.entities;
    const found = await server.call(
      'GET',
      `/api/default/entities?type=member&identity=${encodeURIComponent(`code_host_login:${OCTOCAT.login}`)}`,
    );
    expect(found.body.entities.map((e: { id: number }) => e.id)).toEqual([author.id]);
    const linked = await server.call('GET', `/api/default/events?entityId=${author.id}`);
    expect(linked.body.events.map((e: { title: string }) => e.title).sort()).toEqual([
      'Crash on start',
      'Docs typo',
    ]);
    // The install's override made the repository, which the connector alone would not.
    const repos = await server.call('GET', `/api/default/entities?type=repository`);
    expect(repos.body.entities).toHaveLength(1);
    expect(repos.body.entities[0].identities).toEqual([
      expect.objectContaining({ namespace: 'code_host_repo_full_name', value: github.repo }),
    ]);
  }, 60_000);

  it('runs an action needing approval once it is approved, and never a rejected one', async () => {
    const request = (title: string) =>
      server.call('POST', `/api/default/connections/${connectionId}/actions/create_issue`, {
        body: { input: { title } },
      });
    const waiting = await request('Approved issue');
    expect(waiting.status).toBe(202);
    expect(waiting.body.run).toMatchObject({ approvalStatus: 'pending', status: 'pending' });
    const refused = await request('Rejected issue');
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Neither ran while waiting.
    expect(github.items.filter((i) => i.title.endsWith('issue'))).toHaveLength(0);

    expect((await server.call('POST', `/api/default/runs/${refused.body.run.id}/reject`)).status).toBe(200);
    expect((await server.call('POST', `/api/default/runs/${waiting.body.run.id}/approve`)).status).toBe(200);
    const run = await ended(waiting.body.run.id);
    expect(run).toMatchObject({ status: 'completed', approvalStatus: 'approved' });
    expect(run.actionOutput).toMatchObject({ number: expect.any(Number) });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(github.items.filter((i) => i.title.endsWith('issue')).map((i) => i.title)).toEqual([
      'Approved issue',
    ]);
    const rejected = await server.call('GET', `/api/default/runs/${refused.body.run.id}`);
    expect(rejected.body.run).toMatchObject({ status: 'cancelled', approvalStatus: 'rejected' });
  }, 60_000);

  it('puts the connection in error when the code host refuses its token, until new credentials come', async () => {
    const feeds = await server.call('GET', `/api/default/connections/${connectionId}/feeds`);
    const issues = feeds.body.feeds.find((f: { feedKey: string }) => f.feedKey === 'issues');
    const renew = (accessToken: string) =>
      server.call('PATCH', `/api/default/connections/${connectionId}`, {
        body: { credentials: { accessToken } },
      });
    expect((await renew('gho_revoked_token')).status).toBe(200);
    const run = await sync(issues.id);
    expect(run.status).toBe('failed');
    expect(run.errorMessage).toMatch(/401/);
    const broken = await server.call('GET', `/api/default/connections/${connectionId}`);
    expect(broken.body.connection).toMatchObject({
      status: 'error',
      errorMessage: expect.stringMatching(/refused/),
    });
    // A resume alone is refused; new credentials bring it back.
    const resumed = await server.call('PATCH', `/api/default/connections/${connectionId}`, {
      body: { status: 'active' },
    });
    expect(resumed.status).toBe(409);
    const renewed = await renew(github.token);
    expect(renewed.body.connection).toMatchObject({ status: 'active', errorMessage: null });
    expect((await sync(issues.id)).status).toBe('completed');
  }, 60_000);
});
