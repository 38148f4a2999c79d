import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';

/**
 * GET /api/:org/search: the org's events by their words, a title match above a body match,
 * filtered, and a 422 rather than nothing for a query with no words. Events are written with SQL,
 * as a sync's batch or memory_save would have written them.
 */

let server: TestServer;
const orgs = { own: '', other: '' };
const ids = { mail: '', chat: '', mailFeed: '', chatFeed: '', alice: '' };
const events: Record<string, string> = {};

async function connection(orgId: string, key: string): Promise<{ id: string; feedId: string }> {
  await server.pool.query(
    `INSERT INTO connector_definitions (org_id, connector_key, version, definition, package)
     VALUES ($1, $2, '1.0.0', '{}', $2) ON CONFLICT DO NOTHING`,
    [orgId, key],
  );
  const c = await server.pool.query(
    'INSERT INTO connections (org_id, connector_key) VALUES ($1, $2) RETURNING id',
    [orgId, key],
  );
  const f = await server.pool.query(
    `INSERT INTO feeds (org_id, connection_id, feed_key) VALUES ($1, $2, 'items') RETURNING id`,
    [orgId, c.rows[0].id],
  );
  return { id: String(c.rows[0].id), feedId: String(f.rows[0].id) };
}

interface Seed {
  name: string;
  title: string | null;
  text: string;
  at: string;
  org?: string;
  connection?: { id: string; feedId: string } | null;
  originType?: string | null;
  semanticType?: string | null;
  entities?: string[];
}

async function insertEvent(seed: Seed): Promise<string> {
  const c = seed.connection === undefined ? { id: ids.mail, feedId: ids.mailFeed } : seed.connection;
  const { rows } = await server.pool.query<{ id: string }>(
    `INSERT INTO events (org_id, connection_id, feed_id, origin_id, origin_type, semantic_type, payload_type,
                         payload_text, title, source_url, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'text', $7, $8, $9, $10) RETURNING id`,
    [
      seed.org ?? orgs.own,
      c?.id ?? null,
      c?.feedId ?? null,
      seed.name,
      seed.originType === undefined ? 'email' : seed.originType,
      seed.semanticType ?? null,
      seed.text,
      seed.title,
      `https://example.com/${seed.name}`,
      seed.at,
    ],
  );
  const id = rows[0]?.id as string;
  for (const entity of seed.entities ?? []) {
    await server.pool.query('INSERT INTO event_entities (event_id, entity_id) VALUES ($1, $2)', [id, entity]);
  }
  events[seed.name] = id;
  return id;
}

const search = (query: string, token?: string | null) =>
  server.call('GET', `/api/default/search?${query}`, token === undefined ? {} : { token });
const hitIds = (body: { hits: { eventId: number }[] }) => body.hits.map((h) => String(h.eventId));

beforeAll(async () => {
  server = await startTestServer();
  expect((await server.call('POST', '/api/orgs', { body: { slug: 'rival', name: 'Rival' } })).status).toBe(
    201,
  );
  const { rows } = await server.pool.query<{ id: string; slug: string }>('SELECT id, slug FROM orgs');
  orgs.own = rows.find((r) => r.slug === 'default')?.id as string;
  orgs.other = rows.find((r) => r.slug === 'rival')?.id as string;
  const mail = await connection(orgs.own, 'mail');
  const chat = await connection(orgs.own, 'chat');
  Object.assign(ids, { mail: mail.id, mailFeed: mail.feedId, chat: chat.id, chatFeed: chat.feedId });
  const alice = await server.pool.query(
    `INSERT INTO entities (org_id, entity_type, title) VALUES ($1, 'person', 'Alice') RETURNING id`,
    [orgs.own],
  );
  ids.alice = String(alice.rows[0].id);

  await insertEvent({
    name: 'budget-title',
    title: 'Quarterly budget review',
    text: 'The numbers for the third quarter are in; see the attached sheet.',
    at: '2026-03-01T10:00:00Z',
  });
  await insertEvent({
    name: 'budget-body',
    title: 'Team meeting',
    text: 'We talked about hiring, then about the budgets of next year, then lunch.',
    at: '2026-03-05T10:00:00Z',
    connection: chat,
    originType: 'message',
    entities: [ids.alice],
  });
  await insertEvent({
    name: 'budget-old',
    title: 'Old budget',
    text: 'Last year the budget was smaller.',
    at: '2025-01-10T10:00:00Z',
  });
  await insertEvent({
    name: 'budget-fact',
    title: null,
    text: 'The marketing budget is owned by Alice.',
    at: '2026-03-06T10:00:00Z',
    connection: null,
    originType: 'agent',
    semanticType: 'fact',
    entities: [ids.alice],
  });
  await insertEvent({ name: 'lunch', title: 'Lunch', text: 'Pizza on Friday.', at: '2026-03-02T10:00:00Z' });
  // Another org holds the same words: never an answer to this org.
  const rival = await connection(orgs.other, 'mail');
  await insertEvent({
    name: 'rival-budget',
    title: 'Quarterly budget review',
    text: 'Their budget, kept in Zurich.',
    at: '2026-03-01T10:00:00Z',
    org: orgs.other,
    connection: rival,
  });
});

