import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { everyPage } from '../../test/runtime.js';

/**
 * Events through the API: what syncs collected, filtered and paged newest first. The rows a
 * worker would write (events, their entity links) are written here with SQL.
 */

let server: TestServer;
let orgId: string;
const ids = { shop: '', orders: '', refunds: '', news: '', newsItems: '', alice: '', bob: '' };

const source = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'shop',
  name: 'Shop',
  version: '1.0.0',
  feeds: {
    orders: { key: 'orders', name: 'Orders', async sync() { return { events: [], checkpoint: null }; } },
    refunds: { key: 'refunds', name: 'Refunds', async sync() { return { events: [], checkpoint: null }; } },
  },
});`;

interface EventSeed {
  originId: string;
  occurredAt: string;
  connection?: string;
  feed?: string;
  originType?: string | null;
  semanticType?: string | null;
  entities?: string[];
  org?: string;
}

/** An event as a sync's batch would have stored it, with its entity links. */
async function insertEvent(seed: EventSeed): Promise<string> {
  const { rows } = await server.pool.query<{ id: string }>(
    `INSERT INTO events (org_id, connection_id, feed_id, origin_id, origin_type, semantic_type, payload_type,
                         payload_text, occurred_at, title)
     VALUES ($1, $2, $3, $4, $5, $6, 'text', $7, $8, $9) RETURNING id`,
    [
      seed.org ?? orgId,
      seed.connection ?? ids.shop,
      seed.feed ?? ids.orders,
      seed.originId,
      seed.originType === undefined ? 'order' : seed.originType,
      seed.semanticType ?? null,
      `text of ${seed.originId}`,
      seed.occurredAt,
      `title of ${seed.originId}`,
    ],
  );
  const id = rows[0]?.id as string;
  for (const entity of seed.entities ?? []) {
    await server.pool.query('INSERT INTO event_entities (event_id, entity_id) VALUES ($1, $2)', [id, entity]);
  }
  return id;
}

const expectProblem = (
  res: { status: number; headers: Headers; body: any },
  status: number,
  code: string,
) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, code });
};

/** Every event of a query, page by page; fails on a page over the limit. */
async function everyEvent(query: string, limit: number): Promise<{ origins: string[]; pages: number }> {
  const { items, pages } = await everyPage<{ origin_id: string }>(
    server,
    '/api/default/events',
    query,
    'events',
    limit,
  );
  return { origins: items.map((e) => e.origin_id), pages };
}

/** The origin_ids the database holds for `where`, newest first as the API orders them. */
async function expected(where: string, params: unknown[] = []): Promise<string[]> {
  const { rows } = await server.pool.query<{ origin_id: string }>(
    `SELECT origin_id FROM events e WHERE org_id = ${orgId} AND ${where} ORDER BY occurred_at DESC, id DESC`,
    params,
  );
  return rows.map((r) => r.origin_id);
}

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  const { rows } = await server.pool.query<{ id: string }>(`SELECT id FROM orgs WHERE slug = 'default'`);
  orgId = rows[0]?.id as string;
  expect((await server.call('POST', '/api/default/connectors', { body: { source } })).status).toBe(201);
  expect((await server.call('POST', '/api/default/connectors', { body: { package: 'rss' } })).status).toBe(
    201,
  );
  const shop = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'shop' } });
  ids.shop = String(shop.body.connection.id);
  const feedOf = (body: any, key: string) =>
    String(body.feeds.find((f: { feedKey: string }) => f.feedKey === key).id);
  ids.orders = feedOf(shop.body, 'orders');
  ids.refunds = feedOf(shop.body, 'refunds');
  const news = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'rss' } });
  ids.news = String(news.body.connection.id);
  ids.newsItems = feedOf(news.body, 'items');
  const entity = async (title: string) =>
    (
      await server.pool.query<{ id: string }>(
        `INSERT INTO entities (org_id, entity_type, title) VALUES ($1, 'person', $2) RETURNING id`,
        [orgId, title],
      )
    ).rows[0]?.id as string;
  ids.alice = await entity('Alice');
  ids.bob = await entity('Bob');

  // Three share one occurred_at to the microsecond: the id orders them, across pages.
  const tie = '2025-03-01T12:00:00.000001Z';
  await insertEvent({ originId: 'o-1', occurredAt: '2025-01-01T00:00:00Z', entities: [ids.alice] });
  await insertEvent({ originId: 'o-2', occurredAt: tie, entities: [ids.alice, ids.bob] });
  await insertEvent({ originId: 'o-3', occurredAt: tie, feed: ids.refunds, originType: 'refund' });
  await insertEvent({ originId: 'o-4', occurredAt: tie, originType: null, semanticType: 'note' });
  await insertEvent({
    originId: 'o-5',
    occurredAt: '2025-03-01T12:00:00Z',
    originType: 'order',
    semanticType: 'note',
  });
  await insertEvent({
    originId: 'o-6',
    occurredAt: '2025-02-01T00:00:00Z',
    feed: ids.refunds,
    entities: [ids.bob],
  });
  await insertEvent({
    originId: 'n-1',
    occurredAt: '2025-02-15T08:30:00.5Z',
    connection: ids.news,
    feed: ids.newsItems,
    originType: 'item',
  });
  await insertEvent({
    originId: 'n-2',
    occurredAt: '2024-12-31T23:59:59.999999Z',
    connection: ids.news,
    feed: ids.newsItems,
    originType: 'item',
  });
  // The same origin_id under the other connection is another event.
  await insertEvent({
    originId: 'o-1',
    occurredAt: '2025-04-01T00:00:00Z',
    connection: ids.news,
    feed: ids.newsItems,
    originType: 'item',
  });
});

describe('GET /api/:org/events', () => {
  it('pages through every event newest first by occurred_at, ties by id, with no repeat and no gap', async () => {
    const all = await expected('true');
    expect(all).toHaveLength(9);
    expect(all.slice(0, 5)).toEqual(['o-1', 'o-4', 'o-3', 'o-2', 'o-5']);
    for (const limit of [1, 2, 4, 9, 50]) {
      const { origins, pages } = await everyEvent('', limit);
      expect(origins, `limit ${limit}`).toEqual(all);
      expect(pages).toBe(Math.ceil(all.length / limit));
    }
  });

  it('filters by connection, feed, feedKey, kind and entity, paging within the filter', async () => {
    const cases: [string, string, unknown[]][] = [
      [`&connectionId=${ids.news}`, 'connection_id = $1', [ids.news]],
      [`&feedId=${ids.refunds}`, 'feed_id = $1', [ids.refunds]],
      ['&feedKey=refunds', 'feed_id = $1', [ids.refunds]],
      ['&feedKey=items', 'feed_id = $1', [ids.newsItems]],
      ['&kind=item', `origin_type = 'item'`, []],
      [
        `&entityId=${ids.alice}`,
        'id IN (SELECT event_id FROM event_entities WHERE entity_id = $1)',
        [ids.alice],
      ],
      [`&entityId=${ids.bob}&feedKey=refunds`, `origin_id = 'o-6'`, []],
      [`&connectionId=${ids.shop}&kind=refund`, `origin_id = 'o-3'`, []],
    ];
    for (const [query, where, params] of cases) {
      const want = await expected(where, params);
      expect(want.length, query).toBeGreaterThan(0);
      expect((await everyEvent(query, 2)).origins, query).toEqual(want);
    }
    expect((await everyEvent('&feedKey=nothing', 2)).origins).toEqual([]);
    expect((await everyEvent('&entityId=987654321', 2)).origins).toEqual([]);
  });

  it('matches kind on origin_type, and on semantic_type only when there is no origin_type', async () => {
    expect((await everyEvent('&kind=note', 10)).origins).toEqual(['o-4']);
    const orders = (await everyEvent('&kind=order', 10)).origins;
    expect(orders).toEqual(await expected(`coalesce(origin_type, semantic_type) = 'order'`));
    expect(orders).toContain('o-5');
    expect(orders).not.toContain('o-4');
  });

  it('takes since (inclusive) and until (exclusive) on occurred_at', async () => {
    const tie = '2025-03-01T12:00:00.000001Z';
    expect((await everyEvent(`&since=${tie}`, 2)).origins).toEqual(
      await expected(`occurred_at >= $1`, [tie]),
    );
    expect((await everyEvent(`&since=${tie}`, 2)).origins).toEqual(['o-1', 'o-4', 'o-3', 'o-2']);
    expect((await everyEvent(`&until=${tie}`, 2)).origins).toEqual(await expected(`occurred_at < $1`, [tie]));
    expect((await everyEvent(`&until=${tie}`, 2)).origins).not.toContain('o-2');
    const window = '&since=2025-01-01T00:00:00Z&until=2025-03-01T13:00:00%2B01:00';
    // 13:00+01:00 is o-5's instant exactly: until leaves it out, since keeps o-1 at its own.
    expect((await everyEvent(window, 1)).origins).toEqual(['n-1', 'o-6', 'o-1']);
  });

  it('refuses a since, until, filter or cursor that is not valid with a 400 problem', async () => {
    for (const query of [
      'since=yesterday',
      'until=2025-13-01T00:00:00Z',
      'since=2025-01-01',
      'connectionId=abc',
      'entityId=1.5',
      'limit=0',
      'embedding=yes',
      'cursor=nonsense',
    ]) {
      expectProblem(await server.call('GET', `/api/default/events?${query}`), 400, 'validation_failed');
    }
    const res = await server.call('GET', '/api/default/events?since=yesterday');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/querystring/since' })]);
  });

  it('answers each event with the envelope field names, its links and issues; the embedding on request', async () => {
    const id = await insertEvent({
      originId: 'full',
      occurredAt: '2020-01-01T00:00:00Z',
      entities: [ids.bob],
    });
    await server.pool.query(
      `UPDATE events SET payload_type = 'markdown', payload_data = '{"total": 12.5}', payload_template = '{"t": 1}',
              attachments = '[{"url": "https://example.com/a.png"}]', author_name = 'Carol',
              source_url = 'https://shop.example.com/o/full', score = 42.5, origin_parent_id = 'parent-1',
              metadata = '{"currency": "EUR"}', embedding = '{0.25, -1, 3}',
              link_issues = '[{"problem": "ambiguous", "entityType": "person", "matches": []}]'
        WHERE id = $1`,
      [id],
    );
    const page = await server.call('GET', '/api/default/events?until=2020-01-02T00:00:00Z');
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    const [event] = page.body.events;
    expect(Object.keys(event).sort()).toEqual(
      [
        'id',
        'connectionId',
        'feedId',
        'origin_id',
        'origin_type',
        'payload_type',
        'payload_text',
        'payload_data',
        'payload_template',
        'attachments',
        'title',
        'author_name',
        'source_url',
        'occurred_at',
        'semantic_type',
        'score',
        'origin_parent_id',
        'metadata',
        'entityIds',
        'linkIssues',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
    expect(event).toEqual({
      id: Number(id),
      connectionId: Number(ids.shop),
      feedId: Number(ids.orders),
      origin_id: 'full',
      origin_type: 'order',
      payload_type: 'markdown',
      payload_text: 'text of full',
      payload_data: { total: 12.5 },
      payload_template: { t: 1 },
      attachments: [{ url: 'https://example.com/a.png' }],
      title: 'title of full',
      author_name: 'Carol',
      source_url: 'https://shop.example.com/o/full',
      occurred_at: '2020-01-01T00:00:00.000Z',
      semantic_type: null,
      score: 42.5,
      origin_parent_id: 'parent-1',
      metadata: { currency: 'EUR' },
      entityIds: [Number(ids.bob)],
      linkIssues: [{ problem: 'ambiguous', entityType: 'person', matches: [] }],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const withEmbedding = await server.call(
      'GET',
      '/api/default/events?until=2020-01-02T00:00:00Z&embedding=true',
    );
    expect(withEmbedding.body.events[0].embedding).toEqual([0.25, -1, 3]);
    const one = await server.call('GET', `/api/default/events/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.event).toEqual(event);
    expect(
      (await server.call('GET', `/api/default/events/${id}?embedding=true`)).body.event.embedding,
    ).toEqual([0.25, -1, 3]);
    // An event without links or issues says so with empty lists.
    const plain = (await everyEvent('&kind=refund', 10)).origins;
    expect(plain).toEqual(['o-3']);
    const refund = (await server.call('GET', '/api/default/events?kind=refund')).body.events[0];
    expect(refund).toMatchObject({ entityIds: [], linkIssues: [], payload_data: null });
    expect(refund).not.toHaveProperty('embedding');
    await server.pool.query('DELETE FROM events WHERE id = $1', [id]);
  });
});

