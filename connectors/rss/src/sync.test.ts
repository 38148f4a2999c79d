import {
  type EventEnvelope,
  isSourceNativeEventType,
  runAction,
  runSync,
  validateDefinition,
} from '@svc/connector-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import rss, { rssConnector } from './index.js';
import { ATOM, type Item, RSS_1, RSS_2, rss as rssDocument } from './test/fixtures.js';
import { conditional, document, type FeedServer, startFeedServer } from './test/server.js';

let server: FeedServer;
beforeEach(async () => {
  server = await startFeedServer();
});
afterEach(() => server.close());

const sync = (path: string, checkpoint: Record<string, unknown> | null = null, connector = rss) =>
  runSync(connector, { feedKey: 'items', config: { url: `${server.url}${path}` }, checkpoint });

describe('the definition', () => {
  it('is valid, and its default export is the named one', () => {
    expect(validateDefinition(rss)).toEqual({ valid: true, problems: [] });
    expect(rss).toBe(rssConnector);
    expect(rss.definition).toMatchObject({
      key: 'rss',
      version: '0.1.0',
      authSchema: { methods: [{ type: 'none' }] },
      feeds: { items: { key: 'items', displayNameTemplate: 'Feed {url}' } },
    });
    expect(rss.definition.actions).toBeUndefined();
  });

  it('files items under a source-native type, which is also the event kind', () => {
    expect(isSourceNativeEventType('article')).toBe(true);
    expect(Object.keys(rss.definition.feeds?.items?.eventKinds ?? {})).toEqual(['article']);
  });

  it('has no actions: execute fails with a reason', async () => {
    expect(await rss.execute({ actionKey: 'post', input: {}, credentials: null, config: {} })).toEqual({
      success: false,
      error: 'the rss connector is read-only: it has no actions',
    });
    await expect(runAction(rss, { actionKey: 'post' })).rejects.toThrow(
      /no action "post"; its actions: none/,
    );
  });

  it('refuses a config whose url is not http(s)', async () => {
    await expect(
      runSync(rss, { feedKey: 'items', config: { url: 'ftp://example.com/feed' } }),
    ).rejects.toThrow(/url: must match pattern/);
    await expect(
      rss.sync({
        feedKey: 'items',
        config: { url: 'file:///etc/passwd' },
        checkpoint: null,
        credentials: null,
        entityIds: [],
      }),
    ).rejects.toThrow("the rss feed's config is invalid: url: must be an http(s) URL");
  });
});

describe('RSS 2.0', () => {
  it('parses each item into the envelope expected, oldest first', async () => {
    server.route(
      '/feed.xml',
      document(() => RSS_2),
    );
    const run = await sync('/feed.xml');

    const metadata = { feed_title: 'Tide & Time', feed_link: 'https://tide.example/' };
    expect(run.events).toEqual<EventEnvelope[]>([
      {
        origin_id: 'https://tide.example/podcast/7',
        origin_type: 'article',
        payload_type: 'text',
        payload_text: 'Listen in.',
        title: 'Harbour podcast, episode 7',
        // No <link>: the guid is a permalink, so it stands in.
        source_url: 'https://tide.example/podcast/7',
        occurred_at: '2026-11-20T12:05:00.000Z',
        semantic_type: 'content',
        attachments: [{ url: 'https://cdn.tide.example/7.mp3', type: 'audio/mpeg', length: 12345678 }],
        metadata: { ...metadata, categories: [] },
      },
      {
        origin_id: 'https://tide.example/posts/cafe',
        origin_type: 'article',
        payload_type: 'text',
        payload_text: 'Open from 8 am. Tea & cake.\n\nSecond line\nthird line',
        title: 'Café at the pier',
        author_name: 'Bo Pier',
        source_url: 'https://tide.example/posts/cafe',
        occurred_at: '2026-11-22T16:15:00.000Z',
        semantic_type: 'content',
        metadata: { ...metadata, categories: [] },
      },
      {
        origin_id: 'tide-0042',
        origin_type: 'article',
        payload_type: 'text',
        payload_text:
          'When the sun and moon line up, tides run higher.\n\n- Spring: big range\n- Neap: small range\n\nSee the tables — and plan ahead…',
        title: 'Spring tides & neap tides',
        author_name: 'Ada Quay',
        source_url: 'https://tide.example/posts/spring-tides',
        occurred_at: '2026-11-23T09:00:00.000Z',
        semantic_type: 'content',
        metadata: { ...metadata, categories: ['Tides', 'Moon'] },
      },
    ]);
    expect(run.checkpoint).toEqual({
      url: `${server.url}/feed.xml`,
      newest: '2026-11-23T09:00:00.000Z',
      seen: ['tide-0042'],
      undated: [],
    });
    expect(run.metadata).toEqual({ items_found: 3, items_skipped: 0, feed_title: 'Tide & Time' });
    expect(run.duplicateOriginIds).toEqual([]);
  });

  it('reads RSS 1.0 (RDF) too', async () => {
    server.route(
      '/rdf',
      document(() => RSS_1),
    );
    const run = await sync('/rdf');
    expect(run.events).toEqual([
      {
        origin_id: 'https://old.example/1',
        origin_type: 'article',
        payload_type: 'text',
        payload_text: 'First',
        title: 'First',
        author_name: 'Fay',
        source_url: 'https://old.example/1',
        occurred_at: '2026-11-01T09:00:00.000Z',
        semantic_type: 'content',
        metadata: { feed_title: 'Old News', feed_link: 'https://old.example/', categories: ['archive'] },
      },
    ]);
  });

  it('decodes a feed in ISO-8859-1 as its XML declaration says', async () => {
    const latin1 = Buffer.from(
      rssDocument([
        { guid: 'a', title: 'Crème brûlée à Noël', date: 'Mon, 23 Nov 2026 09:00:00 GMT' },
      ]).replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="ISO-8859-1"?>'),
      'latin1',
    );
    server.route(
      '/latin1',
      document(() => latin1, { 'content-type': 'application/rss+xml' }),
    );
    const run = await sync('/latin1');
    expect(run.events.map((e) => e.title)).toEqual(['Crème brûlée à Noël']);
  });
});

