import { recordIdSchema } from '@svc/core';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { transaction } from '../db/transaction.js';
import { orgParams, problemResponse, problemResponses, recordIdParam } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import type { ConnectionRouteOptions } from './routes.js';

/**
 * `DELETE /api/:org/connections/:connectionId` (admin): the connection, its feeds (their schedule
 * and checkpoints), its finished runs and OAuth attempts go; its events never do.
 *
 * `events.connection_id` and `events.feed_id` are `ON DELETE CASCADE` (migration 014), so deleting
 * a connection that collected anything would delete what it collected. Detaching the events instead
 * (setting those columns to NULL) would make them look like events no connector wrote (watchers',
 * agents') and can collide on `events_own_origin`. So a connection with events is refused with a
 * 409 that says to revoke it (it stops, forgets its credentials, keeps its events); one without
 * events, such as one made by mistake, is deleted.
 */
export function deleteConnectionRoute(app: App, options: ConnectionRouteOptions): void {
  app.delete(
    '/api/:org/connections/:connectionId',
    {
      config: { auth: { scope: 'admin', org: true } },
      schema: {
        tags: ['connections'],
        operationId: 'deleteConnection',
        summary: 'Delete a connection that holds no events, with its feeds (admin)',
        description:
          'Its feeds (schedule, config, checkpoint), finished runs and OAuth attempts are deleted with it. ' +
          'A connection whose syncs collected events is refused (409): deleting it would delete its events. ' +
          'Revoke it instead (`POST /api/{org}/connections/{connectionId}/revoke`): it stops and forgets its ' +
          'credentials, and its events stay. A connection with a pending or running run is refused too (409): ' +
          'cancel the run, or wait for it.',
        params: orgParams.extend({ connectionId: recordIdParam }),
        response: {
          200: z.object({ result: z.literal('deleted'), connectionId: recordIdSchema }),
          409: problemResponse('The connection holds events, or a run of it is pending or running'),
          ...problemResponses,
        },
      },
    },
    async (request) => {
      const org = orgOf(request);
      const { connectionId } = request.params;
      if (!/^\d{1,18}$/.test(connectionId)) throw notFound(`connection ${connectionId}`);
      return transaction(options.pool, async (client) => {
        // Locked first: a sync writing an event needs a key-share lock on this row (the foreign
        // key), so no event can arrive between the count below and the delete.
        const { rows } = await client.query(
          'SELECT 1 FROM connections WHERE org_id = $1 AND id = $2 FOR UPDATE',
          [org.id, connectionId],
        );
        if (rows.length === 0) throw notFound(`connection ${connectionId}`);
        const { rows: counts } = await client.query<{ events: string; open: string }>(
          `SELECT (SELECT count(*) FROM events WHERE connection_id = $1) AS events,
                  (SELECT count(*) FROM runs WHERE connection_id = $1 AND status IN ('pending', 'running')) AS open`,
          [connectionId],
        );
        const { events, open } = counts[0] as { events: string; open: string };
        if (Number(events) > 0) {
          throw new ProblemError(
            409,
            'conflict',
            `connection ${connectionId} holds ${events} event${events === '1' ? '' : 's'}; deleting it would delete them: ` +
              'revoke it instead (it stops and forgets its credentials, and its events stay)',
          );
        }
        if (Number(open) > 0) {
          throw new ProblemError(
            409,
            'conflict',
            `connection ${connectionId} has ${open} pending or running run${open === '1' ? '' : 's'}: cancel ${open === '1' ? 'it' : 'them'} or wait, then delete`,
          );
        }
        await client.query('DELETE FROM connections WHERE id = $1', [connectionId]);
        return { result: 'deleted' as const, connectionId: Number(connectionId) };
      });
    },
  );
}
