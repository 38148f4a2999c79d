import type { MutationResult } from '@svc/core';
import type { Pool } from 'pg';
import { microsOf, timestampAt } from '../db/keyset.js';

export interface RelationshipRow {
  id: string;
  relationship_type: string;
  source_entity_id: string;
  target_entity_id: string;
  metadata: Record<string, unknown>;
  created_at: Date;
  cursor_micros: string;
}

const COLUMNS = `r.id, r.relationship_type, r.source_entity_id, r.target_entity_id, r.metadata, r.created_at,
  ${microsOf('r.created_at')} AS cursor_micros`;

export interface RelationshipTypeRow {
  slug: string;
  metadata_schema: Record<string, unknown> | null;
  rules: { source: string | string[]; target: string | string[] }[] | null;
}

export async function relationshipType(
  pool: Pool,
  orgId: string,
  slug: string,
): Promise<RelationshipTypeRow | null> {
  const { rows } = await pool.query<RelationshipTypeRow>(
    'SELECT slug, metadata_schema, rules FROM relationship_types WHERE org_id = $1 AND slug = $2',
    [orgId, slug],
  );
  return rows[0] ?? null;
}

/** The entity type of each id that is an entity of the org; ids of other orgs are simply absent. */
export async function entityTypesOf(pool: Pool, orgId: string, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ id: string; entity_type: string }>(
    'SELECT id::text, entity_type FROM entities WHERE org_id = $1 AND id = ANY($2::bigint[])',
    [orgId, ids],
  );
  return new Map(rows.map((row) => [row.id, row.entity_type]));
}

/**
 * Creates the relationship, or replaces its metadata when it differs: one row per (type, source,
 * target), so posting it again is `unchanged`.
 */
export async function upsertRelationship(
  pool: Pool,
  orgId: string,
  r: { type: string; source: string; target: string; metadata: Record<string, unknown> },
): Promise<RelationshipRow & { result: MutationResult }> {
  const params = [orgId, r.type, r.source, r.target, JSON.stringify(r.metadata)];
  const { rows } = await pool.query<RelationshipRow & { result: MutationResult }>(
    `WITH up AS (
       INSERT INTO relationships AS r (org_id, relationship_type, source_entity_id, target_entity_id, metadata)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (org_id, relationship_type, source_entity_id, target_entity_id) DO UPDATE
          SET metadata = excluded.metadata
        WHERE r.metadata IS DISTINCT FROM excluded.metadata
       RETURNING ${COLUMNS}, (xmax = 0) AS inserted
     )
     SELECT *, CASE WHEN inserted THEN 'created' ELSE 'updated' END AS result FROM up
     UNION ALL
     SELECT ${COLUMNS}, false, 'unchanged' FROM relationships r
      WHERE r.org_id = $1 AND r.relationship_type = $2 AND r.source_entity_id = $3 AND r.target_entity_id = $4
        AND NOT EXISTS (SELECT 1 FROM up)`,
    params,
  );
  if (rows[0]) return rows[0];
  // The same relationship committed by a concurrent request after this statement's snapshot: the
  // insert found the conflict but the snapshot cannot see the row; a new statement can.
  const again = await pool.query<RelationshipRow & { result: MutationResult }>(
    `SELECT ${COLUMNS}, 'unchanged' AS result FROM relationships r
      WHERE r.org_id = $1 AND r.relationship_type = $2 AND r.source_entity_id = $3 AND r.target_entity_id = $4`,
    params.slice(0, 4),
  );
  if (again.rows[0]) return again.rows[0];
  throw new Error('a relationship that changed concurrently; retry the request');
}

/** Newest first, after `cursor`; `entityId` in either direction. */
export async function listRelationships(
  pool: Pool,
  orgId: string,
  filter: {
    entityId: string | null;
    type: string | null;
    cursor: { micros: string; id: string } | null;
    limit: number;
  },
): Promise<RelationshipRow[]> {
  const params: unknown[] = [orgId, filter.type];
  const param = (value: unknown) => params.push(value);
  const where = ['r.org_id = $1', '($2::text IS NULL OR r.relationship_type = $2)'];
  if (filter.cursor) {
    const at = param(filter.cursor.micros);
    where.push(`(r.created_at, r.id) < (${timestampAt(at)}, $${param(filter.cursor.id)}::bigint)`);
  }
  const order = `ORDER BY r.created_at DESC, r.id DESC LIMIT $${param(filter.limit)}`;
  if (filter.entityId === null) {
    const { rows } = await pool.query<RelationshipRow>(
      `SELECT ${COLUMNS} FROM relationships r WHERE ${where.join(' AND ')} ${order}`,
      params,
    );
    return rows;
  }
  // Each direction walks its own index; the union is then cut to the page.
  const entity = `$${param(filter.entityId)}::bigint`;
  const { rows } = await pool.query<RelationshipRow>(
    `SELECT * FROM (
       (SELECT ${COLUMNS} FROM relationships r WHERE ${where.join(' AND ')} AND r.source_entity_id = ${entity} ${order})
       UNION
       (SELECT ${COLUMNS} FROM relationships r WHERE ${where.join(' AND ')} AND r.target_entity_id = ${entity} ${order})
     ) r ${order}`,
    params,
  );
  return rows;
}

export async function deleteRelationship(pool: Pool, orgId: string, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM relationships WHERE org_id = $1 AND id = $2', [
    orgId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/** How many of an entity's relationships its own page shows; the rest are a list away. */
export const ENTITY_RELATIONSHIPS = 50;

/** An entity's newest relationships, both directions, for its page. */
export const relationshipsOfEntity = (pool: Pool, orgId: string, entityId: string) =>
  listRelationships(pool, orgId, { entityId, type: null, cursor: null, limit: ENTITY_RELATIONSHIPS });
