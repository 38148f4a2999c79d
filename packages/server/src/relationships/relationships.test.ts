import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';

/**
 * Relationships against a real PostgreSQL: idempotent creation, the type's rules and metadata
 * schema, listing in both directions a page at a time, deletion, and orgs kept apart.
 */

let server: TestServer;
const entities: Record<string, number> = {};

/** An entity as links make them (entities have no write API of their own). */
async function entity(org: string, type: string, title: string): Promise<number> {
  const { rows } = await server.pool.query<{ id: string }>(
    `INSERT INTO entities (org_id, entity_type, title)
     SELECT id, $2, $3 FROM orgs WHERE slug = $1 RETURNING id`,
    [org, type, title],
  );
  return Number(rows[0]?.id);
}

const schemaOp = (org: string, body: Record<string, unknown>) =>
  server.call('POST', `/api/${org}/operations/manage_entity_schema`, { body });

const relate = (body: Record<string, unknown>, org = 'default', token?: string) =>
  server.call('POST', `/api/${org}/relationships`, { body, token });

beforeAll(async () => {
  server = await startTestServer();
  expect((await server.call('POST', '/api/orgs', { body: { slug: 'other' } })).status).toBe(201);
  for (const org of ['default', 'other']) {
    for (const [slug, name] of [
      ['person', 'Person'],
      ['company', 'Company'],
      ['ticket', 'Ticket'],
    ]) {
      expect(
        (await schemaOp(org, { action: 'upsert', kind: 'entity_type', item: { slug, name } })).status,
      ).toBe(201);
    }
  }
  const worksAt = {
    slug: 'works_at',
    name: 'Works at',
    metadata_schema: {
      type: 'object',
      properties: { role: { type: 'string' }, since: { type: 'integer', minimum: 1900 } },
      additionalProperties: false,
    },
    rules: [{ source: 'person', target: ['company'] }],
  };
  expect(
    (await schemaOp('default', { action: 'upsert', kind: 'relationship_type', item: worksAt })).status,
  ).toBe(201);
  const knows = { slug: 'knows', name: 'Knows' };
  expect(
    (await schemaOp('default', { action: 'upsert', kind: 'relationship_type', item: knows })).status,
  ).toBe(201);
  entities.jane = await entity('default', 'person', 'Jane');
  entities.joe = await entity('default', 'person', 'Joe');
  entities.acme = await entity('default', 'company', 'Acme');
  entities.ticket = await entity('default', 'ticket', 'T-1');
  entities.otherPerson = await entity('other', 'person', 'Olga');
});

const count = async () =>
  Number((await server.pool.query<{ n: string }>('SELECT count(*) AS n FROM relationships')).rows[0]?.n);

describe('POST /api/:org/relationships', () => {
  it('creates (201), then answers 200 unchanged, then updated when the metadata differs', async () => {
    const body = {
      type: 'works_at',
      sourceEntityId: entities.jane,
      targetEntityId: entities.acme,
      metadata: { role: 'CTO', since: 2020 },
    };
    const created = await relate(body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      result: 'created',
      relationship: { ...body, id: expect.any(Number) },
    });
    const again = await relate(body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...created.body, result: 'unchanged' });
    const updated = await relate({ ...body, metadata: { role: 'CEO' } });
    expect(updated.status).toBe(200);
    expect(updated.body.result).toBe('updated');
    expect(updated.body.relationship).toMatchObject({
      id: created.body.relationship.id,
      metadata: { role: 'CEO' },
    });
  });

  it("refuses a pair the type's rules do not allow: 422 naming the allowed types, nothing stored", async () => {
    const before = await count();
    const res = await relate({
      type: 'works_at',
      sourceEntityId: entities.ticket,
      targetEntityId: entities.acme,
    });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('relationship_not_allowed');
    expect(res.body.detail).toBe(
      'relationship type "works_at" does not join a "ticket" to a "company"; it allows person → company',
    );
    const reversed = await relate({
      type: 'works_at',
      sourceEntityId: entities.acme,
      targetEntityId: entities.jane,
    });
    expect(reversed.body.code).toBe('relationship_not_allowed');
    expect(await count()).toBe(before);
  });

  it('a type without rules joins any two entities', async () => {
    const res = await relate({
      type: 'knows',
      sourceEntityId: entities.ticket,
      targetEntityId: entities.acme,
    });
    expect(res.status).toBe(201);
  });

  it("refuses metadata that does not match the type's metadata_schema, with each error", async () => {
    const before = await count();
    const res = await relate({
      type: 'works_at',
      sourceEntityId: entities.joe,
      targetEntityId: entities.acme,
      metadata: { since: 1800, salary: 1 },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('invalid_metadata');
    expect(res.body.errors.map((e: { message: string }) => e.message).sort()).toEqual([
      'salary: is not allowed',
      'since: must be >= 1900',
    ]);
    expect(await count()).toBe(before);
  });

  it('an unknown type is 422 unknown_relationship_type; an unknown entity is 404', async () => {
    const unknownType = await relate({
      type: 'likes',
      sourceEntityId: entities.jane,
      targetEntityId: entities.joe,
    });
    expect(unknownType.status).toBe(422);
    expect(unknownType.body.code).toBe('unknown_relationship_type');
    const unknownEntity = await relate({
      type: 'knows',
      sourceEntityId: entities.jane,
      targetEntityId: 999_999_999,
    });
    expect(unknownEntity.status).toBe(404);
    expect(unknownEntity.body.code).toBe('not_found');
  });

  it("cannot link another org's entity (404), and another org sees none of this org's", async () => {
    const res = await relate({
      type: 'knows',
      sourceEntityId: entities.jane,
      targetEntityId: entities.otherPerson,
    });
    expect(res.status).toBe(404);
    const fromOther = await relate(
      { type: 'knows', sourceEntityId: entities.otherPerson, targetEntityId: entities.jane },
      'other',
    );
    // The other org has no "knows" type either: the type is looked up in the caller's org first.
    expect(fromOther.status).toBe(422);
    const listed = await server.call('GET', `/api/other/relationships?entityId=${entities.jane}`);
    expect(listed.status).toBe(200);
    expect(listed.body.relationships).toEqual([]);
  });

  it('needs the write scope', async () => {
    const token = (await createToken(server, 'default', ['read'])).secret;
    const res = await relate(
      { type: 'knows', sourceEntityId: entities.joe, targetEntityId: entities.jane },
      'default',
      token,
    );
    expect(res.status).toBe(403);
  });
});

