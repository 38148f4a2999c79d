import { applyManifestPutSchema, applyManifestSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { orgParams, problemResponses } from '../http/common.js';
import type { App } from '../http/types.js';
import { getManifest, putManifest } from './queries.js';

const tags = ['apply'];

/** What the routes of this file need from the server that mounts them. */
export interface ApplyRouteOptions {
  pool: Pool;
}

/**
 * The apply manifest: what the latest `svc apply` to the org declared (ids only), which tells the
 * resources apply manages from drift. `svc apply` PUTs it after every successful apply.
 */
export function applyRoutes(options: ApplyRouteOptions) {
  return async (app: App) => {
    app.put(
      '/api/:org/apply-manifest',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'putApplyManifest',
          summary: "Record what an apply declared: the ids of the project's resources (svc apply sends it)",
          description:
            "Replaces the org's manifest: one per org, so projects applying to one org overwrite each other's " +
            '(the last apply wins). Lists are stored sorted; a repeat of the same declaration answers ' +
            '`unchanged` and writes nothing, `appliedAt` included.',
          params: orgParams,
          body: applyManifestPutSchema,
          response: {
            200: z.object({ result: z.enum(['updated', 'unchanged']), manifest: applyManifestSchema }),
            201: z.object({ result: z.literal('created'), manifest: applyManifestSchema }),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const answer = await putManifest(options.pool, orgOf(request).id, request.body);
        reply.code(answer.result === 'created' ? 201 : 200);
        return answer;
      },
    );

    app.get(
      '/api/:org/apply-manifest',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'getApplyManifest',
          summary: 'What the latest svc apply to the org declared; null when none was ever recorded',
          description:
            'The manifest that the latest `svc apply` recorded for the org, for `svc plan` to find what the project stopped naming; `null` when none was recorded.',
          params: orgParams,
          response: { 200: z.object({ manifest: applyManifestSchema.nullable() }), ...problemResponses },
        },
      },
      async (request) => ({ manifest: await getManifest(options.pool, orgOf(request).id) }),
    );
  };
}