describe('GET /api/:org/events/:eventId', () => {
  it('answers 404 for an event that is not there, not a number, or of another org', async () => {
    expect((await server.call('POST', '/api/orgs', { body: { slug: 'elsewhere' } })).status).toBe(201);
    const { rows } = await server.pool.query<{ id: string }>(`SELECT id FROM events WHERE origin_id = 'o-2'`);
    const id = rows[0]?.id as string;
    expect((await server.call('GET', `/api/default/events/${id}`)).body.event.entityIds).toEqual(
      [Number(ids.alice), Number(ids.bob)].sort((a, b) => a - b),
    );
    expectProblem(await server.call('GET', '/api/default/events/987654321'), 404, 'not_found');
    expectProblem(await server.call('GET', '/api/default/events/abc'), 404, 'not_found');
    expectProblem(await server.call('GET', '/api/default/events/99999999999999999999'), 404, 'not_found');
    expectProblem(await server.call('GET', `/api/elsewhere/events/${id}`), 404, 'not_found');
    expect((await server.call('GET', '/api/elsewhere/events')).body).toEqual({
      events: [],
      nextCursor: null,
    });
  });
});

describe('the OpenAPI document', () => {
  it('lists the event routes with their filters', async () => {
    const doc = (await server.call('GET', '/openapi.json', { token: null })).body;
    expect(doc.paths['/api/{org}/events/{eventId}']?.get?.operationId).toBe('getEvent');
    const list = doc.paths['/api/{org}/events']?.get;
    expect(list?.operationId).toBe('listEvents');
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining([
        'connectionId',
        'feedId',
        'feedKey',
        'kind',
        'entityId',
        'since',
        'until',
        'limit',
        'cursor',
        'embedding',
      ]),
    );
    const since = list.parameters.find((p: { name: string }) => p.name === 'since');
    expect(since.schema.format).toBe('date-time');
    const event = list.responses['200'].content['application/json'].schema.properties.events.items;
    expect(Object.keys(event.properties)).toEqual(
      expect.arrayContaining(['origin_id', 'occurred_at', 'entityIds']),
    );
  });
});