describe('origin_id', () => {
  it('falls back to the link, then to a hash of title and date; repeats and empty items are skipped', async () => {
    const items = [
      '<item><title>Linked</title><link>https://x.example/linked</link><pubDate>Mon, 23 Nov 2026 09:00:00 GMT</pubDate></item>',
      '<item><title>Bare</title><pubDate>Mon, 23 Nov 2026 08:00:00 GMT</pubDate></item>',
      '<item><title>Bare again</title><guid>https://x.example/linked</guid></item>',
      '<item><description>   </description></item>',
    ];
    server.route(
      '/feed',
      document(() => `<rss version="2.0"><channel><title>T</title>${items.join('')}</channel></rss>`),
    );
    const run = await sync('/feed');
    expect(run.events.map((e) => e.origin_id)).toEqual([
      expect.stringMatching(/^sha256:[0-9a-f]{32}$/),
      'https://x.example/linked',
    ]);
    expect(run.metadata).toMatchObject({ items_found: 4, items_skipped: 2 });
    // The same title and date give the same ID on every sync.
    expect((await sync('/feed')).events[0]?.origin_id).toBe(run.events[0]?.origin_id);
  });
});

describe('Atom', () => {
  it('parses each entry into the envelope expected, oldest first', async () => {
    server.route(
      '/atom.xml',
      document(() => ATOM, { 'content-type': 'application/atom+xml' }),
    );
    const run = await sync('/atom.xml');

    const metadata = { feed_title: 'Field Notes', feed_link: 'https://blog.example/' };
    expect(run.events).toEqual<EventEnvelope[]>([
      {
        origin_id: 'tag:blog.example,2026:note',
        origin_type: 'article',
        payload_type: 'text',
        payload_text: 'Line one\nline two & more',
        // type="text": the angle brackets are the title's own.
        title: 'Plain <text> note',
        author_name: 'Cy Field',
        occurred_at: '2026-11-20T12:00:00.000Z',
        semantic_type: 'content',
        metadata: { ...metadata, categories: [] },
      },
      {
        origin_id: 'tag:blog.example,2026:birds',
        origin_type: 'article',
        payload_type: 'text',
        payload_text: 'A wren & a finch.\n\nThen rain.',
        title: 'Birds <3',
        author_name: 'Di Wren, Ed Finch',
        source_url: 'https://blog.example/posts/birds',
        occurred_at: '2026-11-21T12:30:00.250Z',
        semantic_type: 'content',
        metadata: { ...metadata, categories: [] },
      },
      {
        origin_id: 'tag:blog.example,2026:mushrooms',
        origin_type: 'article',
        payload_type: 'text',
        payload_text: 'Found today\n\nThree chanterelles & a puffball.',
        title: 'Mushrooms & moss',
        // The entry names no author: the feed's is its.
        author_name: 'Cy Field',
        source_url: 'https://blog.example/posts/mushrooms',
        occurred_at: '2026-11-22T09:00:00.000Z',
        semantic_type: 'content',
        attachments: [{ url: 'https://blog.example/img/moss.jpg', type: 'image/jpeg', length: 2048 }],
        metadata: { ...metadata, categories: ['Fungi', 'moss'], updated_at: '2026-11-23T08:00:00.000Z' },
      },
    ]);
    expect(run.checkpoint).toMatchObject({
      newest: '2026-11-22T09:00:00.000Z',
      seen: ['tag:blog.example,2026:mushrooms'],
    });
  });
});

