import type { ConnectorDefinition, EntityLinkOverrides } from '@svc/connector-sdk';
import type { MutationResult } from '@svc/core';
import type { Pool } from 'pg';
import type { ConnectorOrigin } from './install.js';

export interface InstallRow {
  connector_key: string;
  version: string;
  definition: ConnectorDefinition;
  package: string | null;
  entity_link_overrides: EntityLinkOverrides;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'connector_key, version, definition, package, entity_link_overrides, created_at, updated_at';

/**
 * Installs, or upgrades in place: the row of (org, key) is kept, so what refers to it (connections
 * and their feeds) stays. Written only when something differs, so a repeat is `unchanged`.
 */
export async function upsertInstall(
  pool: Pool,
  orgId: string,
  definition: ConnectorDefinition,
  origin: ConnectorOrigin,
  overrides: EntityLinkOverrides | undefined,
): Promise<{ result: MutationResult; row: InstallRow }> {
  const values = [
    orgId,
    definition.key,
    definition.version,
    JSON.stringify(definition),
    'package' in origin ? origin.package : null,
    'source' in origin ? origin.source : null,
    overrides === undefined ? null : JSON.stringify(overrides),
  ];
  const { rows } = await pool.query<InstallRow & { created: boolean }>(
    `INSERT INTO connector_definitions (org_id, connector_key, version, definition, package, source, entity_link_overrides)
     VALUES ($1, $2, $3, $4, $5, $6, coalesce($7::jsonb, '{}'))
     ON CONFLICT (org_id, connector_key) DO UPDATE
        SET version = excluded.version, definition = excluded.definition, package = excluded.package,
            source = excluded.source,
            -- Absent from the request, the org's overrides stay as they were.
            entity_link_overrides = coalesce($7::jsonb, connector_definitions.entity_link_overrides),
            updated_at = now()
      WHERE (connector_definitions.version, connector_definitions.definition, connector_definitions.package,
             connector_definitions.source, connector_definitions.entity_link_overrides)
            IS DISTINCT FROM (excluded.version, excluded.definition, excluded.package, excluded.source,
                              coalesce($7::jsonb, connector_definitions.entity_link_overrides))
     RETURNING ${COLUMNS}, (xmax = 0) AS created`,
    values,
  );
  const written = rows[0];
  if (written) return { result: written.created ? 'created' : 'updated', row: written };
  const current = await getInstall(pool, orgId, definition.key);
  return { result: 'unchanged', row: current as InstallRow };
}

export async function getInstall(pool: Pool, orgId: string, key: string): Promise<InstallRow | null> {
  const { rows } = await pool.query<InstallRow>(
    `SELECT ${COLUMNS} FROM connector_definitions WHERE org_id = $1 AND connector_key = $2`,
    [orgId, key],
  );
  return rows[0] ?? null;
}

export async function listInstalls(pool: Pool, orgId: string): Promise<InstallRow[]> {
  const { rows } = await pool.query<InstallRow>(
    `SELECT ${COLUMNS} FROM connector_definitions WHERE org_id = $1 ORDER BY connector_key`,
    [orgId],
  );
  return rows;
}

/** The version of each connector installed in the org, by key: what a listing of packages compares. */
export async function installedVersions(pool: Pool, orgId: string): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ connector_key: string; version: string }>(
    'SELECT connector_key, version FROM connector_definitions WHERE org_id = $1',
    [orgId],
  );
  return new Map(rows.map((row) => [row.connector_key, row.version]));
}
