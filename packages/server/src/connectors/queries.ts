import type { ConnectorDefinition, EntityLinkOverrides } from '@svc/connector-sdk';
import type { MutationResult } from '@svc/core';
import type { Pool } from 'pg';
import { ProblemError } from '../http/problem.js';
import type { Generated } from './codeless/types.js';
import type { ConnectorOrigin } from './install.js';

export interface InstallRow {
  connector_key: string;
  version: string;
  definition: ConnectorDefinition;
  package: string | null;
  entity_link_overrides: EntityLinkOverrides;
  /** A connector without code: what svc read from its upstream. */
  generated: Generated | null;
  approval_overrides: Record<string, boolean>;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'connector_key, version, definition, package, entity_link_overrides, generated, approval_overrides, created_at, updated_at';

/** Where an install's code is: a bundled package, posted source, or none (what svc read upstream). */
export type InstallOrigin =
  | ConnectorOrigin
  | { generated: Generated; approvalOverrides: Record<string, boolean> | undefined };

/**
 * Installs, or upgrades in place: the row of (org, key) is kept, so what refers to it (connections
 * and their feeds) stays. Written only when something differs, so a repeat is `unchanged`.
 */
export async function upsertInstall(
  pool: Pool,
  orgId: string,
  definition: ConnectorDefinition,
  origin: InstallOrigin,
  overrides: EntityLinkOverrides | undefined,
  /** Written only if the install is still as read then (a refresh reads its upstream for seconds). */
  readAt?: Date,
): Promise<{ result: MutationResult; row: InstallRow }> {
  const generated = 'generated' in origin ? origin.generated : null;
  const approvals = 'generated' in origin ? origin.approvalOverrides : undefined;
  const values = [
    orgId,
    definition.key,
    definition.version,
    JSON.stringify(definition),
    'package' in origin ? origin.package : null,
    'source' in origin ? origin.source : null,
    overrides === undefined ? null : JSON.stringify(overrides),
    generated === null ? null : JSON.stringify(generated),
    approvals === undefined ? null : JSON.stringify(approvals),
    readAt ?? null,
  ];
  const { rows } = await pool.query<InstallRow & { created: boolean }>(
    `INSERT INTO connector_definitions (org_id, connector_key, version, definition, package, source, entity_link_overrides,
                                        generated, approval_overrides)
     VALUES ($1, $2, $3, $4, $5, $6, coalesce($7::jsonb, '{}'), $8, coalesce($9::jsonb, '{}'))
     ON CONFLICT (org_id, connector_key) DO UPDATE
        SET version = excluded.version, definition = excluded.definition, package = excluded.package,
            source = excluded.source, generated = excluded.generated,
            -- Absent from the request, the org's overrides stay as they were.
            entity_link_overrides = coalesce($7::jsonb, connector_definitions.entity_link_overrides),
            approval_overrides = coalesce($9::jsonb, connector_definitions.approval_overrides),
            updated_at = now()
      -- When the time it was read is all that changed, the install is unchanged.
      WHERE (connector_definitions.version, connector_definitions.definition, connector_definitions.package,
             connector_definitions.source, connector_definitions.entity_link_overrides,
             connector_definitions.generated - 'refreshedAt', connector_definitions.approval_overrides)
            IS DISTINCT FROM (excluded.version, excluded.definition, excluded.package, excluded.source,
                              coalesce($7::jsonb, connector_definitions.entity_link_overrides),
                              excluded.generated - 'refreshedAt',
                              coalesce($9::jsonb, connector_definitions.approval_overrides))
        -- JavaScript's Date holds milliseconds, PostgreSQL's timestamps microseconds.
        AND ($10::timestamptz IS NULL OR date_trunc('milliseconds', connector_definitions.updated_at) = $10)
     RETURNING ${COLUMNS}, (xmax = 0) AS created`,
    values,
  );
  const written = rows[0];
  if (written) return { result: written.created ? 'created' : 'updated', row: written };
  if (generated) {
    // Read again and found the same: when it was read is news, the install is not. Only onto
    // what was read: a row changed meanwhile is not stamped with this older reading.
    await pool.query(
      `UPDATE connector_definitions SET generated = jsonb_set(generated, '{refreshedAt}', to_jsonb($3::text))
        WHERE org_id = $1 AND connector_key = $2 AND generated - 'refreshedAt' = $4::jsonb - 'refreshedAt'`,
      [orgId, definition.key, generated.refreshedAt, JSON.stringify(generated)],
    );
  }
  const current = await getInstall(pool, orgId, definition.key);
  if (readAt && current && current.updated_at.getTime() !== readAt.getTime()) {
    throw new ProblemError(
      409,
      'conflict',
      `connector "${definition.key}" changed while its upstream was read (installed again, or refreshed): nothing was written; refresh it again`,
    );
  }
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
