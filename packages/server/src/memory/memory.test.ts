import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  for (const agentId of ['scout', 'keeper']) {
    const res = await server.call('POST', '/api/default/agents', { body: { agentId, name: agentId } });
    expect(res.status).toBe(201);
  }
});

/** Calls `manage_entity_schema` in org `default`, with the admin password unless `token` is given. */
function op(body: Record<string, unknown>, token?: string) {
  return server.call('POST', '/api/default/operations/manage_entity_schema', { body, token });
}

const upsert = (kind: string, item: Record<string, unknown>, token?: string) =>
  op({ action: 'upsert', kind, item }, token);

const morningBrief = {
  slug: 'morning-brief',
  name: 'Morning brief',
  schedule: '0 8 * * 1-5',
  prompt: 'Summarise what changed overnight.',
  agent: 'scout',
  timezone: 'Europe/Berlin',
};

describe('manage_entity_schema', () => {
  it.each([
    ['entity_type', { slug: 'person', name: 'Person', description: 'A human.' }, { name: 'People' }],
    ['relationship_type', { slug: 'works_at', name: 'Works at' }, { description: 'Employment.' }],
    ['watcher', morningBrief, { schedule: '30 7 * * 1-5' }],
  ])('upserts a %s: created, unchanged with the same updatedAt, then updated', async (kind, item, change) => {
    const created = await upsert(kind, item);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ result: 'created', kind, item });

    const again = await upsert(kind, item);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ result: 'unchanged', kind, item });
    expect(again.body.item.updatedAt).toBe(created.body.item.updatedAt);

    const updated = await upsert(kind, { ...item, ...change });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ result: 'updated', kind, item: { ...item, ...change } });
    expect(updated.body.item.createdAt).toBe(created.body.item.createdAt);
    expect(updated.body.item.updatedAt > created.body.item.updatedAt).toBe(true);

    // Put it back, so the listings below see the first version.
    expect((await upsert(kind, item)).body.result).toBe('updated');
  });

  it('answers null for optional fields that were left out', async () => {
    const res = await upsert('entity_type', { slug: 'company', name: 'Company' });
    expect(res.body.item).toMatchObject({ slug: 'company', description: null });
    const watcher = await upsert('watcher', { ...morningBrief, slug: 'no-tz', timezone: undefined });
    expect(watcher.body.item.timezone).toBeNull();
    await op({ action: 'delete', kind: 'entity_type', slug: 'company' });
    await op({ action: 'delete', kind: 'watcher', slug: 'no-tz' });
  });

  it('lists all three kinds at once, and one kind with `kind`', async () => {
    const all = await op({ action: 'list' });
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(['entityTypes', 'relationshipTypes', 'watchers']);
    expect(all.body.entityTypes).toEqual([
      expect.objectContaining({ slug: 'person', name: 'Person', description: 'A human.' }),
    ]);
    expect(all.body.relationshipTypes).toEqual([
      expect.objectContaining({ slug: 'works_at', name: 'Works at', description: null }),
    ]);
    expect(all.body.watchers).toEqual([expect.objectContaining(morningBrief)]);

    const watchers = await op({ action: 'list', kind: 'watcher' });
    expect(watchers.status).toBe(200);
    expect(watchers.body).toEqual({ watchers: all.body.watchers });
  });

  it('keeps each org to its own schema', async () => {
    expect((await server.call('POST', '/api/orgs', { body: { slug: 'other' } })).status).toBe(201);
    const res = await server.call('POST', '/api/other/operations/manage_entity_schema', {
      body: { action: 'list' },
    });
    expect(res.body).toEqual({ entityTypes: [], relationshipTypes: [], watchers: [] });
  });

  it('deletes (deleted, then unchanged)', async () => {
    await upsert('relationship_type', { slug: 'knows', name: 'Knows' });
    const first = await op({ action: 'delete', kind: 'relationship_type', slug: 'knows' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ result: 'deleted', kind: 'relationship_type', slug: 'knows' });
    const second = await op({ action: 'delete', kind: 'relationship_type', slug: 'knows' });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ result: 'unchanged', kind: 'relationship_type', slug: 'knows' });

    // A slug of one kind is not touched by a delete of another.
    const wrongKind = await op({ action: 'delete', kind: 'relationship_type', slug: 'person' });
    expect(wrongKind.body.result).toBe('unchanged');
    const people = await op({ action: 'list', kind: 'entity_type' });
    expect(people.body.entityTypes.map((e: any) => e.slug)).toEqual(['person']);
  });

  it('lets a read-only token list but not upsert or delete', async () => {
    const { secret } = await createToken(server, 'default', ['read']);
    const list = await op({ action: 'list', kind: 'entity_type' }, secret);
    expect(list.status).toBe(200);
    expect(list.body.entityTypes.map((e: any) => e.slug)).toEqual(['person']);

    const before = await op({ action: 'list' });
    const denied = await upsert('entity_type', { slug: 'place', name: 'Place' }, secret);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('forbidden');
    const deleteDenied = await op({ action: 'delete', kind: 'entity_type', slug: 'person' }, secret);
    expect(deleteDenied.status).toBe(403);
    expect((await op({ action: 'list' })).body).toEqual(before.body);

    // A write token may.
    const writer = await createToken(server, 'default', ['write']);
    const allowed = await upsert('entity_type', { slug: 'place', name: 'Place' }, writer.secret);
    expect(allowed.status).toBe(201);
    await op({ action: 'delete', kind: 'entity_type', slug: 'place' });
  });

  it('refuses to delete an agent that a watcher names, until the watcher is gone', async () => {
    const watcher = await upsert('watcher', { ...morningBrief, slug: 'keeper-watch', agent: 'keeper' });
    expect(watcher.status).toBe(201);
    const refused = await server.call('DELETE', '/api/default/agents/keeper');
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('conflict');
    expect(refused.body.detail).toContain('keeper');
    expect((await server.call('GET', '/api/default/agents/keeper')).status).toBe(200);

    await op({ action: 'delete', kind: 'watcher', slug: 'keeper-watch' });
    const deleted = await server.call('DELETE', '/api/default/agents/keeper');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ result: 'deleted', agentId: 'keeper' });
  });

  it('re-points a watcher to another agent, and refuses one that does not exist', async () => {
    await server.call('POST', '/api/default/agents', { body: { agentId: 'relief', name: 'Relief' } });
    const moved = await upsert('watcher', { ...morningBrief, agent: 'relief' });
    expect(moved.body).toMatchObject({ result: 'updated', item: { agent: 'relief' } });
    const ghost = await upsert('watcher', { ...morningBrief, agent: 'ghost' });
    expect(ghost.status).toBe(422);
    expect(ghost.body.code).toBe('unknown_agent');
    expect(ghost.body.errors).toEqual([expect.objectContaining({ path: '/body/item/agent' })]);
    expect((await upsert('watcher', morningBrief)).body.result).toBe('updated');
  });

  it.each(['UTC', 'America/New_York', 'Asia/Kolkata'])('accepts the time zone %s', async (timezone) => {
    const res = await upsert('watcher', { ...morningBrief, slug: 'tz-check', timezone });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    expect(res.body.item.timezone).toBe(timezone);
  });

  it.each(['Mars/Olympus_Mons', 'GMT+25', 'berlin', ''])('refuses the time zone %j', async (timezone) => {
    const res = await upsert('watcher', { ...morningBrief, slug: 'tz-bad', timezone });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: any) => e.path)).toEqual(['/body/item/timezone']);
  });

  it.each(['* * * * *', '*/15 9-17 * * 1-5', '0 0 1 1 *', '5 4 * * sun', '0 22 * * 7'])(
    'accepts the 5-field cron %j',
    async (schedule) => {
      const res = await upsert('watcher', { ...morningBrief, slug: 'cron-check', schedule });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      expect(res.body.item.schedule).toBe(schedule);
    },
  );

  it.each([
    ['six fields (seconds)', '0 0 8 * * *'],
    ['four fields', '0 8 * *'],
    ['hour 24', '0 24 * * *'],
    ['month 13', '0 8 * 13 *'],
    ['a nickname', '@daily'],
    ['an empty string', ''],
  ])('refuses a cron with %s', async (_label, schedule) => {
    const res = await upsert('watcher', { ...morningBrief, slug: 'cron-bad', schedule });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: any) => e.path)).toEqual(['/body/item/schedule']);
    const slugs = (await op({ action: 'list', kind: 'watcher' })).body.watchers.map((w: any) => w.slug);
    expect(slugs).not.toContain('cron-bad');
  });
});

