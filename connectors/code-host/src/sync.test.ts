import {
  type Checkpoint,
  createConnectorLogger,
  type EventEnvelope,
  IDENTITY,
  normalizeCodeHostLogin,
  type RunSyncOptions,
  runSync,
  withRunLogger,
} from '@svc/connector-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import codeHost from './index.js';
import { type FakeGitHub, OCTOCAT, startFakeGitHub } from './test/fake-github.js';

let fake: FakeGitHub;

beforeEach(async () => {
  fake = await startFakeGitHub();
});
afterEach(async () => {
  await fake.close();
});

const sync = (feedKey: 'issues' | 'pull_requests', options: Partial<RunSyncOptions> = {}) =>
  runSync(codeHost, {
    feedKey,
    config: { repo: fake.repo, apiUrl: fake.url },
    credentials: { provider: 'github', accessToken: fake.token },
    ...options,
  });

const ids = (events: EventEnvelope[]) => events.map((e) => e.origin_id);
const issueId = (n: number) => `octo/hello-world#${n}`;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const listings = () => fake.requests.filter((r) => r.method === 'GET');
const query = (url: string) => Object.fromEntries(new URL(url, fake.url).searchParams);

/** A dot path into an event, as the server reads an entity link's `eventPath`. */
const at = (event: EventEnvelope, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], event);

