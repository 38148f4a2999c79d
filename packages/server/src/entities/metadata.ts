import type { PoolClient } from 'pg';
import { metadataProblems } from '../memory/json-schema.js';
import { type EntityChange, isNew, type Plan } from './plan.js';
import type { LinkIssue } from './rules.js';

/**
 * An entity's traits are its metadata: when its type has a `metadata_schema`, traits that a link
 * would leave invalid are not written. The entity is still created or linked (an event about a
 * person is about that person whatever its fields say), and each event linked to it says why in
 * its `link_issues`. Takes the row locks of the entities the plan updates, in id order, before any
 * other row lock of the call, and reads what they hold under them.
 */
export async function keepValidMetadata(
  client: PoolClient,
  orgId: string,
  plan: Plan,
  issues: LinkIssue[][],
): Promise<void> {
  const changes = [...plan.changes.values()].filter(writesTraits);
  if (changes.length === 0) return;
  const schemas = await metadataSchemasOf(client, orgId, [...new Set(changes.map((c) => c.entityType))]);
  if (schemas.size === 0) return;
  // The rows `updateEntities` locks, all of them now: locking a part of them here and the rest
  // there would take them out of id order, and two calls could each wait for the other.
  const locked = [...plan.changes.values()].filter(
    (c) => !isNew(c.ref) && (c.title !== null || writesTraits(c)),
  );
  const merged = await mergedTraits(
    client,
    locked,
    changes.filter((c) => !isNew(c.ref)),
  );
  const eventsOf = new Map<string, number[]>();
  for (const link of plan.links) eventsOf.set(link.ref, [...(eventsOf.get(link.ref) ?? []), link.event]);

  for (const change of changes) {
    const schema = schemas.get(change.entityType);
    if (!schema) continue;
    const traits = isNew(change.ref)
      ? Object.fromEntries([...change.init, ...change.set])
      : (merged.get(change.ref) ?? {});
    const errors = metadataProblems(schema, traits);
    if (errors.length === 0) continue;
    change.set.clear();
    change.init.clear();
    for (const event of eventsOf.get(change.ref) ?? []) {
      issues[event]?.push({ problem: 'invalid_metadata', entityType: change.entityType, errors });
    }
  }
}

const writesTraits = (change: EntityChange) => change.set.size > 0 || change.init.size > 0;

/** The org's metadata schemas of these entity types; a type without one is absent. */
async function metadataSchemasOf(
  client: PoolClient,
  orgId: string,
  types: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const { rows } = await client.query<{ slug: string; metadata_schema: Record<string, unknown> }>(
    `SELECT slug, metadata_schema FROM entity_types
      WHERE org_id = $1 AND slug = ANY($2::text[]) AND metadata_schema IS NOT NULL`,
    [orgId, types],
  );
  return new Map(rows.map((row) => [row.slug, row.metadata_schema]));
}

/**
 * The traits each existing entity would hold after the call, merged as `updateEntities` merges
 * them (in SQL, so that numbers keep their precision), read under the locks of `locked`.
 */
async function mergedTraits(
  client: PoolClient,
  locked: EntityChange[],
  changes: EntityChange[],
): Promise<Map<string, Record<string, unknown>>> {
  if (changes.length === 0) return new Map();
  await client.query('SELECT id FROM entities WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE', [
    locked.map((change) => change.ref),
  ]);
  const { rows } = await client.query<{ id: string; traits: Record<string, unknown> }>(
    `SELECT t.id::text,
            t.traits
            || (SELECT coalesce(jsonb_object_agg(i.key, i.value), '{}')
                  FROM jsonb_each(n.init_traits) AS i
                 WHERE coalesce(t.traits -> i.key, 'null') = 'null')
            || n.set_traits AS traits
       FROM jsonb_to_recordset($1::jsonb) AS n(id bigint, init_traits jsonb, set_traits jsonb)
       JOIN entities t ON t.id = n.id`,
    [
      JSON.stringify(
        changes.map((change) => ({
          id: change.ref,
          init_traits: Object.fromEntries(change.init),
          set_traits: Object.fromEntries(change.set),
        })),
      ),
    ],
  );
  return new Map(rows.map((row) => [row.id, row.traits]));
}
