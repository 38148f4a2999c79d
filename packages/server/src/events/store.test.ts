import type { EventEnvelope } from '@svc/connector-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startTestServer, type TestServer } from '../../test/harness.js';
import { transaction } from '../db/transaction.js';
import { type EventTarget, storeEvents } from './store.js';

/**
 * storeEvents writes a large batch's new items with COPY and the rest with an upsert: both must
 * store the same rows from the same envelopes, and neither may duplicate an item.
 */

let server: TestServer;
let databaseUrl: string;
const targets: EventTarget[] = [];

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  server = await startTestServer({ databaseUrl });
  await server.call('POST', '/api/default/connectors', { body: { package: 'rss' } });
  const orgId = String((await server.pool.query(`SELECT id FROM orgs WHERE slug = 'default'`)).rows[0].id);
  for (let i = 0; i < 2; i++) {
    const { body } = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'rss' } });
    targets.push({
      orgId,
      connectionId: String(body.connection.id),
      feedId: String(body.feeds[0].id),
      runId: '1',
    });
  }
});
afterAll(() => server?.close());

/** Envelopes with every field, and text that COPY's format must escape. */
const envelopeOf = (i: number, version = 1): EventEnvelope =>
  ({
    origin_id: `item-${i}`,
    origin_type: i % 2 ? 'note' : 'comment',
    semantic_type: i % 3 ? null : 'message',
    payload_type: 'markdown',
    payload_text: `v${version} line one\tcolumn\nline two \\N back\\slash\r\n ünïcødé 🙂 ${i}`,
    payload_data: i % 4 ? { nested: { tab: 'a\tb', n: i, ok: true, none: null }, list: [1, 'two'] } : null,
    payload_template: i % 5 ? null : { blocks: ['\\n stays'] },
    attachments: i % 6 ? undefined : [{ url: 'https://example.com/a b.png', mime: 'image/png' }],
    title: i % 7 ? `Title ${i} "quoted"` : undefined,
    author_name: '\\N',
    source_url: `https://example.com/items/${i}?a=1&b=2`,
    occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    score: i % 2 ? i / 3 : null,
    origin_parent_id: i > 0 ? `item-${i - 1}` : null,
    metadata: { stars: i, tags: ['x', 'y\nz'] },
    embedding: i % 8 ? [0.5, -1e-7, i] : null,
  }) as unknown as EventEnvelope;

/** How many COPY statements the last `store` sent: the bulk path ran, or not. */
let copies = 0;
const store = (target: EventTarget, envelopes: EventEnvelope[], pool = server.pool) =>
  transaction(pool, (client) => {
    copies = 0;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const counting = new Proxy(client, {
      get: (target, key) =>
        key === 'query'
          ? (...args: unknown[]) => {
              if (/^COPY /.test((args[0] as { text?: string })?.text ?? '')) copies++;
              return query(...args);
            }
          : Reflect.get(target, key),
    });
    return storeEvents(counting, target, envelopes);
  });

/** The rows of a feed as a user reads them: every envelope column, by origin_id. */
async function rowsOf(target: EventTarget) {
  const { rows } = await server.pool.query(
    `SELECT origin_id, origin_type, semantic_type, payload_type, payload_text, payload_data, payload_template,
            attachments, title, author_name, source_url, occurred_at, score, origin_parent_id, metadata, embedding
       FROM events WHERE feed_id = $1 ORDER BY origin_id`,
    [target.feedId],
  );
  return rows;
}

describe('storeEvents', () => {
  it('stores the same rows whether a batch is copied in or upserted', async () => {
    const [copied, upserted] = targets as [EventTarget, EventTarget];
    const envelopes = Array.from({ length: 1200 }, (_, i) => envelopeOf(i));
    const big = await store(copied, envelopes);
    expect(copies).toBe(1);
    expect(big.inserted).toBe(1200);
    expect(big.ids.size).toBe(1200);
    // 50 at a time: below the size at which COPY is used.
    for (let at = 0; at < envelopes.length; at += 50) {
      await store(upserted, envelopes.slice(at, at + 50));
      expect(copies).toBe(0);
    }
    const [a, b] = [await rowsOf(copied), await rowsOf(upserted)];
    expect(a).toHaveLength(1200);
    expect(a).toEqual(b);
    expect(a.find((row) => row.origin_id === 'item-8')).toMatchObject({
      payload_text: 'v1 line one\tcolumn\nline two \\N back\\slash\r\n ünïcødé 🙂 8',
      author_name: '\\N',
      payload_data: null,
      attachments: null,
      embedding: null,
    });
    // The ids answered are the rows' ids.
    const { rows } = await server.pool.query('SELECT id, origin_id FROM events WHERE feed_id = $1', [
      copied.feedId,
    ]);
    expect(new Map(rows.map((row) => [row.origin_id, String(row.id)]))).toEqual(big.ids);
  });

  it('updates the items it has and copies only the new ones, never a second row', async () => {
    const [copied] = targets as [EventTarget];
    // 600 seen before (updated), 900 new (copied).
    const envelopes = Array.from({ length: 1500 }, (_, i) => envelopeOf(600 + i, 2));
    const again = await store(copied, envelopes);
    expect(copies).toBe(1);
    expect(again.inserted).toBe(900);
    const rows = await rowsOf(copied);
    expect(rows).toHaveLength(2100);
    expect(rows.find((row) => row.origin_id === 'item-700')?.payload_text).toMatch(/^v2 /);
    expect(rows.find((row) => row.origin_id === 'item-100')?.payload_text).toMatch(/^v1 /);
    // The same batch once more (a retry after a crash): nothing new.
    expect((await store(copied, envelopes)).inserted).toBe(0);
    expect(await rowsOf(copied)).toHaveLength(2100);
  });

  it('fails a batch the database refuses mid-COPY, and leaves its connection usable', async () => {
    const [copied] = targets as [EventTarget];
    // One connection: the next statement must run on the one the failed COPY used.
    const single = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      const envelopes = Array.from({ length: 10_000 }, (_, i) => envelopeOf(5000 + i));
      // storeEvents takes what the child's checks let through; the database refuses a NUL.
      (envelopes[3] as { payload_text: string }).payload_text = 'a NUL \u0000 here';
      await expect(store(copied, envelopes, single)).rejects.toThrow(/0x00/);
      expect((await single.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
    } finally {
      await single.end();
    }
    expect(await rowsOf(copied)).toHaveLength(2100);
  });
});
