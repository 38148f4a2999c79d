import type { ApplyManifest, ApplyManifestPut } from '@svc/core';
import type { Pool } from 'pg';
import { upsert, upsertStatements } from '../db/upsert.js';
import { iso } from '../http/common.js';

/** Columns in the order of `UPSERT_MANIFEST`'s parameters after the org. */
const COLUMNS = ['project', 'agents', 'platforms', 'entity_types', 'relationship_types', 'watchers'];

interface ManifestRow {
  project: string | null;
  agents: string[];
  platforms: string[];
  entity_types: string[];
  relationship_types: string[];
  watchers: string[];
  applied_at: Date;
}

/** One row per org; a repeat of the same declaration is one read and writes nothing. */
const UPSERT_MANIFEST = upsertStatements({
  table: 'apply_manifests',
  keys: ['org_id'],
  values: COLUMNS,
  returning: [...COLUMNS, 'applied_at'],
  stamp: 'applied_at',
});

const toManifest = (row: ManifestRow): ApplyManifest => ({
  project: row.project,
  agents: row.agents,
  platforms: row.platforms,
  entityTypes: row.entity_types,
  relationshipTypes: row.relationship_types,
  watchers: row.watchers,
  appliedAt: iso(row.applied_at),
});

/** Sorted by code point, as PostgreSQL's `C` collation and the CLI would: the order never counts. */
const sorted = (ids: string[]) => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** Replaces the org's manifest with `put`; `unchanged` when it already declared exactly this. */
export async function putManifest(pool: Pool, orgId: string, put: ApplyManifestPut) {
  const row = await upsert<ManifestRow>(pool, UPSERT_MANIFEST, [
    orgId,
    put.project ?? null,
    sorted(put.agents),
    sorted(put.platforms),
    sorted(put.entityTypes),
    sorted(put.relationshipTypes),
    sorted(put.watchers),
  ]);
  return { result: row.result, manifest: toManifest(row) };
}

/** The org's manifest, or null when no apply has recorded one. */
export async function getManifest(pool: Pool, orgId: string): Promise<ApplyManifest | null> {
  const { rows } = await pool.query<ManifestRow>(
    `SELECT ${COLUMNS.join(', ')}, applied_at FROM apply_manifests WHERE org_id = $1`,
    [orgId],
  );
  return rows[0] ? toManifest(rows[0]) : null;
}
