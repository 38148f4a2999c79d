import { type AgentConfigPatch, agentConfigPatchSchema, idSchema } from '@svc/core';
import { z } from 'zod';
import type { DeploymentEgress } from '../egress/deployment.js';
import { checkSettingTargets } from '../egress/setting-targets.js';
import { orgParams, problemResponse, problemResponses } from '../http/common.js';
import type { App } from '../http/types.js';
import { refuseReservedReferences } from '../secrets/reserved.js';

/**
 * The refusals of a settings PATCH that depend on this server (its reserved names, SVC_EGRESS_ALLOW,
 * SVC_MCP_COMMANDS): one function, so that the check route answers exactly what the write would.
 */
export function refuseSettings(patch: AgentConfigPatch, egress: DeploymentEgress): void {
  // Of the settings, only MCP servers hold references (in headers, env and oauth); the whole of
  // each server is checked, so that no new field can carry one past this.
  refuseReservedReferences(patch.mcpServers, '/body/mcpServers');
  checkSettingTargets(patch, egress);
}

/**
 * `POST /api/:org/agents/:id/config/check`: what PATCH .../config would refuse, without writing.
 * A client cannot know the server's policy, so `svc apply` asks before its prompt rather than
 * failing half-way through. Same scope as the write, so that it tells a caller nothing the write
 * would not. The agent need not exist: a plan checks the agents it is about to create.
 */
export function settingsCheckRoute(app: App, egress: DeploymentEgress): void {
  app.post(
    '/api/:org/agents/:id/config/check',
    {
      config: { auth: { scope: 'write', org: true } },
      schema: {
        tags: ['agents'],
        operationId: 'checkAgentSettings',
        summary: 'Check settings as PATCH .../config would, writing nothing',
        description:
          'Answers what `PATCH /api/:org/agents/:id/config` with the same body would refuse, and changes ' +
          'nothing: 400 `validation_failed` for a value no server takes, 422 `secret_reserved` or ' +
          '`setting_refused` (with every refused value in `errors[]`) for what this deployment does not ' +
          'allow (SVC_EGRESS_ALLOW, SVC_MCP_COMMANDS). The agent need not exist yet. `svc apply` calls ' +
          'it for every agent whose settings change, before it asks to apply.',
        params: orgParams.extend({ id: idSchema.describe('agentId') }),
        body: agentConfigPatchSchema,
        response: {
          200: z.object({
            agentId: z.string(),
            result: z.literal('accepted').describe('the PATCH would not refuse these settings'),
          }),
          422: problemResponse(
            'A reference names a variable reserved for the server, or a target the deployment does not allow',
          ),
          ...problemResponses,
        },
      },
    },
    async (request) => {
      refuseSettings(request.body, egress);
      return { agentId: request.params.id, result: 'accepted' as const };
    },
  );
}
