import { idSchema, platformPutSchema, platformSchema, stablePlatformId } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { orgParams, problemResponse, problemResponses, sendJsonText } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { refuseReservedReferences } from '../secrets/reserved.js';
import type { SecretResolver } from '../secrets/resolve.js';
import { platformAnswerContext } from './model.js';
import { listPlatformsJson, putPlatform } from './queries.js';

const tags = ['platforms'];
const agentParams = orgParams.extend({ id: idSchema.describe('agentId') });

/** What the routes of this file need from the server that mounts them. */
export interface PlatformRouteOptions {
  pool: Pool;
  /** The one way the server resolves a secret reference for an org (DESIGN.md section 6). */
  secrets: SecretResolver;
  /** Mount prefix such as `/svc`, or `''`. */
  basePath: string;
  /** Absolute origin that clients reach the server at, for webhook URLs. */
  publicUrl?: string;
}

export function platformRoutes(options: PlatformRouteOptions) {
  return async (app: App) => {
    app.get(
      '/api/:org/agents/:id/platforms',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listPlatforms',
          summary:
            'The chat platforms of an agent, each with the secret references this server cannot resolve',
          description:
            "The agent's chat platforms with their config as written, and the secret references that this server cannot resolve yet.",
          params: agentParams,
          response: { 200: z.object({ platforms: z.array(platformSchema) }), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const org = orgOf(request);
        const platforms = await listPlatformsJson(
          options.pool,
          org.id,
          id,
          await platformAnswerContext(options, org),
        );
        if (platforms === null) throw notFound(`agent "${id}"`);
        return sendJsonText(reply, `{"platforms":${platforms}}`);
      },
    );

    app.put(
      '/api/:org/agents/:id/platforms/by-stable-id/:stableId',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'upsertPlatform',
          summary: 'Create or update a platform by its stable ID; says whether the live worker restarts',
          description:
            'Creates or updates the platform that this stable ID names. The answer says whether its live worker restarts to take the change.',
          params: agentParams.extend({ stableId: z.string().max(200) }),
          body: platformPutSchema,
          response: {
            200: z.object({
              result: z.enum(['updated', 'unchanged']),
              platform: platformSchema,
              restartsWorker: z.boolean(),
            }),
            201: z.object({
              result: z.literal('created'),
              platform: platformSchema,
              restartsWorker: z.boolean(),
            }),
            409: problemResponse('The stable ID belongs to another agent or org, or names are missing'),
            422: problemResponse(
              'The stable ID does not match the body, or a reference names a reserved variable',
            ),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const { id, stableId } = request.params;
        const { type, name, config } = request.body;
        const expected = stablePlatformId(id, type, name);
        if (expected !== stableId) {
          throw new ProblemError(
            422,
            'stable_id_mismatch',
            `agent "${id}", type "${type}"${name ? ` and name "${name}"` : ''} make the stable ID "${expected}", not "${stableId}"`,
            [{ path: '/params/stableId', message: `expected "${expected}"` }],
          );
        }
        // The name too: svc.toml may write a reference in any value of a platform (the spec's rule).
        refuseReservedReferences({ name, config }, '/body');
        const org = orgOf(request);
        const outcome = await putPlatform(
          options.pool,
          { orgId: org.id, agentId: id, stableId },
          { type, name, config },
          await platformAnswerContext(options, org),
        );
        if (outcome === 'agent_missing') throw notFound(`agent "${id}"`);
        const body = {
          result: outcome.result,
          platform: outcome.platform,
          restartsWorker: outcome.restartsWorker,
        };
        return reply.code(outcome.result === 'created' ? 201 : 200).send(body as never);
      },
    );

    app.delete(
      '/api/:org/agents/:id/platforms/by-stable-id/:stableId',
      {
        config: { auth: { scope: 'admin', org: true } },
        schema: {
          tags,
          operationId: 'deletePlatform',
          summary: 'Delete a platform (admin; svc apply never calls this, it reports drift)',
          description:
            'Removes the platform and stops its worker. `svc apply` never deletes: it reports a platform that the project no longer names as drift.',
          params: agentParams.extend({ stableId: z.string().max(200) }),
          response: {
            200: z.object({ result: z.literal('deleted'), stableId: z.string() }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { id, stableId } = request.params;
        const { rowCount } = await options.pool.query(
          'DELETE FROM platforms WHERE org_id = $1 AND agent_id = $2 AND stable_id = $3',
          [orgOf(request).id, id, stableId],
        );
        if (rowCount === 0) throw notFound(`platform "${stableId}" of agent "${id}"`);
        return { result: 'deleted' as const, stableId };
      },
    );
  };
}
