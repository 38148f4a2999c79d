import { randomBytes } from 'node:crypto';
import type { EntityLinkOverrides, EntityLinkRule, EventEnvelope } from '@svc/connector-sdk';
import type { PoolClient } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { transaction } from '../db/transaction.js';
import { linkEvents } from './links.js';
import { MOST_IDENTITY_LOCKS } from './locks.js';

/**
 * Entity links against a real PostgreSQL: the rules, the overrides, traits, ambiguity, re-syncs,
 * concurrent runs creating the same person, and the read API.
 */

let server: TestServer;
let orgId: string;
let connectionId: string;
let feedId: string;

beforeAll(async () => {
  server = await startTestServer();
  const org = await server.pool.query<{ id: string }>(`SELECT id FROM orgs WHERE slug = 'default'`);
  orgId = org.rows[0]?.id as string;
  await server.pool.query(
    `INSERT INTO connector_definitions (org_id, connector_key, version, definition, package)
     VALUES ($1, 'people', '1.0.0', '{}', 'people')`,
    [orgId],
  );
  const connection = await server.pool.query<{ id: string }>(
    `INSERT INTO connections (org_id, connector_key) VALUES ($1, 'people') RETURNING id`,
    [orgId],
  );
  connectionId = connection.rows[0]?.id as string;
  const feed = await server.pool.query<{ id: string }>(
    `INSERT INTO feeds (org_id, connection_id, feed_key) VALUES ($1, $2, 'contacts') RETURNING id`,
    [orgId, connectionId],
  );
  feedId = feed.rows[0]?.id as string;
});

// ---- helpers ----------------------------------------------------------------------------------

/** Values no other test uses, so the tests share one database without seeing each other's people. */
const unique = () => randomBytes(5).toString('hex');
let phones = 0;
/** A valid German mobile number, another each call. */
const phone = () => `+49 151 2${String(phones++).padStart(7, '0')}`;
const e164 = (raw: string) => raw.replaceAll(' ', '');

const envelope = (payload: Record<string, unknown>, originId = unique()): EventEnvelope => ({
  origin_id: originId,
  origin_type: 'contact',
  payload_text: 'a contact',
  payload_data: payload,
  occurred_at: '2026-01-01T00:00:00Z',
});

