import type { AuthArtifact, ConnectorDefinition } from '@svc/connector-sdk';
import type { Pool } from 'pg';
import { transaction } from '../db/transaction.js';
import { notFound, ProblemError } from '../http/problem.js';
import { logRequester } from '../runs/logs.js';
import { RUNS_CHANNEL } from '../runs/queue.js';
import { DEFAULT_AUTH_TIMEOUT_SEC, interactiveMethod } from './execute.js';
import { storeSignal } from './signals.js';
import { FINAL_STATUSES } from './stream.js';

/** The longest `timeoutSec` taken from a definition: an auth run holds a worker's slot meanwhile. */
export const MAX_AUTH_TIMEOUT_SEC = 3600;

/**
 * An `auth` run of the connection, or the one already open (pending or running): asking twice
 * makes one run, and a CLI that lost its stream can ask again to follow the same one. The
 * connection's row is held while it is checked, so two starts at once make one run (the unique
 * index on open auth runs settles it anyway). 404 without the connection; 422 when its connector
 * has no `interactive` method or runs on a device.
 */
export async function startAuthRun(
  pool: Pool,
  input: { orgId: string; connectionId: string; createdBy: string },
): Promise<{ id: string; created: boolean }> {
  const { orgId, connectionId } = input;
  if (!/^\d{1,18}$/.test(connectionId)) throw notFound(`connection ${connectionId}`);
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{
      connector_key: string;
      definition: ConnectorDefinition;
      runs_on_device: boolean;
    }>(
      `SELECT c.connector_key, d.definition, d.runs_on_device
         FROM connections c
         JOIN connector_definitions d ON d.org_id = c.org_id AND d.connector_key = c.connector_key
        WHERE c.org_id = $1 AND c.id = $2
          FOR UPDATE OF c`,
      [orgId, connectionId],
    );
    const connection = rows[0];
    if (!connection) throw notFound(`connection ${connectionId}`);
    const method = interactiveMethod(connection.definition);
    if (!method) {
      const methods = (connection.definition.authSchema?.methods ?? []).map((m) => m.type);
      throw new ProblemError(
        422,
        'validation_failed',
        `connector "${connection.connector_key}" has no interactive auth method (its methods: ${
          methods.length > 0 ? methods.join(', ') : 'none'
        }): an auth run executes a connector's authenticate(ctx), which only connectors declaring { type: 'interactive' } have`,
        [
          {
            path: '/params/connectionId',
            message: 'a connection of a connector with an interactive auth method',
          },
        ],
      );
    }
    if (connection.runs_on_device) {
      throw new ProblemError(
        422,
        'validation_failed',
        `connector "${connection.connector_key}" runs on a device (runtime.platforms), not on the server: authenticate it there`,
        [{ path: '/params/connectionId', message: 'a connection of a connector that runs on the server' }],
      );
    }
    const open = await client.query<{ id: string }>(
      `SELECT id FROM runs WHERE connection_id = $1 AND run_type = 'auth' AND status IN ('pending', 'running')`,
      [connectionId],
    );
    if (open.rows[0]) return { id: open.rows[0].id, created: false };
    const timeoutSec = Math.min(
      MAX_AUTH_TIMEOUT_SEC,
      Math.max(
        1,
        Math.ceil(Number(method.timeoutSec ?? DEFAULT_AUTH_TIMEOUT_SEC) || DEFAULT_AUTH_TIMEOUT_SEC),
      ),
    );
    const inserted = await client.query<{ id: string }>(
      `INSERT INTO runs (org_id, run_type, connection_id, connector_key, auth_timeout_sec)
       VALUES ($1, 'auth', $2, $3, $4) RETURNING id`,
      [orgId, connectionId, connection.connector_key, timeoutSec],
    );
    const id = (inserted.rows[0] as { id: string }).id;
    await logRequester(client, id, `authentication requested by ${input.createdBy}`, {
      createdBy: input.createdBy,
      timeoutSec,
    });
    await client.query(`SELECT pg_notify('${RUNS_CHANNEL}', '')`);
    return { id, created: true };
  });
}

/** The auth run's status, or null when the org has no such auth run. */
export async function authRunStatus(pool: Pool, orgId: string, runId: string): Promise<string | null> {
  if (!/^\d{1,18}$/.test(runId)) return null;
  const { rows } = await pool.query<{ status: string }>(
    `SELECT status FROM runs WHERE org_id = $1 AND id = $2 AND run_type = 'auth'`,
    [orgId, runId],
  );
  return rows[0]?.status ?? null;
}

/** The artifact the run shows now (its latest) and its event's `seq`, or nulls before the first. */
export async function currentArtifact(
  pool: Pool,
  runId: string,
): Promise<{ artifact: AuthArtifact | null; artifactSeq: number | null }> {
  const { rows } = await pool.query<{ data: AuthArtifact; seq: number }>(
    `SELECT data, seq FROM auth_run_events WHERE run_id = $1 AND type = 'artifact' ORDER BY seq DESC LIMIT 1`,
    [runId],
  );
  return { artifact: rows[0]?.data ?? null, artifactSeq: rows[0]?.seq ?? null };
}

/**
 * Keeps a signal for the run (sealed) and wakes its worker. 404 when the org has no such auth
 * run; 409 once it has ended. The run's row is held (shared) meanwhile, so a signal is never kept
 * for a run that ended as it was posted.
 */
export async function postSignal(
  pool: Pool,
  key: Buffer,
  input: { orgId: string; runId: string; name: string; value: Record<string, unknown> },
): Promise<string> {
  const { orgId, runId } = input;
  if (!/^\d{1,18}$/.test(runId)) throw notFound(`auth run ${runId}`);
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ status: string }>(
      `SELECT status FROM runs WHERE org_id = $1 AND id = $2 AND run_type = 'auth' FOR SHARE`,
      [orgId, runId],
    );
    const status = rows[0]?.status;
    if (status === undefined) throw notFound(`auth run ${runId}`);
    if (FINAL_STATUSES.has(status)) {
      throw new ProblemError(
        409,
        'conflict',
        `auth run ${runId} has ended (its status is ${status}): start another to authenticate again`,
      );
    }
    await storeSignal(client, key, input);
    return status;
  });
}
