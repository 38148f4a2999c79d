import type { ActionDefinition } from '@svc/connector-sdk';
import { countSchema, recordIdSchema } from '@svc/core';
import type { Pool, PoolClient } from 'pg';
import { z } from 'zod';
import { schemaDetails } from '../connections/model.js';
import { transaction } from '../db/transaction.js';
import { iso, isoOrNull } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import { logRequester } from './logs.js';
import { RUNS_CHANNEL } from './queue.js';

const object = z.record(z.string(), z.unknown());

/** The spec's `Run`, field for field; an absent optional field is null. */
export const runSchema = z.object({
  id: recordIdSchema,
  organizationId: z.string().describe("the org's slug"),
  runType: z.enum(['sync', 'action', 'code', 'watcher', 'auth']),
  feedId: recordIdSchema.nullable(),
  connectionId: recordIdSchema.nullable(),
  actionKey: z.string().nullable(),
  actionInput: object.nullable(),
  actionOutput: object.nullable(),
  approvalStatus: z.enum(['pending', 'approved', 'rejected', 'auto']),
  status: z.enum(['pending', 'running', 'completed', 'failed', 'cancelled', 'timeout']),
  claimedBy: z.string().nullable(),
  claimedAt: z.string().nullable(),
  lastHeartbeatAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  connectorKey: z.string().nullable(),
  connectorVersion: z.string().nullable(),
  checkpoint: object.nullable(),
  itemsCollected: countSchema,
  errorMessage: z.string().nullable(),
  createdAt: z.string(),
});

export type Run = z.infer<typeof runSchema>;
export type ApprovalStatus = Run['approvalStatus'];

export interface RunRow {
  id: string;
  org_slug: string;
  run_type: Run['runType'];
  feed_id: string | null;
  connection_id: string | null;
  action_key: string | null;
  action_input: Record<string, unknown> | null;
  action_output: Record<string, unknown> | null;
  approval_status: ApprovalStatus;
  status: Run['status'];
  claimed_by: string | null;
  claimed_at: Date | null;
  last_heartbeat_at: Date | null;
  completed_at: Date | null;
  connector_key: string | null;
  connector_version: string | null;
  checkpoint: Record<string, unknown> | null;
  items_collected: string;
  error_message: string | null;
  created_at: Date;
}

export const RUN_COLUMNS = `r.id, o.slug AS org_slug, r.run_type, r.feed_id, r.connection_id, r.action_key,
  r.action_input, r.action_output, r.approval_status, r.status, r.claimed_by, r.claimed_at, r.last_heartbeat_at,
  r.completed_at, r.connector_key, r.connector_version, r.checkpoint, r.items_collected, r.error_message, r.created_at`;

export const toRun = (row: RunRow): Run => ({
  id: Number(row.id),
  organizationId: row.org_slug,
  runType: row.run_type,
  feedId: row.feed_id === null ? null : Number(row.feed_id),
  connectionId: row.connection_id === null ? null : Number(row.connection_id),
  actionKey: row.action_key,
  actionInput: row.action_input,
  actionOutput: row.action_output,
  approvalStatus: row.approval_status,
  status: row.status,
  claimedBy: row.claimed_by,
  claimedAt: isoOrNull(row.claimed_at),
  lastHeartbeatAt: isoOrNull(row.last_heartbeat_at),
  completedAt: isoOrNull(row.completed_at),
  connectorKey: row.connector_key,
  connectorVersion: row.connector_version,
  checkpoint: row.checkpoint,
  itemsCollected: Number(row.items_collected),
  errorMessage: row.error_message,
  createdAt: iso(row.created_at),
});