/** The same value with every object's keys in reverse order. */
const reversedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reversedKeys)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([k, v]) => [k, reversedKeys(v)]),
        )
      : value;

describe('manage_entity_schema: the fields bundles write', () => {
  const contact = {
    slug: 'contact',
    name: 'Contact',
    icon: '👤',
    color: '#3b82f6',
    metadata_schema: {
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, seats: { type: 'integer' } },
      required: ['email'],
    },
  };
  const employs = {
    slug: 'employs',
    name: 'Employs',
    metadata_schema: { type: 'object', properties: { since: { type: 'string' } } },
    rules: [{ source: 'contact', target: ['contact', 'person'] }],
  };
  const digest = {
    ...morningBrief,
    slug: 'digest',
    description: 'What happened, in three lines',
    extraction_schema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
    tags: ['daily', 'ops'],
    sources: [{ connector: 'rss', feed: 'items' }, { entity_type: 'contact' }],
    notification_channel: { platform: 'scout-team-chat', channel: 'C1' },
    min_cooldown_seconds: 600,
  };

  it.each([
    ['entity_type', contact, { color: 'red' }],
    ['relationship_type', employs, { rules: [{ source: ['contact'], target: 'contact' }] }],
    ['watcher', digest, { tags: ['daily'] }],
  ])(
    'stores, answers and lists every field of a %s; the same item again is unchanged',
    async (kind, item, change) => {
      const created = await upsert(kind, item);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.item).toMatchObject(item);
      // Key order differs from the stored jsonb's: still the same value.
      const reordered = reversedKeys(item);
      const again = await upsert(kind, reordered as Record<string, unknown>);
      expect(again.body.result).toBe('unchanged');
      expect(again.body.item.updatedAt).toBe(created.body.item.updatedAt);
      const updated = await upsert(kind, { ...item, ...change });
      expect(updated.body).toMatchObject({ result: 'updated', item: change });
      const listed = await op({ action: 'list', kind });
      expect(Object.values(listed.body)[0]).toContainEqual(expect.objectContaining({ ...item, ...change }));
      await op({ action: 'delete', kind, slug: item.slug });
    },
  );

  it.each([
    ['entity_type', 'metadata_schema', { type: 'strnig' }, 'type: must be one of'],
    ['relationship_type', 'metadata_schema', { $ref: '#/$defs/nowhere' }, "can't resolve reference"],
    ['watcher', 'extraction_schema', { type: 'strnig' }, 'type: must be one of'],
    ['watcher', 'extraction_schema', { type: 'array', items: {} }, 'the root must be "type": "object"'],
    ['watcher', 'extraction_schema', { type: 'object' }, 'the root must have "properties"'],
    // Patterns run on RE2 (linear time): lookaround and backreferences are refused when stored.
    ['entity_type', 'metadata_schema', { type: 'string', pattern: '^(?=a)b' }, 'svc runs patterns with RE2'],
    ['entity_type', 'metadata_schema', { type: 'array', uniqueItems: true }, 'needs items of a scalar type'],
  ])('refuses a %s whose %s is %j: 422 invalid_schema, nothing stored', async (kind, field, schema, says) => {
    const base = kind === 'watcher' ? { ...digest, slug: 'bad' } : { slug: 'bad', name: 'Bad' };
    const res = await upsert(kind, { ...base, [field]: schema });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('invalid_schema');
    expect(res.body.detail).toContain(says);
    expect(res.body.errors[0].path).toBe(`/body/item/${field}`);
    const listed = await op({ action: 'list', kind });
    expect(JSON.stringify(listed.body)).not.toContain('"bad"');
  });

  it('refuses a rule that is not a slug or a list of slugs', async () => {
    const res = await upsert('relationship_type', {
      ...employs,
      rules: [{ source: 'Not A Slug', target: [] }],
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });
});
