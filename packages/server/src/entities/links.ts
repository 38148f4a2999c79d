import type { EntityLinkOverrides, EntityLinkRule, EventEnvelope } from '@svc/connector-sdk';
import type { PoolClient } from 'pg';
import { lockIdentities } from './locks.js';
import { keepValidMetadata } from './metadata.js';
import { type EntityChange, identityKey, isNew, type Plan, planLinks } from './plan.js';
import { type Claim, claimsOf, type LinkIssue } from './rules.js';

export interface LinkInput {
  orgId: string;
  /** The install's `entity_link_overrides`, keyed by the rule's `entityType`. */
  overrides: EntityLinkOverrides;
  events: { eventId: string; envelope: EventEnvelope; rules: EntityLinkRule[] }[];
}

/**
 * Links `events` to entities by their kinds' rules, in the caller's transaction (the one that just
 * wrote those events), so the links commit or roll back with them. A re-sync replaces an event's
 * links and its `link_issues`: they say what the event says now. Call it once per transaction:
 * its locks are taken in one order per call, and a second call would add more after holding some.
 * The transaction must be READ COMMITTED (PostgreSQL's default), so that what it reads after
 * taking the locks includes what the previous holder committed.
 */
export async function linkEvents(client: PoolClient, input: LinkInput): Promise<void> {
  const { orgId, events } = input;
  if (events.length === 0) return;
  const issues: LinkIssue[][] = events.map(() => []);
  const claims: { event: number; claim: Claim }[] = [];
  events.forEach((event, index) => {
    const applied = claimsOf(event.envelope, event.rules, input.overrides);
    issues[index]?.push(...applied.issues);
    for (const claim of applied.claims) claims.push({ event: index, claim });
  });

  const identities = [
    ...new Map(
      claims.flatMap(({ claim }) =>
        claim.identities.map(({ namespace, value }) => [
          identityKey(claim.entityType, namespace, value),
          { entityType: claim.entityType, namespace, value },
        ]),
      ),
    ).values(),
  ];
  const owners = new Map<string, string>();
  if (identities.length > 0) {
    await lockIdentities(client, orgId, identities);
    for (const row of await ownersOf(client, orgId, identities)) {
      owners.set(identityKey(row.entity_type, row.namespace, row.value), row.entity_id);
    }
  }
  const plan = planLinks(claims, owners);
  await keepValidMetadata(client, orgId, plan, issues);
  const ids = await createEntities(client, orgId, plan);
  for (const { event, entityType, matches } of plan.ambiguous) {
    issues[event]?.push({
      problem: 'ambiguous',
      entityType,
      matches: matches.map(({ ref, ...identity }) => ({
        ...identity,
        entityId: Number(ids.get(ref) ?? ref),
      })),
    });
  }
  await updateEntities(
    client,
    [...plan.changes.values()].filter((change) => !isNew(change.ref)),
  );
  await attachIdentities(client, orgId, plan, ids);
  await replaceLinks(
    client,
    orgId,
    events.map((event) => event.eventId),
    plan.links.map((link) => ({
      event_id: events[link.event]?.eventId,
      entity_id: ids.get(link.ref) ?? link.ref,
    })),
  );
  await client.query(
    `UPDATE events e SET link_issues = n.issues
       FROM jsonb_to_recordset($2::jsonb) AS n(id bigint, issues jsonb)
      WHERE e.id = n.id AND e.org_id = $1 AND e.link_issues IS DISTINCT FROM n.issues`,
    [
      orgId,
      JSON.stringify(
        events.map((event, index) => ({
          id: event.eventId,
          ...(issues[index]?.length ? { issues: issues[index] } : {}),
        })),
      ),
    ],
  );
}

async function ownersOf(
  client: PoolClient,
  orgId: string,
  identities: { entityType: string; namespace: string; value: string }[],
) {
  const { rows } = await client.query<{
    entity_type: string;
    namespace: string;
    value: string;
    entity_id: string;
  }>(
    `SELECT i.entity_type, i.namespace, i.value, i.entity_id
       FROM jsonb_to_recordset($2::jsonb) AS k(entity_type text, namespace text, value text)
       JOIN entity_identities i
         ON i.org_id = $1 AND i.entity_type = k.entity_type AND i.namespace = k.namespace AND i.value = k.value`,
    [
      orgId,
      JSON.stringify(
        identities.map((i) => ({ entity_type: i.entityType, namespace: i.namespace, value: i.value })),
      ),
    ],
  );
  return rows;
}

const traitsOf = (change: EntityChange) => Object.fromEntries([...change.init, ...change.set]);

