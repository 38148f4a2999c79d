import type { Pool } from 'pg';

export interface EntityRow {
  id: string;
  entity_type: string;
  title: string | null;
  traits: Record<string, unknown>;
  identities: { namespace: string; value: string }[];
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `e.id, e.entity_type, e.title, e.traits, e.created_at, e.updated_at,
  coalesce((SELECT jsonb_agg(jsonb_build_object('namespace', i.namespace, 'value', i.value)
                             ORDER BY i.namespace, i.value)
              FROM entity_identities i WHERE i.entity_id = e.id), '[]') AS identities`;

/**
 * The org's entities in id order, after `after`, optionally of one type. With an identity (already
 * normalised) the lookup starts from it: without a type, under each type the org has, one index
 * probe per type (walking the primary key's distinct types) rather than a read of every identity.
 */
export async function listEntities(
  pool: Pool,
  orgId: string,
  filter: {
    type: string | null;
    identity: { namespace: string; value: string } | null;
    after: string | null;
    limit: number;
  },
): Promise<EntityRow[]> {
  const { type, identity, after, limit } = filter;
  if (identity) {
    const { rows } = await pool.query<EntityRow>(
      `WITH RECURSIVE types(t) AS (
         SELECT coalesce($2::text, (SELECT min(entity_type) FROM entity_identities WHERE org_id = $1))
         UNION ALL
         SELECT (SELECT min(entity_type) FROM entity_identities WHERE org_id = $1 AND entity_type > t)
           FROM types WHERE t IS NOT NULL AND $2::text IS NULL
       )
       SELECT ${COLUMNS}
         FROM types
         JOIN entity_identities k ON k.org_id = $1 AND k.entity_type = types.t AND k.namespace = $3 AND k.value = $4
         JOIN entities e ON e.id = k.entity_id
        WHERE $5::bigint IS NULL OR e.id > $5
        ORDER BY e.id
        LIMIT $6`,
      [orgId, type, identity.namespace, identity.value, after, limit],
    );
    return rows;
  }
  const { rows } = await pool.query<EntityRow>(
    `SELECT ${COLUMNS} FROM entities e
      WHERE e.org_id = $1 AND ($2::text IS NULL OR e.entity_type = $2) AND ($3::bigint IS NULL OR e.id > $3)
      ORDER BY e.id
      LIMIT $4`,
    [orgId, type, after, limit],
  );
  return rows;
}

export async function entityById(pool: Pool, orgId: string, id: string): Promise<EntityRow | null> {
  if (!/^\d{1,18}$/.test(id)) return null;
  const { rows } = await pool.query<EntityRow>(
    `SELECT ${COLUMNS} FROM entities e WHERE e.org_id = $1 AND e.id = $2`,
    [orgId, id],
  );
  return rows[0] ?? null;
}