describe('GET /api/:org/search', () => {
  it('ranks a title match above a body match, with cited items and a snippet', async () => {
    const res = await search('q=budget');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.mode).toBe('text');
    expect(res.body.modeNote).toMatch(/^text search only: .*no embeddings provider/);
    expect(res.body.coverage).toBe('all');
    const found = hitIds(res.body);
    expect(found.sort()).toEqual(
      [events['budget-title'], events['budget-body'], events['budget-old'], events['budget-fact']].sort(),
    );
    const rank = (name: string) => res.body.hits.find((h: any) => String(h.eventId) === events[name]).rank;
    expect(rank('budget-title')).toBeGreaterThan(rank('budget-body'));
    expect(rank('budget-old')).toBeGreaterThan(rank('budget-fact'));
    // In its title and its body: first.
    expect(res.body.hits[0]).toMatchObject({ eventId: Number(events['budget-old']) });
    const body = res.body.hits.find((h: any) => String(h.eventId) === events['budget-body']);
    expect(body).toMatchObject({
      title: 'Team meeting',
      sourceUrl: 'https://example.com/budget-body',
      occurredAt: '2026-03-05T10:00:00.000Z',
      connectionId: Number(ids.chat),
    });
    // Stemmed: "budgets" in the text is found by "budget", and marked in the snippet.
    expect(body.snippet).toContain('«budgets»');
    const fact = res.body.hits.find((h: any) => String(h.eventId) === events['budget-fact']);
    expect(fact.connectionId).toBeNull();
  });

  it("answers the org's own events only", async () => {
    const res = await search('q=zurich');
    expect(res.status).toBe(200);
    expect(res.body.hits).toEqual([]);
    expect(hitIds((await search('q=budget&limit=100')).body)).not.toContain(events['rival-budget']);
  });

  it('filters by time, connection, feed, kind and entity, and takes a limit', async () => {
    const found = async (query: string) => hitIds((await search(`q=budget&${query}`)).body).sort();
    expect(await found('since=2026-03-01T10:00:00Z&until=2026-03-06T00:00:00Z')).toEqual(
      [events['budget-title'], events['budget-body']].sort(),
    );
    expect(await found('until=2026-01-01T00:00:00%2B01:00')).toEqual([events['budget-old']]);
    expect(await found(`connectionId=${ids.chat}`)).toEqual([events['budget-body']]);
    expect(await found(`feedId=${ids.mailFeed}`)).toEqual(
      [events['budget-title'], events['budget-old']].sort(),
    );
    expect(await found('kind=message')).toEqual([events['budget-body']]);
    expect(await found('kind=fact')).toEqual([events['budget-fact']]);
    expect(await found(`entityId=${ids.alice}`)).toEqual(
      [events['budget-body'], events['budget-fact']].sort(),
    );
    expect(await found('limit=1')).toEqual([events['budget-old']]);
  });

  it('filters by when svc received an event (a watcher window), whatever date it carries', async () => {
    // The old budget arrived long ago; the others arrived as this test file began.
    await server.pool.query(`UPDATE events SET created_at = '2020-06-01T00:00:00Z' WHERE id = $1`, [
      events['budget-old'],
    ]);
    const found = async (query: string) => hitIds((await search(`q=budget&${query}`)).body).sort();
    expect(await found('arrivedUntil=2021-01-01T00:00:00Z')).toEqual([events['budget-old']]);
    const recent = await found('arrivedSince=2021-01-01T00:00:00Z');
    expect(recent).not.toContain(events['budget-old']);
    expect(recent).toContain(events['budget-title']);
  });

  it('takes web search syntax: a phrase, an exclusion, or', async () => {
    const found = async (q: string) => hitIds((await search(`q=${encodeURIComponent(q)}`)).body).sort();
    expect(await found('"budget review"')).toEqual([events['budget-title']]);
    expect(await found('budget -lunch -quarterly -marketing')).toEqual([events['budget-old']]);
    expect(await found('pizza or hiring')).toEqual([events.lunch, events['budget-body']].sort());
  });

  it('is 422 search_query_empty for a q with no words to search for', async () => {
    for (const query of ['', 'q=', 'q=%20%20', 'q=the%20of', 'q=%21%21%3F']) {
      const res = await search(query);
      expect(res.status, query).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 422, code: 'search_query_empty' });
    }
  });

  it('needs the read scope', async () => {
    const reader = await createToken(server, 'default', ['read']);
    expect((await search('q=budget', reader.secret)).status).toBe(200);
    const sender = await createToken(server, 'default', ['messages']);
    const refused = await search('q=budget', sender.secret);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    expect((await search('q=budget', null)).status).toBe(401);
  });

  it('stores and finds an event whose body is longer than a tsvector may hold', async () => {
    // 3 MB of distinct words: PostgreSQL refuses a tsvector over 1 MB, so only a prefix is indexed.
    const words = Array.from({ length: 150_000 }, (_, i) => `w${i.toString(36)}x${(i * 7919).toString(36)}`);
    const id = await insertEvent({
      name: 'huge',
      title: 'Enormous export',
      text: `zanzibar ${words.join(' ')} qwertyuiop`,
      at: '2026-03-07T10:00:00Z',
    });
    expect(hitIds((await search('q=zanzibar')).body)).toEqual([id]);
    // Past the indexed prefix: not found by its body, still by its title.
    expect(hitIds((await search('q=qwertyuiop')).body)).toEqual([]);
    expect(hitIds((await search('q=enormous')).body)).toEqual([id]);
  });

  it('says when only the newest events were searched, and a time range reaches the older ones', async () => {
    // 12,000 events holding both words apart, and one old one holding them as a phrase: the newest
    // 5,000 hold no match, and the index would hand over every row, so only the newest are searched.
    await server.pool.query(
      `INSERT INTO events (org_id, connection_id, feed_id, origin_id, payload_text, occurred_at)
       SELECT $1, $2, $3, 'bulk-' || n, 'zeta comes first, then much later eta', '2026-05-01'::timestamptz + n * interval '1 minute'
         FROM generate_series(1, 12000) n`,
      [orgs.own, ids.mail, ids.mailFeed],
    );
    const old = await insertEvent({
      name: 'phrase-old',
      title: null,
      text: 'zeta eta together',
      at: '2026-04-01T00:00:00Z',
    });
    await server.pool.query('ANALYZE events');
    const newest = await search('q=%22zeta%20eta%22');
    expect(newest.body).toMatchObject({ coverage: 'newest', hits: [] });
    const older = await search('q=%22zeta%20eta%22&until=2026-05-01T00:00:00Z');
    expect(older.body.coverage).toBe('all');
    expect(hitIds(older.body)).toEqual([old]);
    // A common word has its matches among the newest events: all searched, newest ranked.
    const common = await search('q=zeta&limit=5');
    expect(common.body.coverage).toBe('all');
    expect(common.body.hits).toHaveLength(5);
  });
});