describe('GET and DELETE /api/:org/relationships', () => {
  it("lists an entity's relationships in both directions, newest first, a page at a time", async () => {
    const joe = entities.joe;
    const made: number[] = [];
    for (const [source, target] of [
      [joe, entities.jane],
      [entities.jane, joe],
      [joe, entities.ticket],
    ] as const) {
      const res = await relate({ type: 'knows', sourceEntityId: source, targetEntityId: target });
      expect(res.status).toBe(201);
      made.push(res.body.relationship.id);
    }
    const first = await server.call('GET', `/api/default/relationships?entityId=${joe}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.relationships.map((r: { id: number }) => r.id)).toEqual([made[2], made[1]]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await server.call(
      'GET',
      `/api/default/relationships?entityId=${joe}&limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.relationships.map((r: { id: number }) => r.id)).toEqual([made[0]]);
    expect(second.body.nextCursor).toBeNull();

    const byType = await server.call('GET', '/api/default/relationships?type=works_at');
    expect(byType.body.relationships).toHaveLength(1);
    expect(byType.body.relationships[0]).toMatchObject({
      sourceEntityId: entities.jane,
      targetEntityId: entities.acme,
    });
  });

  it("an entity's page shows its relationships in both directions", async () => {
    const res = await server.call('GET', `/api/default/entities/${entities.jane}`);
    expect(res.status).toBe(200);
    const pairs = res.body.entity.relationships.map(
      (r: { type: string; sourceEntityId: number; targetEntityId: number }) =>
        `${r.type}:${r.sourceEntityId}->${r.targetEntityId}`,
    );
    expect(pairs.sort()).toEqual(
      [
        `works_at:${entities.jane}->${entities.acme}`,
        `knows:${entities.joe}->${entities.jane}`,
        `knows:${entities.jane}->${entities.joe}`,
      ].sort(),
    );
  });

  it('deletes one (then 404); another org cannot delete it', async () => {
    const created = await relate({
      type: 'knows',
      sourceEntityId: entities.acme,
      targetEntityId: entities.jane,
    });
    const id = created.body.relationship.id;
    const otherToken = (await createToken(server, 'other', ['write'])).secret;
    const fromOther = await server.call('DELETE', `/api/other/relationships/${id}`, { token: otherToken });
    expect(fromOther.status).toBe(404);
    const deleted = await server.call('DELETE', `/api/default/relationships/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ result: 'deleted', id });
    expect((await server.call('DELETE', `/api/default/relationships/${id}`)).status).toBe(404);
  });

  it('deleting a relationship type in use is 409 relationship_type_in_use; unused, it goes', async () => {
    const res = await schemaOp('default', { action: 'delete', kind: 'relationship_type', slug: 'knows' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('relationship_type_in_use');
    expect(res.body.detail).toContain('relationship type "knows" has relationships');
    await server.pool.query(`DELETE FROM relationships WHERE relationship_type = 'knows'`);
    const gone = await schemaOp('default', { action: 'delete', kind: 'relationship_type', slug: 'knows' });
    expect(gone.body.result).toBe('deleted');
  });

  it('a relationship goes with either of its entities', async () => {
    const doomed = await entity('default', 'company', 'Gone Inc');
    const res = await relate({ type: 'works_at', sourceEntityId: entities.joe, targetEntityId: doomed });
    expect(res.status).toBe(201);
    await server.pool.query('DELETE FROM entities WHERE id = $1', [doomed]);
    const listed = await server.call(
      'GET',
      `/api/default/relationships?entityId=${entities.joe}&type=works_at`,
    );
    expect(listed.body.relationships).toEqual([]);
  });
});

describe('concurrent posts of one relationship', () => {
  it('store one row: one answer is created, the others unchanged', async () => {
    const source = await entity('default', 'person', 'Racer');
    const body = { type: 'works_at', sourceEntityId: source, targetEntityId: entities.acme, metadata: {} };
    const answers = await Promise.all(Array.from({ length: 8 }, () => relate(body)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    const ids = new Set(answers.map((a) => a.body.relationship.id));
    expect(ids.size).toBe(1);
  });
});