describe('the checkpoint', () => {
  const items: Item[] = [];
  const serve = () =>
    server.route(
      '/feed',
      document(() => rssDocument(items)),
    );
  beforeEach(() => {
    items.length = 0;
  });

  it('makes a re-sync emit nothing, and a new item exactly once', async () => {
    items.push(
      { guid: 'b', date: 'Mon, 23 Nov 2026 10:00:00 GMT' },
      { guid: 'a', date: 'Mon, 23 Nov 2026 09:00:00 GMT' },
    );
    serve();
    const first = await sync('/feed');
    expect(first.events.map((e) => e.origin_id)).toEqual(['a', 'b']);

    const again = await sync('/feed', first.checkpoint);
    expect(again.events).toEqual([]);
    expect(again.metadata).toMatchObject({ items_found: 2, items_skipped: 0 });
    expect(again.checkpoint).toEqual(first.checkpoint);

    items.unshift({ guid: 'c', date: 'Mon, 23 Nov 2026 11:00:00 GMT' });
    const third = await sync('/feed', again.checkpoint);
    expect(third.events.map((e) => e.origin_id)).toEqual(['c']);
    expect(third.checkpoint).toMatchObject({ newest: '2026-11-23T11:00:00.000Z', seen: ['c'] });
    expect((await sync('/feed', third.checkpoint)).events).toEqual([]);
  });

  it('loses no item that shares its timestamp with the newest one synced, and repeats none', async () => {
    const at = 'Mon, 23 Nov 2026 10:00:00 GMT';
    items.push({ guid: 'first', date: at }, { guid: 'older', date: 'Mon, 23 Nov 2026 08:00:00 GMT' });
    serve();
    const first = await sync('/feed');
    expect(first.checkpoint).toMatchObject({ newest: '2026-11-23T10:00:00.000Z', seen: ['first'] });

    // Published in the same second, but after the first sync had run.
    items.unshift({ guid: 'second', date: at });
    const second = await sync('/feed', first.checkpoint);
    expect(second.events.map((e) => e.origin_id)).toEqual(['second']);
    expect(second.checkpoint).toMatchObject({ seen: ['first', 'second'] });

    items.unshift({ guid: 'third', date: at });
    const third = await sync('/feed', second.checkpoint);
    expect(third.events.map((e) => e.origin_id)).toEqual(['third']);
    expect((await sync('/feed', third.checkpoint)).events).toEqual([]);
  });

  it('emits items without a date once, dated by the feed, and tracks them by ID', async () => {
    items.push({ guid: 'dated', date: 'Mon, 23 Nov 2026 09:00:00 GMT' }, { guid: 'undated' });
    serve();
    const first = await sync('/feed');
    expect(first.events.map((e) => [e.origin_id, e.occurred_at, e.metadata?.date_estimated])).toEqual([
      ['dated', '2026-11-23T09:00:00.000Z', undefined],
      // lastBuildDate of the generated feed
      ['undated', '2026-11-23T12:00:00.000Z', true],
    ]);
    expect(first.checkpoint).toMatchObject({ undated: ['undated'] });

    expect((await sync('/feed', first.checkpoint)).events).toEqual([]);
    items.unshift({ guid: 'also-undated' });
    const third = await sync('/feed', first.checkpoint);
    expect(third.events.map((e) => e.origin_id)).toEqual(['also-undated']);
  });

  it('treats a date it cannot read like no date, and says so in the log', async () => {
    items.push({ guid: 'odd', date: 'the day after tomorrow' });
    serve();
    const run = await sync('/feed');
    expect(run.events.map((e) => [e.origin_id, e.occurred_at, e.metadata?.date_estimated])).toEqual([
      ['odd', '2026-11-23T12:00:00.000Z', true],
    ]);
    expect(run.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', count: 1, example: 'the day after tomorrow' }),
    );
  });

  it('tracks an item dated far in the future by ID, so it cannot hold back later items', async () => {
    items.push(
      { guid: 'typo', date: 'Sat, 23 Nov 2096 09:00:00 GMT' },
      { guid: 'now', date: 'Mon, 23 Nov 2026 09:00:00 GMT' },
    );
    serve();
    const first = await sync('/feed');
    expect(first.events.map((e) => [e.origin_id, e.occurred_at])).toEqual([
      ['now', '2026-11-23T09:00:00.000Z'],
      ['typo', '2096-11-23T09:00:00.000Z'],
    ]);
    expect(first.checkpoint).toMatchObject({ newest: '2026-11-23T09:00:00.000Z', undated: ['typo'] });
    items.unshift({ guid: 'later', date: 'Mon, 23 Nov 2026 10:00:00 GMT' });
    expect((await sync('/feed', first.checkpoint)).events.map((e) => e.origin_id)).toEqual(['later']);
  });

  it('keeps the newest maxItems on a first sync and skips the rest for good', async () => {
    for (let hour = 15; hour >= 10; hour--)
      items.push({ guid: `h${hour}`, date: `Mon, 23 Nov 2026 ${hour}:00:00 GMT` });
    serve();
    const first = await runSync(rss, {
      feedKey: 'items',
      config: { url: `${server.url}/feed`, maxItems: 2 },
    });
    expect(first.events.map((e) => e.origin_id)).toEqual(['h14', 'h15']);
    expect(first.metadata).toMatchObject({ items_found: 6, items_skipped: 4 });
    const again = await runSync(rss, {
      feedKey: 'items',
      config: { url: `${server.url}/feed`, maxItems: 2 },
      checkpoint: first.checkpoint,
    });
    expect(again.events).toEqual([]);
  });

  it('starts over when the url changed, and from scratch on a checkpoint it did not write', async () => {
    items.push({ guid: 'a', date: 'Mon, 23 Nov 2026 09:00:00 GMT' });
    serve();
    server.route(
      '/other',
      document(() => rssDocument(items)),
    );
    const first = await sync('/feed');
    expect((await sync('/other', first.checkpoint)).events.map((e) => e.origin_id)).toEqual(['a']);
    const foreign = await sync('/feed', { cursor: 17 });
    expect(foreign.events.map((e) => e.origin_id)).toEqual(['a']);
    expect(foreign.logs.map((l) => l.msg)).toContain(
      'the checkpoint is not one this connector wrote; syncing as if for the first time',
    );
  });

  it('sends the ETag and Last-Modified back, and takes a 304 as nothing new', async () => {
    items.push({ guid: 'a', date: 'Mon, 23 Nov 2026 09:00:00 GMT' });
    const lastModified = 'Mon, 23 Nov 2026 09:00:05 GMT';
    server.route(
      '/feed',
      conditional(() => rssDocument(items), lastModified),
    );
    const first = await sync('/feed');
    expect(first.checkpoint).toEqual({
      url: `${server.url}/feed`,
      newest: '2026-11-23T09:00:00.000Z',
      seen: ['a'],
      undated: [],
      etag: expect.stringMatching(/^".+"$/),
      lastModified,
    });

    const unchanged = await sync('/feed', first.checkpoint);
    expect(server.requests[1]?.headers).toMatchObject({
      'if-none-match': first.checkpoint?.etag,
      'if-modified-since': lastModified,
    });
    expect(unchanged.events).toEqual([]);
    expect(unchanged.checkpoint).toEqual(first.checkpoint);
    expect(unchanged.metadata).toEqual({ items_found: 0, items_skipped: 0, not_modified: true });

    items.unshift({ guid: 'b', date: 'Mon, 23 Nov 2026 10:00:00 GMT' });
    const changed = await sync('/feed', unchanged.checkpoint);
    expect(changed.events.map((e) => e.origin_id)).toEqual(['b']);
    expect(changed.checkpoint?.etag).not.toBe(first.checkpoint?.etag);
  });
});