describe('issues feed', () => {
  it('follows a relative Link against the page that gave it', async () => {
    await fake.close();
    fake = await startFakeGitHub({ relativeLinks: true });
    for (const _ of range(1, 150)) fake.addIssue();
    const run = await sync('issues');
    expect(ids(run.events)).toEqual(range(1, 150).map(issueId));
  });

  it('follows Link rel="next" across 3 pages and collects every issue once', async () => {
    for (const _ of range(1, 250)) fake.addIssue();

    const run = await sync('issues');

    expect(ids(run.events)).toEqual(range(1, 250).map(issueId));
    expect(run.duplicateOriginIds).toEqual([]);
    expect(listings().map((r) => query(r.url))).toEqual([
      { state: 'all', sort: 'updated', direction: 'asc', per_page: '100' },
      { state: 'all', sort: 'updated', direction: 'asc', per_page: '100', page: '2' },
      { state: 'all', sort: 'updated', direction: 'asc', per_page: '100', page: '3' },
    ]);
    expect(listings()[0]?.headers).toMatchObject({
      authorization: `Bearer ${fake.token}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
    });
    // One checkpoint per page, each at the newest issue read so far.
    expect(run.checkpointUpdates.map((c) => c?.updatedSince)).toEqual(
      [100, 200, 250].map((n) => new Date(fake.items[n - 1]?.updated_at ?? '').toISOString()),
    );
    expect(run.metadata).toEqual({ items_found: 250, items_skipped: 0 });
  });

  it('leaves out pull requests, which the issues listing also returns', async () => {
    fake.addIssue();
    fake.addPull();
    fake.addIssue();
    fake.addPull();

    const run = await sync('issues');

    expect(ids(run.events)).toEqual([issueId(1), issueId(3)]);
    expect(run.events.every((e) => e.origin_type === 'issue')).toBe(true);
    expect(run.metadata).toEqual({ items_found: 4, items_skipped: 2 });
  });

  it('emits an issue as this envelope, its author at the paths the entity links read', async () => {
    fake.addIssue({ title: 'Crash on start', body: '', comments: 3, reactions: 5, labels: ['bug', 'p1'] });
    const closed = fake.addIssue({
      title: 'Typo',
      body: 'Fix **this**',
      state: 'closed',
      user: { login: 'Hubot', id: 2 },
    });
    closed.closed_at = closed.updated_at;

    const run = await sync('issues');

    expect(run.events[0]).toEqual({
      origin_id: 'octo/hello-world#1',
      origin_type: 'issue',
      title: 'Crash on start',
      payload_type: 'markdown',
      // An empty body leaves the title as the text.
      payload_text: 'Crash on start',
      payload_data: {
        repo: { full_name: 'octo/hello-world' },
        number: 1,
        state: 'open',
        labels: ['bug', 'p1'],
        user: {
          login: 'octocat',
          id: '583231',
          display_login: 'Octocat',
          avatar_url: 'https://avatars.githubusercontent.com/u/583231?v=4',
          html_url: 'https://github.com/Octocat',
        },
        author_association: 'OWNER',
        created_at: '2026-01-05T10:00:01Z',
        updated_at: '2026-01-05T10:00:01Z',
        closed_at: null,
        comments: 3,
        reactions: 5,
      },
      author_name: 'Octocat',
      source_url: 'https://github.com/octo/hello-world/issues/1',
      occurred_at: '2026-01-05T10:00:01.000Z',
      // calculateEngagementScore({ comments: 3, reactions: 5 })
      score: 20.4,
    });
    expect(run.events[1]).toMatchObject({
      payload_text: 'Fix **this**',
      payload_data: { state: 'closed', closed_at: '2026-01-05T10:00:02Z', user: { login: 'hubot', id: '2' } },
    });

    const [author, repository] = codeHost.definition.feeds?.issues?.eventKinds?.issue?.entityLinks ?? [];
    const identities = Object.fromEntries(
      (author?.identities ?? []).map((i) => [i.namespace, at(run.events[0] as EventEnvelope, i.eventPath)]),
    );
    expect(identities).toEqual({
      [IDENTITY.CODE_HOST_LOGIN]: normalizeCodeHostLogin(OCTOCAT.login),
      [IDENTITY.CODE_HOST_USER_ID]: String(OCTOCAT.id),
    });
    expect(at(run.events[0] as EventEnvelope, repository?.identities[0]?.eventPath ?? '')).toBe(
      'octo/hello-world',
    );
    for (const trait of Object.values(author?.traits ?? {})) {
      expect(at(run.events[0] as EventEnvelope, trait.eventPath)).toBeTruthy();
    }
  });

  it('picks up from its checkpoint: nothing new gives nothing, an update gives that issue', async () => {
    for (const _ of range(1, 5)) fake.addIssue();
    const first = await sync('issues');
    expect(first.events).toHaveLength(5);
    expect(first.checkpoint).toEqual({
      repo: 'octo/hello-world',
      state: 'all',
      updatedSince: '2026-01-05T10:00:05.000Z',
      seenAtUpdatedSince: [5],
    });

    const again = await sync('issues', { checkpoint: first.checkpoint });
    expect(again.events).toEqual([]);
    expect(again.checkpoint).toEqual(first.checkpoint);
    // Asked from a second earlier, so that a server whose `since` excludes its own second loses nothing.
    expect(query(listings().at(-1)?.url ?? '').since).toBe('2026-01-05T10:00:04.000Z');

    fake.touch(2);
    const updated = await sync('issues', { checkpoint: again.checkpoint });
    expect(ids(updated.events)).toEqual([issueId(2)]);
    expect(updated.events[0]?.occurred_at).toBe('2026-01-05T10:00:06.000Z');
    expect(updated.checkpoint).toMatchObject({
      updatedSince: '2026-01-05T10:00:06.000Z',
      seenAtUpdatedSince: [2],
    });
  });

  it('loses no issue updated in the same second as the checkpoint, and repeats none', async () => {
    const second = '2026-01-05T11:00:00Z';
    fake.addIssue({ updated_at: second });
    fake.addIssue({ updated_at: second });
    const first = await sync('issues');
    expect(first.checkpoint).toMatchObject({ seenAtUpdatedSince: [1, 2] });

    // Written in that same second, after the sync had read it.
    fake.addIssue({ updated_at: second });
    const next = await sync('issues', { checkpoint: first.checkpoint });

    expect(ids(next.events)).toEqual([issueId(3)]);
    expect(next.checkpoint).toMatchObject({ seenAtUpdatedSince: [1, 2, 3] });
  });

  it('resumes a sync that failed mid-way from the last page it committed, emitting each issue once', async () => {
    for (const _ of range(1, 250)) fake.addIssue();
    // Issues 200 (page 2) and 201 (page 3) share a second, across the page where the sync fails.
    fake.touch(201, fake.items[199]?.updated_at);
    fake.afterListing = (page) => {
      if (page === 2) fake.failNext({ status: 401, body: { message: 'Bad credentials' } });
    };

    const emitted: EventEnvelope[] = [];
    const committed: (Checkpoint | null)[] = [];
    // Called as a worker calls it, outside the harness, to see what it committed before failing.
    const logger = createConnectorLogger({ connectorKey: 'code-host', secrets: [fake.token] });
    const failed = withRunLogger(logger, () =>
      codeHost.sync({
        feedKey: 'issues',
        config: { repo: fake.repo, apiUrl: fake.url },
        checkpoint: null,
        credentials: { provider: 'github', accessToken: fake.token },
        entityIds: [],
        emitEvents: async (events) => {
          emitted.push(...events);
        },
        updateCheckpoint: async (checkpoint) => {
          committed.push(checkpoint);
        },
      }),
    );
    await expect(failed).rejects.toThrow(/rejected the access token/);
    expect(emitted).toHaveLength(200);
    expect(committed.at(-1)).toMatchObject({ seenAtUpdatedSince: [200] });
    expect(logger.entries().map((l) => l.page)).toEqual([1, 2]);

    fake.afterListing = undefined;
    const resumed = await sync('issues', { checkpoint: committed.at(-1) ?? null });

    expect(ids(resumed.events)).toEqual(range(201, 250).map(issueId));
    expect(new Set(ids([...emitted, ...resumed.events])).size).toBe(250);
  });

  it('finds the issue that slipped past a page boundary when another was updated mid-listing', async () => {
    for (const _ of range(1, 250)) fake.addIssue();
    // Issue 50 moves to the end; 101 moves up onto page 1, which was already read.
    fake.afterListing = (page) => {
      if (page === 1 && fake.items[49]?.updated_at === '2026-01-05T10:00:50Z') fake.touch(50);
    };

    const run = await sync('issues');

    expect(new Set(ids(run.events))).toEqual(new Set(range(1, 250).map(issueId)));
    // Issue 50 twice, as it was and as it is now; nothing else twice.
    expect(run.duplicateOriginIds).toEqual([issueId(50)]);
    expect(run.events.filter((e) => e.origin_id === issueId(50)).map((e) => e.occurred_at)).toEqual([
      '2026-01-05T10:00:50.000Z',
      '2026-01-05T10:04:11.000Z',
    ]);
  });

  it('gives up after three passes on a listing that keeps moving, checkpointing before the moves', async () => {
    for (const _ of range(1, 250)) fake.addIssue();
    let next = 10;
    fake.afterListing = (page) => {
      if (page === 1) fake.touch(next++);
    };

    const run = await sync('issues');

    // Issue 12 moved during the third pass: the next sync lists again from its old second.
    expect(run.checkpoint).toMatchObject({
      updatedSince: '2026-01-05T10:00:12.000Z',
      seenAtUpdatedSince: [],
    });
    expect(run.logs.at(-1)).toMatchObject({ level: 'warn', passes: 3, from: '2026-01-05T10:00:12.000Z' });
    fake.afterListing = undefined;
    const later = await sync('issues', { checkpoint: run.checkpoint });
    expect(ids(later.events)).toEqual([...range(13, 250), 10, 11, 12].map(issueId));
  });

  it('returns everything at once on the short path', async () => {
    for (const _ of range(1, 120)) fake.addIssue();

    const run = await sync('issues', { streaming: false });

    expect(run.events).toHaveLength(120);
    expect(run.checkpointUpdates).toEqual([]);
    expect(run.checkpoint).toMatchObject({
      updatedSince: '2026-01-05T10:02:00.000Z',
      seenAtUpdatedSince: [120],
    });
  });

  it("starts over on a checkpoint of another repository or state, rather than skip this one's issues", async () => {
    fake.addIssue();
    const checkpoint = {
      repo: 'octo/other',
      state: 'all',
      updatedSince: '2030-01-01T00:00:00.000Z',
      seenAtUpdatedSince: [],
    };

    const run = await sync('issues', { checkpoint });

    expect(ids(run.events)).toEqual([issueId(1)]);
    expect(run.logs.map((l) => l.msg)).toContain(
      "starting over: the checkpoint is of octo/other (state all), not of this feed's",
    );
  });

  it('passes the state filter on', async () => {
    fake.addIssue();
    fake.addIssue({ state: 'closed' });

    const run = await sync('issues', { config: { repo: fake.repo, apiUrl: fake.url, state: 'open' } });

    expect(ids(run.events)).toEqual([issueId(1)]);
  });
});

describe('pull_requests feed', () => {
  it('lists pull requests only, with their merge state, and checkpoints them like issues', async () => {
    fake.addIssue();
    fake.addPull({ title: 'Add feature', draft: true });
    const merged = fake.addPull({ title: 'Fix bug', state: 'closed' });
    merged.merged_at = merged.updated_at;

    const run = await sync('pull_requests');

    expect(ids(run.events)).toEqual([issueId(2), issueId(3)]);
    expect(run.events[1]).toMatchObject({
      origin_type: 'pull_request',
      title: 'Fix bug',
      source_url: 'https://github.com/octo/hello-world/pull/3',
      payload_data: {
        number: 3,
        state: 'closed',
        merged: true,
        merged_at: merged.merged_at,
        draft: false,
        head: 'feature-3',
        base: 'main',
        user: { login: 'octocat', id: '583231' },
      },
    });
    expect(run.events[0]?.payload_data).toMatchObject({ draft: true, merged: false });
    // The listing has no counts to score from.
    expect(run.events[0]).not.toHaveProperty('score');
    expect(query(listings()[0]?.url ?? '')).toEqual({
      state: 'all',
      sort: 'updated',
      direction: 'asc',
      per_page: '100',
    });

    const again = await sync('pull_requests', { checkpoint: run.checkpoint });
    expect(again.events).toEqual([]);
    fake.touch(2);
    expect(ids((await sync('pull_requests', { checkpoint: again.checkpoint })).events)).toEqual([issueId(2)]);
  });
});

describe('failures', () => {
  it('says the token was rejected, without showing it', async () => {
    fake.addIssue();

    const error = await sync('issues', {
      credentials: { provider: 'github', accessToken: 'gho_expired_9f8e7d' },
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      'the code host rejected the access token (401: Bad credentials): it is invalid, expired or revoked; reconnect the account',
    );
    expect((error as Error).message).not.toContain('gho_expired_9f8e7d');
  });

  it('says so when there is no token at all', async () => {
    await expect(sync('issues', { credentials: null })).rejects.toThrow(
      /no access token: connect a GitHub account/,
    );
  });

  it('retries a 502 and carries on', async () => {
    fake.addIssue();
    fake.failNext({ status: 502, body: { message: 'Server Error' } });

    const run = await sync('issues');

    expect(ids(run.events)).toEqual([issueId(1)]);
    expect(listings()).toHaveLength(2);
    expect(run.logs.find((l) => l.msg === 'request failed, retrying')).toMatchObject({
      level: 'warn',
      attempt: 1,
    });
  });

  it('reports an exhausted rate limit with the time it resets', async () => {
    const reset = Math.floor(Date.parse('2030-01-01T00:00:00Z') / 1000);
    fake.failNext({
      status: 403,
      body: { message: 'API rate limit exceeded for user ID 4242.' },
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
    });

    await expect(sync('issues')).rejects.toThrow(
      /^rate limit exhausted at GET \/repos\/octo\/hello-world\/issues \(5000 requests per window\); it resets at 2030-01-01T00:00:00.000Z \(in \d+ min\)/,
    );
  });

  it('names a repository it cannot see', async () => {
    await expect(sync('issues', { config: { repo: 'octo/secret', apiUrl: fake.url } })).rejects.toThrow(
      'GET /repos/octo/secret/issues was not found (404: Not Found): the repository does not exist or the token cannot see it',
    );
  });

  it('does not send the token to another host named by a next link', async () => {
    fake.failNext({
      status: 200,
      body: [],
      headers: { link: '<http://127.0.0.2:9/steal?page=2>; rel="next"' },
    });

    await expect(sync('issues')).rejects.toThrow(/next page is on another host \(http:\/\/127.0.0.2:9\)/);
    expect(fake.requests).toHaveLength(1);
  });

  it('keeps the access token out of the logs of a run that logged, retried and paged', async () => {
    for (const _ of range(1, 150)) fake.addIssue();
    fake.failNext({ status: 503, body: { message: `no token ${fake.token} here` } });

    const run = await sync('issues');

    expect(run.events).toHaveLength(150);
    expect(run.logs.length).toBeGreaterThan(2);
    expect(JSON.stringify(run.logs)).not.toContain(fake.token);
  });
});
