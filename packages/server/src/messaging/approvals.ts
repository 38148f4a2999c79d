import { approvalDecisionSchema, approvalSchema, idSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { iso, isoOrNull, problemResponse, problemResponses } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { type ApprovalRow, decide } from '../turns/approvals.js';
import { MESSAGES_AUTH, orgOfMessagesCaller } from './answers.js';
import { privateViewOf } from './visibility.js';

const toApproval = (row: ApprovalRow) => ({
  id: row.id,
  messageId: row.message_id,
  toolCallId: row.tool_call_id,
  tool: row.tool,
  input: row.input,
  status: row.status,
  reason: row.reason,
  createdAt: iso(row.created_at),
  expiresAt: iso(row.expires_at),
  decidedAt: isoOrNull(row.decided_at),
});

/** What the routes of this file need from the server that mounts them. */
export interface ApprovalRouteOptions {
  pool: Pool;
}

/** Decisions on tool calls that paused a turn, taken by any replica. */
export function approvalRoutes(options: ApprovalRouteOptions) {
  return async (app: App) => {
    app.post(
      '/api/v1/agents/:agentId/approvals/:approvalId',
      {
        config: MESSAGES_AUTH,
        schema: {
          tags: ['approvals'],
          operationId: 'decideApproval',
          summary:
            'Approve or reject one tool call that paused a turn; the turn resumes once all are decided',
          description:
            'An approval belongs to one tool call and is decided once. Undecided, it expires as rejected ' +
            'after `SVC_APPROVAL_TTL` (default 24 h). A rejection is reported to the model as refused, with the reason. ' +
            "A token without the `read` scope decides only in shared conversations and its own private ones (another token's: 404).",
          params: z.object({ agentId: idSchema, approvalId: z.uuid() }),
          body: approvalDecisionSchema,
          response: {
            200: z.object({ approval: approvalSchema }),
            409: problemResponse('The call was decided already, or expired'),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { agentId, approvalId } = request.params;
        const org = await orgOfMessagesCaller(options.pool, request);
        const outcome = await decide(
          options.pool,
          { orgId: org.id, agentId, approvalId, view: privateViewOf(request.caller) },
          { approve: request.body.decision === 'approve', reason: request.body.reason ?? null },
        );
        if (!outcome) throw notFound(`approval "${approvalId}"`);
        if (outcome.already && outcome.approval.status === 'expired') {
          throw new ProblemError(
            409,
            'conflict',
            `this call expired at ${iso(outcome.approval.expires_at)} (SVC_APPROVAL_TTL): it was refused and can no longer be decided`,
          );
        }
        if (outcome.already) {
          throw new ProblemError(
            409,
            'conflict',
            `this call was ${outcome.approval.status} already${outcome.approval.decided_at ? ` at ${iso(outcome.approval.decided_at)}` : ''}; a decision is taken once`,
          );
        }
        return { approval: toApproval(outcome.approval) };
      },
    );
  };
}