export async function runById(
  client: Pick<PoolClient, 'query'>,
  orgId: string,
  id: string,
): Promise<RunRow | null> {
  if (!/^\d{1,18}$/.test(id)) return null;
  const { rows } = await client.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM runs r JOIN orgs o ON o.id = r.org_id WHERE r.org_id = $1 AND r.id = $2`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

/** Problems of an action's input against its `inputSchema`, as JSON Pointers under `path`. */
export function inputProblems(action: ActionDefinition, input: Record<string, unknown>, path: string) {
  // A problem of the whole input (say `minProperties`) is reported at the input itself.
  return schemaDetails(action.inputSchema, input, path).map((p) => ({
    ...p,
    path: p.path.replace(/\/\(value\)$/, ''),
  }));
}

export interface ActionRunRequest {
  orgId: string;
  connectionId: string;
  actionKey: string;
  input: Record<string, unknown>;
  /** Default: `pending` when the action `requiresApproval`, else `auto`. */
  approvalStatus?: 'pending' | 'approved' | 'auto';
  /** Who asked (a token's name, `agent <id>`): the first line of the run's log. */
  createdBy: string;
  /** Where the input sits in what the caller sent, for the problems' pointers. */
  inputPath?: string;
}

/**
 * A run of one action of a connection, checked and queued in one transaction: the connection
 * exists (404), has the action (404, naming those it has), the input is what the action's
 * `inputSchema` takes (422, every problem at once), and the connection is active (409). The
 * connection's row is held while it is checked, so a pause cannot slip between the check and the
 * insert. Workers are woken by a NOTIFY sent with the commit, so none looks before the row exists.
 */
export async function createActionRun(pool: Pool, request: ActionRunRequest): Promise<RunRow> {
  const { orgId, connectionId, actionKey, input } = request;
  if (!/^\d{1,18}$/.test(connectionId)) throw notFound(`connection ${connectionId}`);
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{
      status: string;
      error_message: string | null;
      connector_key: string;
      actions: Record<string, ActionDefinition> | null;
    }>(
      `SELECT c.status, c.error_message, c.connector_key, d.definition->'actions' AS actions
         FROM connections c
         JOIN connector_definitions d ON d.org_id = c.org_id AND d.connector_key = c.connector_key
        WHERE c.org_id = $1 AND c.id = $2
          FOR SHARE OF c`,
      [orgId, connectionId],
    );
    const connection = rows[0];
    if (!connection) throw notFound(`connection ${connectionId}`);
    const actions = connection.actions ?? {};
    const action = Object.hasOwn(actions, actionKey) ? actions[actionKey] : undefined;
    if (!action) {
      const known = Object.keys(actions).sort();
      throw new ProblemError(
        404,
        'not_found',
        `connector "${connection.connector_key}" has no action "${actionKey}" (its actions: ${
          known.length > 0 ? known.map((k) => `"${k}"`).join(', ') : 'none'
        })`,
      );
    }
    const problems = inputProblems(action, input, request.inputPath ?? '/body/input');
    if (problems.length > 0) {
      throw new ProblemError(
        422,
        'validation_failed',
        `the input is not what action "${actionKey}" of connector "${connection.connector_key}" takes`,
        problems,
      );
    }
    if (connection.status !== 'active') {
      throw new ProblemError(
        409,
        'conflict',
        `connection ${connectionId} is ${connection.status}${
          connection.error_message ? ` (${connection.error_message})` : ''
        }: its actions run only while it is active`,
      );
    }
    const approvalStatus = request.approvalStatus ?? (action.requiresApproval ? 'pending' : 'auto');
    const inserted = await client.query<{ id: string }>(
      `INSERT INTO runs (org_id, run_type, connection_id, action_key, action_input, approval_status, connector_key)
       VALUES ($1, 'action', $2, $3, $4, $5, $6) RETURNING id`,
      [orgId, connectionId, actionKey, JSON.stringify(input), approvalStatus, connection.connector_key],
    );
    const id = (inserted.rows[0] as { id: string }).id;
    await logRequester(client, id, `action requested by ${request.createdBy}`, {
      createdBy: request.createdBy,
      approvalStatus,
    });
    if (approvalStatus !== 'pending') await client.query(`SELECT pg_notify('${RUNS_CHANNEL}', '')`);
    return (await runById(client, orgId, id)) as RunRow;
  });
}