/** The plan's new entities, with ids taken up front so that the rest of the plan can refer to them. */
async function createEntities(client: PoolClient, orgId: string, plan: Plan): Promise<Map<string, string>> {
  const created = [...plan.changes.values()].filter((change) => isNew(change.ref));
  const ids = new Map<string, string>();
  if (created.length === 0) return ids;
  const { rows } = await client.query<{ id: string }>(
    `SELECT nextval(pg_get_serial_sequence('entities', 'id'))::text AS id FROM generate_series(1, $1)`,
    [created.length],
  );
  for (const [index, change] of created.entries()) ids.set(change.ref, rows[index]?.id as string);
  await client.query(
    `INSERT INTO entities (id, org_id, entity_type, title, traits)
     SELECT n.id, $1, n.entity_type, n.title, n.traits
       FROM jsonb_to_recordset($2::jsonb) AS n(id bigint, entity_type text, title text, traits jsonb)`,
    [
      orgId,
      JSON.stringify(
        created.map((change) => ({
          id: ids.get(change.ref),
          entity_type: change.entityType,
          title: change.title,
          traits: traitsOf(change),
        })),
      ),
    ],
  );
  return ids;
}

/**
 * Traits and a missing title on entities that existed. Their rows are locked first, in id order:
 * two calls holding different identities of the same entities must not lock them in opposite
 * orders. The merge reads the row as it is after the lock, so no call's traits are lost.
 */
async function updateEntities(client: PoolClient, changes: EntityChange[]): Promise<void> {
  const changed = changes.filter((c) => c.title !== null || c.set.size > 0 || c.init.size > 0);
  if (changed.length === 0) return;
  await client.query('SELECT id FROM entities WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE', [
    changed.map((change) => change.ref),
  ]);
  await client.query(
    `UPDATE entities e SET title = m.title, traits = m.traits, updated_at = now()
       FROM (SELECT t.id, coalesce(t.title, n.title) AS title,
                    t.traits
                    || (SELECT coalesce(jsonb_object_agg(i.key, i.value), '{}')
                          FROM jsonb_each(n.init_traits) AS i
                         WHERE coalesce(t.traits -> i.key, 'null') = 'null')
                    || n.set_traits AS traits
               FROM jsonb_to_recordset($1::jsonb) AS n(id bigint, title text, init_traits jsonb, set_traits jsonb)
               JOIN entities t ON t.id = n.id) AS m
      WHERE e.id = m.id AND (e.title, e.traits) IS DISTINCT FROM (m.title, m.traits)`,
    [
      JSON.stringify(
        changed.map((change) => ({
          id: change.ref,
          title: change.title,
          init_traits: Object.fromEntries(change.init),
          set_traits: Object.fromEntries(change.set),
        })),
      ),
    ],
  );
}

/**
 * The identities the plan attaches. Each was free when read under its lock; the primary key is
 * the last guard against a writer that took no lock: the transaction fails (and the run is retried)
 * rather than leave a second entity for one identity.
 */
async function attachIdentities(
  client: PoolClient,
  orgId: string,
  plan: Plan,
  ids: Map<string, string>,
): Promise<void> {
  if (plan.attach.length === 0) return;
  const { rowCount } = await client.query(
    `INSERT INTO entity_identities (org_id, entity_type, namespace, value, entity_id)
     SELECT $1, n.entity_type, n.namespace, n.value, n.entity_id
       FROM jsonb_to_recordset($2::jsonb) AS n(entity_type text, namespace text, value text, entity_id bigint)
     ON CONFLICT DO NOTHING`,
    [
      orgId,
      JSON.stringify(
        plan.attach.map((a) => ({
          entity_type: a.entityType,
          namespace: a.namespace,
          value: a.value,
          entity_id: ids.get(a.ref) ?? a.ref,
        })),
      ),
    ],
  );
  if (rowCount !== plan.attach.length) {
    throw new Error(
      `entity links: ${plan.attach.length - (rowCount ?? 0)} identities were taken by a concurrent writer that holds no identity lock; retry`,
    );
  }
}

/** The events' links become exactly `links`: the stale ones go, the new ones come, the rest stay. */
async function replaceLinks(
  client: PoolClient,
  orgId: string,
  eventIds: string[],
  links: { event_id: string | undefined; entity_id: string }[],
): Promise<void> {
  const pairs = JSON.stringify(links);
  await client.query(
    `DELETE FROM event_entities ee
      USING events e
      WHERE e.id = ee.event_id AND e.org_id = $1 AND e.id = ANY($2::bigint[])
        AND NOT EXISTS (SELECT 1 FROM jsonb_to_recordset($3::jsonb) AS n(event_id bigint, entity_id bigint)
                         WHERE n.event_id = ee.event_id AND n.entity_id = ee.entity_id)`,
    [orgId, eventIds, pairs],
  );
  if (links.length === 0) return;
  await client.query(
    `INSERT INTO event_entities (event_id, entity_id)
     SELECT n.event_id, n.entity_id
       FROM jsonb_to_recordset($2::jsonb) AS n(event_id bigint, entity_id bigint)
       JOIN events e ON e.id = n.event_id AND e.org_id = $1
     ON CONFLICT DO NOTHING`,
    [orgId, pairs],
  );
}