/** Writes events as a sync does (a re-sync of an origin_id updates its row) and answers their ids. */
async function store(client: PoolClient, envelopes: EventEnvelope[]): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO events (org_id, connection_id, feed_id, origin_id, origin_type, payload_text, payload_data, occurred_at)
     SELECT $1, $2, $3, n.origin_id, n.origin_type, n.payload_text, n.payload_data, n.occurred_at
       FROM jsonb_to_recordset($4::jsonb)
         AS n(origin_id text, origin_type text, payload_text text, payload_data jsonb, occurred_at timestamptz)
     ON CONFLICT (connection_id, feed_id, origin_id)
       DO UPDATE SET payload_data = excluded.payload_data, updated_at = now()
     RETURNING id`,
    [orgId, connectionId, feedId, JSON.stringify(envelopes)],
  );
  return rows.map((row) => row.id);
}

/** One sync batch: its events written and linked in one transaction. */
async function sync(
  rules: EntityLinkRule[],
  envelopes: EventEnvelope[],
  overrides: EntityLinkOverrides = {},
): Promise<string[]> {
  return transaction(server.pool, async (client) => {
    const ids = await store(client, envelopes);
    await linkEvents(client, {
      orgId,
      overrides,
      events: envelopes.map((env, i) => ({ eventId: ids[i] as string, envelope: env, rules })),
    });
    return ids;
  });
}

interface Entity {
  id: string;
  entity_type: string;
  title: string | null;
  traits: Record<string, unknown>;
  identities: string[];
}

async function linksOf(eventId: string): Promise<Entity[]> {
  const { rows } = await server.pool.query<Entity>(
    `SELECT e.id, e.entity_type, e.title, e.traits,
            array(SELECT i.namespace || ':' || i.value FROM entity_identities i
                   WHERE i.entity_id = e.id ORDER BY 1) AS identities
       FROM event_entities ee JOIN entities e ON e.id = ee.entity_id
      WHERE ee.event_id = $1 ORDER BY e.id`,
    [eventId],
  );
  return rows;
}

async function issuesOf(eventId: string): Promise<unknown> {
  const { rows } = await server.pool.query('SELECT link_issues FROM events WHERE id = $1', [eventId]);
  return rows[0]?.link_issues;
}

/** Entities that hold any of `identities` (`namespace:value`), of any type. */
async function holders(...identities: string[]): Promise<string[]> {
  const { rows } = await server.pool.query<{ entity_id: string }>(
    `SELECT DISTINCT entity_id FROM entity_identities
      WHERE org_id = $1 AND namespace || ':' || value = ANY($2) ORDER BY 1`,
    [orgId, identities],
  );
  return rows.map((row) => row.entity_id);
}

const person = (extra: Partial<EntityLinkRule> = {}): EntityLinkRule => ({
  entityType: 'person',
  autoCreate: true,
  titlePath: 'payload_data.name',
  identities: [
    { namespace: 'email', eventPath: 'payload_data.email' },
    { namespace: 'phone', eventPath: 'payload_data.phone' },
  ],
  ...extra,
});

// ---- linking ----------------------------------------------------------------------------------

describe('linkEvents', () => {
  it('creates the entity an event names, with its normalised identities and title, and links it', async () => {
    const tag = unique();
    const mobile = phone();
    const [id] = await sync(
      [person()],
      [envelope({ name: ` Jane ${tag} `, email: ` Jane.${tag}@Example.COM `, phone: mobile })],
    );
    const [entity, ...others] = await linksOf(id as string);
    expect(others).toEqual([]);
    expect(entity).toMatchObject({
      entity_type: 'person',
      title: `Jane ${tag}`,
      identities: [`email:jane.${tag}@example.com`, `phone:${e164(mobile)}`],
    });
    expect(await issuesOf(id as string)).toBeNull();
  });

  it('links a later event to the entity an identity finds, and attaches its new identities', async () => {
    const email = `later.${unique()}@example.com`;
    const mobile = phone();
    const [first] = await sync([person()], [envelope({ email })]);
    const [second] = await sync([person()], [envelope({ email: email.toUpperCase(), phone: mobile })]);
    const [entity] = await linksOf(first as string);
    expect(await linksOf(second as string)).toEqual([entity]);
    expect(entity?.identities).toEqual([`email:${email}`, `phone:${e164(mobile)}`]);
  });

  it('takes every value of a path that leads to an array, through arrays of objects too', async () => {
    const [a, b, c] = [unique(), unique(), unique()].map((t) => `${t}@example.com`);
    const rule = person({
      identities: [
        { namespace: 'email', eventPath: 'payload_data.emails' },
        { namespace: 'email', eventPath: 'payload_data.contacts.email' },
      ],
    });
    const [id] = await sync([rule], [envelope({ emails: [a, b], contacts: [{ email: c }, { name: 'x' }] })]);
    const entities = await linksOf(id as string);
    expect(entities).toHaveLength(1);
    expect(entities[0]?.identities).toEqual([`email:${a}`, `email:${b}`, `email:${c}`].sort());
  });

  it('creates nothing and links nothing without autoCreate when no entity exists', async () => {
    const email = `nobody.${unique()}@example.com`;
    const [id] = await sync([person({ autoCreate: false })], [envelope({ email })]);
    expect(await linksOf(id as string)).toEqual([]);
    expect(await holders(`email:${email}`)).toEqual([]);
  });

  it('links two events of one batch to the one entity the first created', async () => {
    const email = `batch.${unique()}@example.com`;
    const mobile = phone();
    const [a, b] = await sync([person()], [envelope({ email }), envelope({ email, phone: mobile })]);
    const [entity] = await linksOf(a as string);
    expect(await linksOf(b as string)).toEqual([entity]);
    expect(entity?.identities).toEqual([`email:${email}`, `phone:${e164(mobile)}`]);
  });

  it('records a namespace the SDK does not know on the event, and still links by the others', async () => {
    const email = `typo.${unique()}@example.com`;
    const rule = person({
      identities: [
        { namespace: 'email', eventPath: 'payload_data.email' },
        { namespace: 'e-mail', eventPath: 'payload_data.email' },
      ],
    });
    const [id] = await sync([rule], [envelope({ email })]);
    expect((await linksOf(id as string))[0]?.identities).toEqual([`email:${email}`]);
    expect(await issuesOf(id as string)).toEqual([
      {
        problem: 'unknown_namespace',
        entityType: 'person',
        namespace: 'e-mail',
        message: expect.stringMatching(/unknown identity namespace "e-mail"/),
      },
    ]);
  });

  it('records a rule whose namespace is undefined (stored before namespaces were checked), never an identity of it', async () => {
    const email = `undefined.${unique()}@example.com`;
    const rule = person({
      identities: [
        { namespace: 'email', eventPath: 'payload_data.email' },
        // As JSON keeps it: a definition's undefined namespace is no key at all.
        { eventPath: 'payload_data.login' } as EntityLinkRule['identities'][number],
      ],
    });
    const [id] = await sync([rule], [envelope({ email, login: 4242 })]);
    expect((await linksOf(id as string))[0]?.identities).toEqual([`email:${email}`]);
    expect(await issuesOf(id as string)).toEqual([
      {
        problem: 'unknown_namespace',
        entityType: 'person',
        namespace: 'undefined',
        message: expect.stringMatching(/the identity namespace is undefined/),
      },
    ]);
    const { rows } = await server.pool.query("SELECT 1 FROM entity_identities WHERE value = '4242'");
    expect(rows).toEqual([]);
  });
});

describe('matchOnly identities', () => {
  const rule = person({
    identities: [
      { namespace: 'code_host_login', eventPath: 'payload_data.login' },
      { namespace: 'email', eventPath: 'payload_data.email', matchOnly: true },
    ],
  });

  it('find an entity but are never attached, on create or on match', async () => {
    const login = `octo-${unique()}`;
    const email = `match.${unique()}@example.com`;
    const [created] = await sync([rule], [envelope({ login, email })]);
    expect((await linksOf(created as string))[0]?.identities).toEqual([`code_host_login:${login}`]);
    // The e-mail was not attached, so it finds nothing now.
    const [alone] = await sync([rule], [envelope({ email })]);
    expect(await linksOf(alone as string)).toEqual([]);
    expect(await holders(`email:${email}`)).toEqual([]);
  });

  it('link to the entity that holds them, which gets the event’s other identities', async () => {
    const email = `held.${unique()}@example.com`;
    const [contact] = await sync([person()], [envelope({ email })]);
    const [existing] = await linksOf(contact as string);
    const login = `octo-${unique()}`;
    const [commit] = await sync([rule], [envelope({ login, email })]);
    const [linked] = await linksOf(commit as string);
    expect(linked?.id).toBe(existing?.id);
    expect(linked?.identities).toEqual([`code_host_login:${login}`, `email:${email}`]);
  });

  it('alone never create an entity, which nothing could find again', async () => {
    const email = `only.${unique()}@example.com`;
    const [id] = await sync([rule], [envelope({ email })]);
    expect(await linksOf(id as string)).toEqual([]);
    const { rows } = await server.pool.query(`SELECT 1 FROM events WHERE id = $1`, [id]);
    expect(rows).toHaveLength(1);
  });
});

describe('overrides, keyed by the rule’s entityType', () => {
  it('disable skips the rule', async () => {
    const email = `disabled.${unique()}@example.com`;
    const [id] = await sync([person()], [envelope({ email })], { person: { disable: true } });
    expect(await linksOf(id as string)).toEqual([]);
    expect(await holders(`email:${email}`)).toEqual([]);
  });

  it('retargetEntityType links to entities of the other type', async () => {
    const email = `member.${unique()}@example.com`;
    const [id] = await sync([person()], [envelope({ email })], { person: { retargetEntityType: 'member' } });
    const [entity] = await linksOf(id as string);
    expect(entity?.entity_type).toBe('member');
    // A person holding the same e-mail is another entity: types do not share identities.
    const [asPerson] = await sync([person()], [envelope({ email })]);
    const [other] = await linksOf(asPerson as string);
    expect(other?.entity_type).toBe('person');
    expect(other?.id).not.toBe(entity?.id);
  });

  it('autoCreate: false keeps existing links but creates nothing', async () => {
    const known = `known.${unique()}@example.com`;
    const stranger = `stranger.${unique()}@example.com`;
    const [first] = await sync([person()], [envelope({ email: known })]);
    const off = { person: { autoCreate: false } };
    const [again, fresh] = await sync(
      [person()],
      [envelope({ email: known }), envelope({ email: stranger })],
      off,
    );
    expect(await linksOf(again as string)).toEqual(await linksOf(first as string));
    expect(await linksOf(fresh as string)).toEqual([]);
    expect(await holders(`email:${stranger}`)).toEqual([]);
  });

  it('autoCreate: true creates where the rule would not', async () => {
    const email = `on.${unique()}@example.com`;
    const [id] = await sync([person({ autoCreate: false })], [envelope({ email })], {
      person: { autoCreate: true },
    });
    expect((await linksOf(id as string))[0]?.identities).toEqual([`email:${email}`]);
  });

  it('maskIdentities leaves those namespaces out of matching and of what is attached', async () => {
    const mobile = phone();
    const [holder] = await sync([person()], [envelope({ phone: mobile })]);
    const [phoneOwner] = await linksOf(holder as string);
    const email = `masked.${unique()}@example.com`;
    const [id] = await sync([person()], [envelope({ email, phone: mobile })], {
      person: { maskIdentities: ['phone'] },
    });
    const [entity] = await linksOf(id as string);
    // Not found through the phone (which would have found phoneOwner), and not given it.
    expect(entity?.id).not.toBe(phoneOwner?.id);
    expect(entity?.identities).toEqual([`email:${email}`]);
    expect(await holders(`phone:${e164(mobile)}`)).toEqual([phoneOwner?.id]);
  });

  it('an override of another entityType changes nothing', async () => {
    const email = `untouched.${unique()}@example.com`;
    const [id] = await sync([person()], [envelope({ email })], { repository: { disable: true } });
    expect(await linksOf(id as string)).toHaveLength(1);
  });
});

describe('traits', () => {
  const rule = person({
    identities: [{ namespace: 'email', eventPath: 'payload_data.email' }],
    traits: {
      firstSeenName: { eventPath: 'payload_data.name', behavior: 'init_only' },
      company: { eventPath: 'payload_data.company', behavior: 'prefer_non_empty' },
      tags: { eventPath: 'payload_data.tags', behavior: 'prefer_non_empty' },
      status: { eventPath: 'payload_data.status', behavior: 'overwrite' },
    },
  });
  const first = { name: 'Jane', company: 'Acme', tags: ['vip'], status: 'active' };
  const second = { name: 'J. Doe', company: '', tags: [], status: null };
  const third = { company: 'Globex', tags: {}, status: 'left' };

  it('follow their behaviour across events synced one after another', async () => {
    const email = `traits.${unique()}@example.com`;
    const [a] = await sync([rule], [envelope({ email, ...first })]);
    expect((await linksOf(a as string))[0]?.traits).toEqual({
      firstSeenName: 'Jane',
      company: 'Acme',
      tags: ['vip'],
      status: 'active',
    });
    const [b] = await sync([rule], [envelope({ email, ...second })]);
    // init_only kept the first name, prefer_non_empty ignored the empty values, overwrite wrote null.
    expect((await linksOf(b as string))[0]?.traits).toEqual({
      firstSeenName: 'Jane',
      company: 'Acme',
      tags: ['vip'],
      status: null,
    });
    // A path that does not resolve (no name) leaves the trait alone.
    const [c] = await sync([rule], [envelope({ email, ...third })]);
    expect((await linksOf(c as string))[0]?.traits).toEqual({
      firstSeenName: 'Jane',
      company: 'Globex',
      tags: ['vip'],
      status: 'left',
    });
  });

  it('end the same when the events come in one batch', async () => {
    const email = `batched.${unique()}@example.com`;
    const [a] = await sync(
      [rule],
      [envelope({ email, ...first }), envelope({ email, ...second }), envelope({ email, ...third })],
    );
    expect((await linksOf(a as string))[0]?.traits).toEqual({
      firstSeenName: 'Jane',
      company: 'Globex',
      tags: ['vip'],
      status: 'left',
    });
  });

  it('init_only fills a trait the entity holds as null, and a title it lacks', async () => {
    const email = `late.${unique()}@example.com`;
    const untitled = person({
      titlePath: undefined,
      identities: [{ namespace: 'email', eventPath: 'payload_data.email' }],
      traits: { nick: { eventPath: 'payload_data.nick', behavior: 'overwrite' } },
    });
    await sync([untitled], [envelope({ email, nick: null })]);
    const named = person({
      identities: [{ namespace: 'email', eventPath: 'payload_data.email' }],
      traits: { nick: { eventPath: 'payload_data.nick', behavior: 'init_only' } },
    });
    const [id] = await sync([named], [envelope({ email, nick: 'jd', name: 'Jane Late' })]);
    expect((await linksOf(id as string))[0]).toMatchObject({ title: 'Jane Late', traits: { nick: 'jd' } });
    // Once set, neither changes by init_only or titlePath.
    const [again] = await sync([named], [envelope({ email, nick: 'other', name: 'Other' })]);
    expect((await linksOf(again as string))[0]).toMatchObject({ title: 'Jane Late', traits: { nick: 'jd' } });
  });
});

describe('ambiguity', () => {
  it('is recorded on the event, links none for that rule, and the event and other rules stay', async () => {
    const email = `amb.${unique()}@example.com`;
    const mobile = phone();
    const [byEmail] = await sync([person()], [envelope({ email })]);
    const [byPhone] = await sync([person()], [envelope({ phone: mobile })]);
    const [x] = await linksOf(byEmail as string);
    const [y] = await linksOf(byPhone as string);
    const repo = `octo/${unique()}`;
    const repository: EntityLinkRule = {
      entityType: 'repository',
      autoCreate: true,
      identities: [{ namespace: 'code_host_repo_full_name', eventPath: 'payload_data.repo' }],
    };
    const originId = unique();
    const [id] = await sync([person(), repository], [envelope({ email, phone: mobile, repo }, originId)]);
    const linked = await linksOf(id as string);
    expect(linked.map((e) => e.entity_type)).toEqual(['repository']);
    expect(await issuesOf(id as string)).toEqual([
      {
        problem: 'ambiguous',
        entityType: 'person',
        matches: [
          { namespace: 'email', value: email, entityId: Number(x?.id) },
          { namespace: 'phone', value: e164(mobile), entityId: Number(y?.id) },
        ],
      },
    ]);
    // Neither entity got the other's identity.
    expect((await linksOf(byEmail as string))[0]?.identities).toEqual([`email:${email}`]);
    expect((await linksOf(byPhone as string))[0]?.identities).toEqual([`phone:${e164(mobile)}`]);

    // A re-sync that no longer matches two entities links it and clears the issue.
    const [same] = await sync([person(), repository], [envelope({ email, repo }, originId)]);
    expect(same).toBe(id);
    expect((await linksOf(id as string)).map((e) => e.id)).toEqual([x?.id, linked[0]?.id].sort());
    expect(await issuesOf(id as string)).toBeNull();
  });
});

describe('re-syncs', () => {
  it('linking the same event again adds nothing', async () => {
    const email = `again.${unique()}@example.com`;
    const originId = unique();
    const [id] = await sync([person()], [envelope({ email }, originId)]);
    const before = await linksOf(id as string);
    for (let i = 0; i < 3; i++) await sync([person()], [envelope({ email }, originId)]);
    expect(await linksOf(id as string)).toEqual(before);
    const count = await server.pool.query(
      'SELECT count(*)::int AS n FROM event_entities WHERE event_id = $1',
      [id],
    );
    expect(count.rows[0].n).toBe(1);
    expect(await holders(`email:${email}`)).toEqual([before[0]?.id]);
  });

  it('replace the event’s links with what it says now', async () => {
    const [a, b] = [`a.${unique()}@example.com`, `b.${unique()}@example.com`];
    const originId = unique();
    const [id] = await sync([person()], [envelope({ email: a }, originId)]);
    const [first] = await linksOf(id as string);
    await sync([person()], [envelope({ email: b }, originId)]);
    const [now, ...rest] = await linksOf(id as string);
    expect(rest).toEqual([]);
    expect(now?.id).not.toBe(first?.id);
    expect(now?.identities).toEqual([`email:${b}`]);
    // The first entity stays, with its identity: other events may link to it.
    expect(await holders(`email:${a}`)).toEqual([first?.id]);
    // With its rule disabled, the event keeps no link.
    await sync([person()], [envelope({ email: b }, originId)], { person: { disable: true } });
    expect(await linksOf(id as string)).toEqual([]);
  });

  it('a thousand events with rules link in one call, quickly', async () => {
    const tag = unique();
    const envelopes = Array.from({ length: 1000 }, (_, i) =>
      envelope({ email: `bulk${i % 500}.${tag}@example.com`, name: `Bulk ${i % 500}` }),
    );
    const started = performance.now();
    const ids = await sync([person()], envelopes);
    const elapsed = performance.now() - started;
    const { rows } = await server.pool.query<{ entities: number; links: number }>(
      `SELECT count(DISTINCT entity_id)::int AS entities, count(*)::int AS links
         FROM event_entities WHERE event_id = ANY($1::bigint[])`,
      [ids],
    );
    expect(rows[0]).toEqual({ entities: 500, links: 1000 });
    expect(elapsed).toBeLessThan(5_000);
  });
});

// ---- concurrency ------------------------------------------------------------------------------

describe('concurrent runs', () => {
  /** Two transactions, each writing and linking its events, really at once; either may commit first. */
  async function race(
    a: { rules: EntityLinkRule[]; envelopes: EventEnvelope[] },
    b: typeof a,
  ): Promise<[string[], string[]]> {
    const clients = await Promise.all([server.pool.connect(), server.pool.connect()]);
    try {
      await Promise.all(clients.map((client) => client.query('BEGIN')));
      const ids = await Promise.all([a, b].map((side, i) => store(clients[i] as PoolClient, side.envelopes)));
      await Promise.all(
        [a, b].map(async (side, i) => {
          const client = clients[i] as PoolClient;
          // A random head start, so that either side may take the locks and commit first.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
          await linkEvents(client, {
            orgId,
            overrides: {},
            events: side.envelopes.map((env, j) => ({
              eventId: ids[i]?.[j] as string,
              envelope: env,
              rules: side.rules,
            })),
          });
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
          await client.query('COMMIT');
        }),
      );
      return ids as [string[], string[]];
    } catch (error) {
      await Promise.all(clients.map((client) => client.query('ROLLBACK').catch(() => {})));
      throw error;
    } finally {
      for (const client of clients) client.release();
    }
  }

  const emailFirst = person();
  const phoneFirst = person({ identities: [...(person().identities ?? [])].reverse() });

  it('creating the same person through e-mail and phone at once end with one entity holding both', async () => {
    for (let round = 0; round < 20; round++) {
      const email = `race${round}.${unique()}@example.com`;
      const mobile = phone();
      const name = `Racer ${email}`;
      const [[a], [b]] = await race(
        { rules: [emailFirst], envelopes: [envelope({ email, phone: mobile, name })] },
        { rules: [phoneFirst], envelopes: [envelope({ phone: mobile, email, name })] },
      );
      const owners = await holders(`email:${email}`, `phone:${e164(mobile)}`);
      expect(owners, `round ${round}`).toHaveLength(1);
      expect((await linksOf(a as string)).map((e) => e.id)).toEqual(owners);
      expect((await linksOf(b as string)).map((e) => e.id)).toEqual(owners);
      // No second entity was made and left without identities either.
      const made = await server.pool.query(`SELECT count(*)::int AS n FROM entities WHERE title = $1`, [
        name,
      ]);
      expect(made.rows[0].n).toBe(1);
    }
  });

  it('a batch too large for identity locks and a small one still end with one entity', async () => {
    for (let round = 0; round < 5; round++) {
      const email = `big${round}.${unique()}@example.com`;
      const mobile = phone();
      const filler = Array.from({ length: MOST_IDENTITY_LOCKS + 10 }, (_, i) =>
        envelope({ email: `filler${i}.${unique()}@example.com` }),
      );
      const [big, [small]] = await race(
        { rules: [emailFirst], envelopes: [...filler, envelope({ email, phone: mobile })] },
        { rules: [phoneFirst], envelopes: [envelope({ phone: mobile, email })] },
      );
      const owners = await holders(`email:${email}`, `phone:${e164(mobile)}`);
      expect(owners, `round ${round}`).toHaveLength(1);
      expect((await linksOf(big?.at(-1) as string)).map((e) => e.id)).toEqual(owners);
      expect((await linksOf(small as string)).map((e) => e.id)).toEqual(owners);
    }
  });
});

// ---- the API ----------------------------------------------------------------------------------

describe('GET /api/:org/entities', () => {
  it('finds an entity by a type and an identity written any way it normalises to', async () => {
    const email = `api.${unique()}@example.com`;
    const mobile = phone();
    const [id] = await sync(
      [person({ traits: { role: { eventPath: 'payload_data.role', behavior: 'overwrite' } } })],
      [envelope({ email, phone: mobile, name: 'Api Person', role: 'buyer' })],
    );
    const [entity] = await linksOf(id as string);
    const expected = {
      id: Number(entity?.id),
      entityType: 'person',
      title: 'Api Person',
      traits: { role: 'buyer' },
      identities: [
        { namespace: 'email', value: email },
        { namespace: 'phone', value: e164(mobile) },
      ],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    };
    const query = `identity=${encodeURIComponent(`email: ${email.toUpperCase()}`)}`;
    const typed = await server.call('GET', `/api/default/entities?type=person&${query}`);
    expect(typed.status, JSON.stringify(typed.body)).toBe(200);
    expect(typed.body).toEqual({ entities: [expected], nextCursor: null });
    // Without a type, every type is searched.
    const any = await server.call(
      'GET',
      `/api/default/entities?identity=${encodeURIComponent(`phone:${mobile}`)}`,
    );
    expect(any.body.entities).toEqual([expected]);
    expect((await server.call('GET', `/api/default/entities?type=member&${query}`)).body.entities).toEqual(
      [],
    );

    const one = await server.call('GET', `/api/default/entities/${entity?.id}`);
    expect(one).toMatchObject({ status: 200, body: { entity: expected } });
  });

  it('pages through a type with nextCursor', async () => {
    const type = `page-${unique()}`;
    const rule = person({
      entityType: type,
      identities: [{ namespace: 'email', eventPath: 'payload_data.email' }],
    });
    await sync(
      [rule],
      Array.from({ length: 5 }, (_, i) => envelope({ email: `p${i}.${unique()}@example.com` })),
    );
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: any } = await server.call(
        'GET',
        `/api/default/entities?type=${type}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.entities.map((e: { id: number }) => e.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });

  it('refuses an identity it cannot read, and a cursor it did not give out', async () => {
    for (const [query, path] of [
      ['identity=jane', '/querystring/identity'],
      ['identity=e-mail:jane@example.com', '/querystring/identity'],
      ['identity=email:not-an-address', '/querystring/identity'],
      ['cursor=bm9wZQ', '/querystring/cursor'],
    ]) {
      const res = await server.call('GET', `/api/default/entities?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body, query).toMatchObject({ code: 'validation_failed', errors: [{ path }] });
    }
  });

  it('answers 404 for an entity that is not there or not in the org', async () => {
    for (const id of ['999999999', 'abc']) {
      const res = await server.call('GET', `/api/default/entities/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    await server.call('POST', '/api/orgs', { body: { slug: 'elsewhere' } });
    const { rows } = await server.pool.query<{ id: string }>(
      `INSERT INTO entities (org_id, entity_type) SELECT id, 'person' FROM orgs WHERE slug = 'elsewhere' RETURNING id`,
    );
    expect((await server.call('GET', `/api/default/entities/${rows[0]?.id}`)).status).toBe(404);
    expect((await server.call('GET', `/api/elsewhere/entities/${rows[0]?.id}`)).status).toBe(200);
  });
});

