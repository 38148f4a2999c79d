import {
  type AgentConfig,
  agentConfigPatchSchema,
  agentConfigSchema,
  agentSchema,
  agentUpsertSchema,
  idSchema,
  mutationResultSchema,
  SETTING_KEYS,
} from '@svc/core';
import type { FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { upsert } from '../db/upsert.js';
import type { DeploymentEgress } from '../egress/deployment.js';
import { iso, orgParams, problemResponse, problemResponses, sendJsonText } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { platformAnswerContext } from '../platforms/model.js';
import { refuseReservedReferences } from '../secrets/reserved.js';
import type { SecretResolver } from '../secrets/resolve.js';
import { fullConfig } from './config.js';
import { type AgentRow, listAgentsJson, patchConfig, UPSERT_AGENT } from './queries.js';
import { refuseSettings, settingsCheckRoute } from './settings-check.js';

const tags = ['agents'];
const agentParams = orgParams.extend({ id: idSchema.describe('agentId') });
const includeQuery = z
  .strictObject({
    include: z
      .array(z.enum(['config', 'platforms']))
      .optional()
      .describe(
        'what to add to each agent: `include=config&include=platforms`, or `include=config,platforms`',
      ),
  })
  .meta({ style: 'form', explode: true });

/**
 * The comma form (`include=config,platforms`, what the CLI sends) and a single value become the
 * list that the schema checks; the repeated form already arrives as one.
 */
async function includeAsList(request: FastifyRequest): Promise<void> {
  const query = request.query as { include?: unknown };
  if (query.include !== undefined) {
    query.include = [query.include].flat().flatMap((value) => String(value).split(','));
  }
}
const configAnswer = z.object({ agentId: z.string(), config: agentConfigSchema, updatedAt: z.string() });

/** What the routes of this file need from the server that mounts them. */
export interface AgentRouteOptions {
  pool: Pool;
  /** What orgs' settings may reach and run (SVC_EGRESS_ALLOW, SVC_MCP_COMMANDS). */
  egress: DeploymentEgress;
  /** The one way the server resolves a secret reference for an org (DESIGN.md section 6). */
  secrets: SecretResolver;
  /** Mount prefix such as `/svc`, or `''`. */
  basePath: string;
  /** Absolute origin that clients reach the server at, for webhook URLs. */
  publicUrl?: string;
}

export function agentRoutes(options: AgentRouteOptions) {
  const includes = (include: string[] | undefined) => {
    const parts = new Set(include);
    return { config: parts.has('config'), platforms: parts.has('platforms') };
  };

  return async (app: App) => {
    app.get(
      '/api/:org/agents',
      {
        config: { auth: { scope: 'read', org: true } },
        preValidation: includeAsList,
        schema: {
          tags,
          operationId: 'listAgents',
          summary: 'Every agent of the org, optionally with settings and platforms, in one answer',
          description:
            "The org's agents; `include=config` adds their settings and `include=platforms` their chat platforms, so that one call shows everything `svc plan` compares.",
          params: orgParams,
          querystring: includeQuery,
          response: { 200: z.object({ agents: z.array(agentSchema) }), ...problemResponses },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        const agents = await listAgentsJson(
          options.pool,
          org.id,
          includes(request.query.include),
          await platformAnswerContext(options, org),
        );
        // Already JSON, built by PostgreSQL: sent as it is.
        return sendJsonText(reply, `{"agents":[${agents.join(',')}]}`);
      },
    );

    app.get(
      '/api/:org/agents/:id',
      {
        config: { auth: { scope: 'read', org: true } },
        preValidation: includeAsList,
        schema: {
          tags,
          operationId: 'getAgent',
          summary: 'One agent, optionally with settings and platforms',
          description:
            'The agent; `include=config` adds its settings and `include=platforms` its chat platforms.',
          params: agentParams,
          querystring: includeQuery,
          response: { 200: z.object({ agent: agentSchema }), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const org = orgOf(request);
        const [agent] = await listAgentsJson(
          options.pool,
          org.id,
          includes(request.query.include),
          await platformAnswerContext(options, org),
          id,
        );
        if (!agent) throw notFound(`agent "${id}"`);
        return sendJsonText(reply, `{"agent":${agent}}`);
      },
    );

    app.post(
      '/api/:org/agents',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'upsertAgent',
          summary: 'Create or update an agent; a repeat answers unchanged and writes nothing',
          description:
            'Creates the agent (201) or updates it (200). Sending what is already stored answers `unchanged` and writes nothing.',
          params: orgParams,
          body: agentUpsertSchema,
          response: {
            200: z.object({ result: z.enum(['updated', 'unchanged']), agent: agentSchema }),
            201: z.object({ result: z.literal('created'), agent: agentSchema }),
            422: problemResponse('A provider references a variable reserved for the server'),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const { agentId, name, description, providers } = request.body;
        refuseReservedReferences(providers, '/body/providers');
        const org = orgOf(request);
        const row = await upsert<AgentRow>(options.pool, UPSERT_AGENT, [
          org.id,
          agentId,
          name,
          description ?? '',
          JSON.stringify(providers ?? []),
        ]);
        // The answer is built as listings build it, so that provider status has one definition.
        const [agent] = await listAgentsJson(
          options.pool,
          org.id,
          { config: false, platforms: false },
          await platformAnswerContext(options, org),
          agentId,
        );
        if (!agent) throw notFound(`agent "${agentId}"`); // deleted between the two statements
        reply.code(row.result === 'created' ? 201 : 200);
        return sendJsonText(reply, `{"result":"${row.result}","agent":${agent}}`);
      },
    );

    app.delete(
      '/api/:org/agents/:id',
      {
        config: { auth: { scope: 'admin', org: true } },
        schema: {
          tags,
          operationId: 'deleteAgent',
          summary: 'Delete an agent with its settings and platforms (admin; svc apply never calls this)',
          description:
            'Removes the agent, its settings and its platforms. `svc apply` never deletes: it reports an agent that the project no longer names as drift.',
          params: agentParams,
          response: {
            200: z.object({ result: z.literal('deleted'), agentId: z.string() }),
            409: problemResponse('A watcher still names this agent'),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { id } = request.params;
        const { rowCount } = await options.pool
          .query('DELETE FROM agents WHERE org_id = $1 AND agent_id = $2', [orgOf(request).id, id])
          .catch((error: { code?: string }) => {
            // ON DELETE RESTRICT raises restrict_violation (23001).
            if (error.code === '23001' || error.code === '23503') {
              throw new ProblemError(
                409,
                'conflict',
                `watchers still name agent "${id}"; delete or re-point them first`,
              );
            }
            throw error;
          });
        if (rowCount === 0) throw notFound(`agent "${id}"`);
        return { result: 'deleted' as const, agentId: id };
      },
    );

    app.get(
      '/api/:org/agents/:id/config',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'getAgentSettings',
          summary: 'The 13 settings of an agent, null where unset',
          description:
            'Every setting of the agent by name, `null` for one that is not set. Secret references are shown as written, never resolved.',
          params: agentParams,
          response: { 200: configAnswer, ...problemResponses },
        },
      },
      async (request) => {
        const { id } = request.params;
        const { rows } = await options.pool.query<{ config: Partial<AgentConfig>; config_updated_at: Date }>(
          'SELECT config, config_updated_at FROM agents WHERE org_id = $1 AND agent_id = $2',
          [orgOf(request).id, id],
        );
        const row = rows[0];
        if (!row) throw notFound(`agent "${id}"`);
        return { agentId: id, config: fullConfig(row.config), updatedAt: iso(row.config_updated_at) };
      },
    );

    app.patch(
      '/api/:org/agents/:id/config',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'patchAgentSettings',
          summary: 'Replace (value), clear (null) or keep (absent) each setting',
          description:
            'Each named setting is replaced by its value or cleared by `null`; a setting left out is kept. Answers which settings changed.',
          params: agentParams,
          body: agentConfigPatchSchema,
          response: {
            200: configAnswer.extend({
              result: mutationResultSchema.exclude(['created']),
              changed: z
                .array(z.enum(SETTING_KEYS as [string, ...string[]]))
                .describe('settings this call changed'),
            }),
            422: problemResponse(
              'A reference names a variable reserved for the server, or a target the deployment does not allow',
            ),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { id } = request.params;
        refuseSettings(request.body, options.egress);
        const outcome = await patchConfig(options.pool, orgOf(request).id, id, request.body);
        if (!outcome) throw notFound(`agent "${id}"`);
        const before = fullConfig(outcome.before);
        const after = fullConfig(outcome.after);
        const changed = SETTING_KEYS.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
        return {
          result: outcome.changed ? ('updated' as const) : ('unchanged' as const),
          agentId: id,
          config: after,
          changed,
          updatedAt: iso(outcome.updatedAt),
        };
      },
    );

    settingsCheckRoute(app, options.egress);
  };
}
