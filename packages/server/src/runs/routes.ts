import { countSchema, pageQuerySchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { cursorOf, encodeCursor, isId, microsOf, timestampAt } from '../db/keyset.js';
import {
  iso,
  noBody,
  orgParams,
  problemResponse,
  problemResponses,
  recordIdFilter,
  recordIdParam,
} from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { RUN_COLUMNS, type RunRow, runSchema, toRun } from './actions.js';
import { RUN_LOG_LINES } from './logs.js';
import { cancelRun, decideRun, requestSync } from './queue.js';

const tags = ['runs'];
const object = z.record(z.string(), z.unknown());
const RUN_STATUSES = runSchema.shape.status.options;
const OPEN = new Set(['pending', 'running']);

/** The spec's `Run` (as the action route answers it), with the items it refused and its log lines. */
export const runRecordSchema = runSchema.extend({
  itemsRejected: countSchema.describe(
    'envelopes refused (an unknown kind, metadata its schema does not take): in the log, never collected',
  ),
  logLines: countSchema.describe(`log lines the run wrote; the latest ${RUN_LOG_LINES} are kept`),
});

export type RunRecordRow = RunRow & { items_rejected: string; log_lines: number; cursor_micros: string };

const COLUMNS = `${RUN_COLUMNS}, r.items_rejected, r.log_lines, ${microsOf('r.created_at')} AS cursor_micros`;

export const toRunRecord = (row: RunRecordRow) => ({
  ...toRun(row),
  itemsRejected: Number(row.items_rejected),
  logLines: row.log_lines,
});

const FROM = 'FROM runs r JOIN orgs o ON o.id = r.org_id';

export async function runRecordById(pool: Pool, orgId: string, id: string): Promise<RunRecordRow | null> {
  if (!isId(id)) return null;
  const { rows } = await pool.query<RunRecordRow>(
    `SELECT ${COLUMNS} ${FROM} WHERE r.org_id = $1 AND r.id = $2`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

interface RunFilters {
  feedId?: string;
  connectionId?: string;
  status?: string;
  runType?: string;
}

/** The org's runs that pass `filters`, newest first by (created_at, id), after `cursor`. */
async function listRuns(
  pool: Pool,
  orgId: string,
  filters: RunFilters,
  cursor: { micros: string; id: string } | null,
  limit: number,
): Promise<RunRecordRow[]> {
  const params: unknown[] = [orgId];
  const where = ['r.org_id = $1'];
  const param = (value: unknown) => {
    params.push(value);
    return params.length;
  };
  if (filters.feedId !== undefined) where.push(`r.feed_id = $${param(filters.feedId)}`);
  if (filters.connectionId !== undefined) where.push(`r.connection_id = $${param(filters.connectionId)}`);
  if (filters.status !== undefined) where.push(`r.status = $${param(filters.status)}`);
  if (filters.runType !== undefined) where.push(`r.run_type = $${param(filters.runType)}`);
  if (cursor) {
    const at = param(cursor.micros);
    where.push(`(r.created_at, r.id) < (${timestampAt(at)}, $${param(cursor.id)}::bigint)`);
  }
  const { rows } = await pool.query<RunRecordRow>(
    `SELECT ${COLUMNS} ${FROM} WHERE ${where.join(' AND ')}
      ORDER BY r.created_at DESC, r.id DESC LIMIT $${param(limit)}`,
    params,
  );
  return rows;
}

/** The run as it is now; it was there a moment ago, and runs are deleted only with their org or feed. */
async function currentRun(pool: Pool, orgId: string, id: string) {
  const row = await runRecordById(pool, orgId, id);
  if (!row) throw notFound(`run ${id}`);
  return toRunRecord(row);
}

const runParams = orgParams.extend({ runId: recordIdParam });
/** These POSTs take nothing: an empty JSON object, or no body at all. */
const who = (request: { caller: { token: { name: string } | null } | null }) =>
  request.caller?.token?.name ?? 'admin';

/** What the routes of this file need from the server that mounts them. */
export interface RunRouteOptions {
  pool: Pool;
}

/** Runs of connectors: asked for, followed, stopped, approved. */
export function runRoutes(options: RunRouteOptions) {
  const { pool } = options;
  return async (app: App) => {
    app.post(
      '/api/:org/feeds/:feedId/sync',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags: ['feeds'],
          operationId: 'syncFeed',
          summary: 'Sync a feed now',
          description:
            'A pending sync run of the feed, or the one already open (pending or running): asking twice ' +
            'makes one run. `created` says which. The run starts once a worker takes it, if its connection is active ' +
            "(a paused one's waits until it is resumed); a connection in `error` or `revoked` is 409, saying how to connect it again.",
          params: orgParams.extend({ feedId: recordIdParam }),
          body: noBody,
          response: {
            202: z.object({ run: runRecordSchema, created: z.boolean() }),
            409: problemResponse('The connection is in error or revoked: it needs connecting again'),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        const { feedId } = request.params;
        if (!isId(feedId)) throw notFound(`feed ${feedId}`);
        // A connection that needs a person (reconnecting, new credentials) would hold the run forever.
        const { rows: held } = await pool.query<{ id: string; status: string; error_message: string | null }>(
          `SELECT c.id, c.status, c.error_message FROM feeds f JOIN connections c ON c.id = f.connection_id
            WHERE f.org_id = $1 AND f.id = $2`,
          [org.id, feedId],
        );
        const connection = held[0];
        if (connection && (connection.status === 'error' || connection.status === 'revoked')) {
          throw new ProblemError(
            409,
            'conflict',
            `connection ${connection.id} is ${connection.status}${
              connection.error_message ? ` (${connection.error_message})` : ''
            }: its feeds sync once it is connected again`,
          );
        }
        let requested = await requestSync(pool, org.id, feedId);
        // Null also when the open sync ended between its insert and its look-up: once more, then.
        if (!requested && (await feedExists(pool, org.id, feedId))) {
          requested = await requestSync(pool, org.id, feedId);
        }
        if (!requested) throw notFound(`feed ${feedId}`);
        return reply
          .code(202)
          .send({ run: await currentRun(pool, org.id, requested.id), created: requested.created });
      },
    );

    app.get(
      '/api/:org/runs',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listRuns',
          summary: "The org's runs, newest first, a page at a time",
          description:
            'Sync, action, watcher and auth runs, newest first; filtered by feed, connection, status or type.',
          params: orgParams,
          querystring: pageQuerySchema.extend({
            feedId: recordIdFilter.optional(),
            connectionId: recordIdFilter.optional(),
            status: z.enum(RUN_STATUSES).optional(),
            runType: runSchema.shape.runType.optional(),
          }),
          response: {
            200: z.object({ runs: z.array(runRecordSchema), nextCursor: z.string().nullable() }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { limit, cursor, ...filters } = request.query;
        // One row past the page says whether another page exists, so the last page has no cursor.
        const rows = await listRuns(pool, org.id, filters, cursorOf(cursor), limit + 1);
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        return {
          runs: page.map(toRunRecord),
          nextCursor: rows.length > limit && last ? encodeCursor(last.cursor_micros, last.id) : null,
        };
      },
    );

    app.get(
      '/api/:org/runs/:runId',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'getRun',
          summary: 'One run',
          description: 'The run with its status, what it collected, and its error when it failed.',
          params: runParams,
          response: { 200: z.object({ run: runRecordSchema }), ...problemResponses },
        },
      },
      async (request) => ({ run: await currentRun(pool, orgOf(request).id, request.params.runId) }),
    );

    app.get(
      '/api/:org/runs/:runId/logs',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listRunLogs',
          summary: "A run's log lines, oldest first, after a sequence number",
          description:
            'To follow a run, ask again with `after` set to the `nextAfter` of the previous answer. Lines are ' +
            `numbered from 1; only the latest ${RUN_LOG_LINES} are kept, so a gap in \`seq\` is lines let go. Once ` +
            '`runStatus` has ended and `lines` is empty, no more will come.',
          params: runParams,
          querystring: z.object({
            after: z.coerce
              .number()
              .int()
              .min(0)
              .max(2_147_483_647)
              .default(0)
              .describe('the last `seq` already read'),
            limit: z.coerce.number().int().min(1).max(1000).default(200),
          }),
          response: {
            200: z.object({
              lines: z.array(
                z.object({
                  seq: countSchema,
                  level: z.enum(['debug', 'info', 'warn', 'error']),
                  time: z.string(),
                  msg: z.string(),
                  fields: object.nullable(),
                }),
              ),
              nextAfter: countSchema.describe('the `after` of the next request'),
              runStatus: z.enum(RUN_STATUSES).describe('the run’s status before these lines were read'),
            }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { runId } = request.params;
        const { after, limit } = request.query;
        // The status is read first: once it says ended, every line the run wrote is already there.
        const run = await runRecordById(pool, org.id, runId);
        if (!run) throw notFound(`run ${runId}`);
        const { rows } = await pool.query<{
          seq: number;
          level: 'debug' | 'info' | 'warn' | 'error';
          time: Date;
          msg: string;
          fields: Record<string, unknown> | null;
        }>(
          'SELECT seq, level, time, msg, fields FROM run_logs WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
          [runId, after, limit],
        );
        return {
          lines: rows.map((line) => ({ ...line, time: iso(line.time) })),
          nextAfter: rows.at(-1)?.seq ?? after,
          runStatus: run.status,
        };
      },
    );

    app.post(
      '/api/:org/runs/:runId/cancel',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'cancelRun',
          summary: 'Stop a pending or running run',
          description:
            'The run is `cancelled` at once and its worker stops it; a cancelled sync keeps what it committed ' +
            'before, and its feed syncs again at its usual interval.',
          params: runParams,
          body: noBody,
          response: {
            200: z.object({ run: runRecordSchema }),
            409: problemResponse('The run has ended already (completed, failed, timed out or cancelled)'),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { runId } = request.params;
        const outcome = isId(runId) ? await cancelRun(pool, org.id, runId, who(request)) : null;
        if (!outcome) throw notFound(`run ${runId}`);
        if (!OPEN.has(outcome.before)) {
          throw new ProblemError(
            409,
            'conflict',
            `run ${runId} has ended already: its status is ${outcome.before}`,
          );
        }
        return { run: await currentRun(pool, org.id, runId) };
      },
    );

    for (const [verb, decision] of [
      ['approve', 'approved'],
      ['reject', 'rejected'],
    ] as const) {
      app.post(
        `/api/:org/runs/:runId/${verb}`,
        {
          config: { auth: { scope: 'write', org: true } },
          schema: {
            tags,
            operationId: `${verb}Run`,
            summary:
              decision === 'approved'
                ? 'Approve an action run that waits for approval; a worker then runs it'
                : 'Reject an action run that waits for approval; it never runs (status `cancelled`)',
            description:
              decision === 'approved'
                ? 'The action run that waits for approval is queued, and a worker runs it. A run that is not waiting for approval answers 409.'
                : 'The action run that waits for approval is cancelled and never runs. A run that is not waiting for approval answers 409.',
            params: runParams,
            body: noBody,
            response: {
              200: z.object({ run: runRecordSchema }),
              409: problemResponse(
                'The run is not waiting for approval (decided already, or never needed it)',
              ),
              ...problemResponses,
            },
          },
        },
        async (request) => {
          const org = orgOf(request);
          const { runId } = request.params;
          const outcome = isId(runId) ? await decideRun(pool, org.id, runId, decision, who(request)) : null;
          if (!outcome) throw notFound(`run ${runId}`);
          const run = await currentRun(pool, org.id, runId);
          // decideRun answers the same for "rejected now" and "cancelled while awaiting approval":
          // the run's own approvalStatus tells them apart.
          if (outcome.before !== 'pending' || run.approvalStatus !== decision) {
            throw new ProblemError(
              409,
              'conflict',
              `run ${runId} is not waiting for approval: its approvalStatus is ${run.approvalStatus} and its status ${run.status}`,
            );
          }
          return { run };
        },
      );
    }
  };
}

async function feedExists(pool: Pool, orgId: string, feedId: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM feeds WHERE org_id = $1 AND id = $2', [orgId, feedId]);
  return rowCount === 1;
}