describe("an entity type's metadata_schema", () => {
  const member = (): EntityLinkRule => ({
    entityType: 'member',
    autoCreate: true,
    titlePath: 'payload_data.name',
    identities: [{ namespace: 'email', eventPath: 'payload_data.email' }],
    traits: {
      plan: { eventPath: 'payload_data.plan', behavior: 'overwrite' },
      seats: { eventPath: 'payload_data.seats', behavior: 'overwrite' },
    },
  });

  beforeAll(async () => {
    const res = await server.call('POST', '/api/default/operations/manage_entity_schema', {
      body: {
        action: 'upsert',
        kind: 'entity_type',
        item: {
          slug: 'member',
          name: 'Member',
          metadata_schema: {
            type: 'object',
            properties: { plan: { enum: ['free', 'pro'] }, seats: { type: 'integer', minimum: 1 } },
          },
        },
      },
    });
    expect(res.status).toBe(201);
  });

  it('keeps a new entity whose traits fail it, without them, and says why on the event', async () => {
    const email = `member.${unique()}@example.com`;
    const valid = `member.${unique()}@example.com`;
    const [bad, good] = await sync(
      [member()],
      [
        envelope({ email, name: 'Mia', plan: 'gold', seats: 0 }),
        envelope({ email: valid, name: 'Max', plan: 'pro', seats: 3 }),
      ],
    );
    expect(await linksOf(bad as string)).toEqual([
      expect.objectContaining({
        entity_type: 'member',
        title: 'Mia',
        traits: {},
        identities: [`email:${email}`],
      }),
    ]);
    expect(await issuesOf(bad as string)).toEqual([
      {
        problem: 'invalid_metadata',
        entityType: 'member',
        errors: ['plan: must be equal to one of the allowed values', 'seats: must be >= 1'],
      },
    ]);
    // The other event of the batch is untouched by it.
    expect((await linksOf(good as string))[0]?.traits).toEqual({ plan: 'pro', seats: 3 });
    expect(await issuesOf(good as string)).toBeNull();
  });

  it('leaves an existing entity as it was when the merged traits would fail it', async () => {
    const email = `member.${unique()}@example.com`;
    const [first] = await sync([member()], [envelope({ email, name: 'Ada', plan: 'free', seats: 2 })]);
    const [id] = (await linksOf(first as string)).map((e) => e.id);
    const [second] = await sync([member()], [envelope({ email, name: 'Ada', plan: 'enterprise' })]);
    expect(await linksOf(second as string)).toEqual([
      expect.objectContaining({ id, traits: { plan: 'free', seats: 2 } }),
    ]);
    expect(await issuesOf(second as string)).toEqual([
      {
        problem: 'invalid_metadata',
        entityType: 'member',
        errors: ['plan: must be equal to one of the allowed values'],
      },
    ]);
    // A later valid event writes again, and its event has no issue.
    const [third] = await sync([member()], [envelope({ email, name: 'Ada', plan: 'pro' })]);
    expect((await linksOf(third as string))[0]?.traits).toEqual({ plan: 'pro', seats: 2 });
    expect(await issuesOf(third as string)).toBeNull();
  });
});
