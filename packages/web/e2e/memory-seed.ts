import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { ConsoleServer } from './console.js';

/**
 * What the memory and watcher pages show, written as a sync, links and `svc apply` would have:
 * events with SQL (as the server's own search tests write them), entities and their identities
 * with SQL (links make them; they have no write API), the memory model and relationships through
 * the API.
 */

export interface MemorySeed {
  connectionId: string;
  jane: number;
  acme: number;
  invoice: string;
  chat: string;
}

const schemaOp = (server: ConsoleServer, body: Record<string, unknown>) =>
  server.call('POST', '/api/default/operations/manage_entity_schema', { body });

async function entity(server: ConsoleServer, type: string, title: string, identity: [string, string]) {
  const { rows } = await server.pool.query<{ id: string }>(
    `WITH e AS (
       INSERT INTO entities (org_id, entity_type, title, traits)
       SELECT id, $1, $2, $3 FROM orgs WHERE slug = 'default' RETURNING id, org_id
     ), i AS (
       INSERT INTO entity_identities (org_id, entity_type, namespace, value, entity_id)
       SELECT org_id, $1, $4, $5, id FROM e
     )
     SELECT id FROM e`,
    [type, title, JSON.stringify({ plan: 'pro', seats: 12 }), identity[0], identity[1]],
  );
  return Number(rows[0]?.id);
}

async function event(
  server: ConsoleServer,
  seed: { connectionId: string; feedId: string; kind: string; title: string; text: string; at: string },
  entities: number[],
): Promise<string> {
  const { rows } = await server.pool.query<{ id: string }>(
    `INSERT INTO events (org_id, connection_id, feed_id, origin_id, origin_type, payload_type, payload_text,
                         title, occurred_at, metadata)
     SELECT id, $1, $2, $3, $4, 'text', $5, $6, $7, $8 FROM orgs WHERE slug = 'default' RETURNING id`,
    [
      seed.connectionId,
      seed.feedId,
      randomBytes(6).toString('hex'),
      seed.kind,
      seed.text,
      seed.title,
      seed.at,
      JSON.stringify({ folder: 'inbox' }),
    ],
  );
  const id = rows[0]?.id as string;
  for (const entityId of entities) {
    await server.pool.query('INSERT INTO event_entities (event_id, entity_id) VALUES ($1, $2)', [
      id,
      entityId,
    ]);
  }
  return id;
}

export async function seedMemory(server: ConsoleServer): Promise<MemorySeed> {
  for (const [slug, name] of [
    ['person', 'Person'],
    ['company', 'Company'],
  ]) {
    expect(
      (await schemaOp(server, { action: 'upsert', kind: 'entity_type', item: { slug, name } })).status,
    ).toBe(201);
  }
  const worksAt = {
    action: 'upsert',
    kind: 'relationship_type',
    item: { slug: 'works_at', name: 'Works at', rules: [{ source: 'person', target: 'company' }] },
  };
  expect((await schemaOp(server, worksAt)).status).toBe(201);

  const { rows } = await server.pool.query<{ org: string }>(
    `SELECT id AS org FROM orgs WHERE slug = 'default'`,
  );
  const org = rows[0]?.org as string;
  await server.pool.query(
    `INSERT INTO connector_definitions (org_id, connector_key, version, definition, package)
     VALUES ($1, 'mail', '1.0.0', '{}', 'mail')`,
    [org],
  );
  const c = await server.pool.query<{ id: string }>(
    `INSERT INTO connections (org_id, connector_key, display_name) VALUES ($1, 'mail', 'Support mailbox') RETURNING id`,
    [org],
  );
  const connectionId = c.rows[0]?.id as string;
  const f = await server.pool.query<{ id: string }>(
    `INSERT INTO feeds (org_id, connection_id, feed_key) VALUES ($1, $2, 'inbox') RETURNING id`,
    [org, connectionId],
  );
  const feedId = f.rows[0]?.id as string;

  const jane = await entity(server, 'person', 'Jane Doe', ['email', 'jane@example.com']);
  const acme = await entity(server, 'company', 'Acme Corp', ['domain', 'acme.example']);
  const related = await server.call('POST', '/api/default/relationships', {
    body: { type: 'works_at', sourceEntityId: jane, targetEntityId: acme },
  });
  expect(related.status, JSON.stringify(related.body)).toBe(201);

  const base = { connectionId, feedId };
  const invoice = await event(
    server,
    {
      ...base,
      kind: 'email',
      title: 'Invoice 1042 overdue',
      text: 'Jane writes that invoice 1042 is three weeks overdue and asks for a reminder to finance.',
      at: '2026-03-02T09:30:00Z',
    },
    [jane, acme],
  );
  const chat = await event(
    server,
    {
      ...base,
      kind: 'chat',
      title: 'Lunch plans',
      text: 'Shall we meet at noon by the river?',
      at: '2026-03-03T11:00:00Z',
    },
    [],
  );
  // More notes than a page holds, older than the rest: the list pages through them.
  await server.pool.query(
    `INSERT INTO events (org_id, connection_id, feed_id, origin_id, origin_type, payload_type, payload_text, title, occurred_at)
     SELECT o.id, $1, $2, 'note-' || n, 'note', 'text', 'Note number ' || n, 'Note ' || n,
            timestamptz '2026-01-01T00:00:00Z' + n * interval '1 hour'
       FROM orgs o, generate_series(1, 30) n WHERE o.slug = 'default'`,
    [connectionId, feedId],
  );
  return { connectionId, jane, acme, invoice, chat };
}
