import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { orgParams, problemResponse, problemResponses, recordIdParam } from '../http/common.js';
import type { App } from '../http/types.js';
import { createActionRun, runSchema, toRun } from './actions.js';

/** What the routes of this file need from the server that mounts them. */
export interface ActionRouteOptions {
  pool: Pool;
}

export function actionRoutes(options: ActionRouteOptions) {
  return async (app: App) => {
    app.post(
      '/api/:org/connections/:connectionId/actions/:actionKey',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags: ['runs'],
          operationId: 'runAction',
          summary: 'Run one action of a connection',
          description:
            "`input` is checked against the action's inputSchema. The run is queued and answered at once " +
            '(202): an action that `requiresApproval` waits in `approvalStatus: pending` until ' +
            '`POST /api/:org/runs/:id/approve` (or `/reject`, and it never runs); others run as soon as a ' +
            'worker is free. Follow it with `GET /api/:org/runs/:id`: `actionOutput` and `errorMessage` ' +
            "hold the connector's ActionResult.",
          params: orgParams.extend({
            connectionId: recordIdParam,
            actionKey: z.string().min(1).max(200),
          }),
          body: z.strictObject({
            input: z.record(z.string(), z.unknown()).optional().describe('default: {}'),
          }),
          response: {
            ...problemResponses,
            202: z.object({ run: runSchema }),
            404: problemResponse('No such connection in this org, or its connector has no such action'),
            409: problemResponse('The connection is not active (paused, in error or revoked)'),
            422: problemResponse("The input is not what the action's inputSchema takes"),
          },
        },
      },
      async (request, reply) => {
        const run = await createActionRun(options.pool, {
          orgId: orgOf(request).id,
          connectionId: request.params.connectionId,
          actionKey: request.params.actionKey,
          input: request.body.input ?? {},
          createdBy: request.caller?.token?.name ?? 'admin',
        });
        return reply.code(202).send({ run: toRun(run) });
      },
    );
  };
}
