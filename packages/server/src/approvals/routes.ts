import {
  APPROVAL_STATUSES,
  type ApprovalItem,
  approvalListSchema,
  idSchema,
  pageQuerySchema,
} from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { iso, isoOrNull, orgParams, problemResponses } from '../http/common.js';
import type { App, OrgRef } from '../http/types.js';
import { encodeInboxCursor, type InboxRow, inboxCursorOf, listInbox } from './queries.js';

/**
 * An inbox row as the API answers it, with where to post its decision. Paths are relative to the
 * API base: the console, like any client, adds SVC_BASE_PATH to every route it calls.
 */
function toItem(row: InboxRow, org: OrgRef): ApprovalItem {
  if (row.kind === 'tool_call') {
    const agentId = row.agent_id as string;
    return {
      kind: 'tool_call',
      id: row.id,
      agentId,
      conversationId: row.conversation_id as string,
      messageId: row.message_id as string,
      tool: row.tool as string,
      input: row.input,
      status: row.status,
      reason: row.reason,
      createdAt: iso(row.created_at),
      expiresAt: iso(row.expires_at as Date),
      decidedAt: isoOrNull(row.decided_at),
      decide: { method: 'POST', path: `/api/v1/agents/${agentId}/approvals/${row.id}`, scope: 'messages' },
    };
  }
  const runs = `/api/${org.slug}/runs/${row.id}`;
  return {
    kind: 'action_run',
    id: Number(row.id),
    connectionId: Number(row.connection_id),
    connectorKey: row.connector_key as string,
    actionKey: row.action_key as string,
    input: row.input as Record<string, unknown>,
    status: row.status,
    createdAt: iso(row.created_at),
    decidedAt: isoOrNull(row.decided_at),
    decide: { method: 'POST', approvePath: `${runs}/approve`, rejectPath: `${runs}/reject`, scope: 'write' },
  };
}

/** What the routes of this file need from the server that mounts them. */
export interface ApprovalInboxRouteOptions {
  pool: Pool;
}

/**
 * The approvals inbox (DESIGN.md section 12): what waits for a person across the org, in one list.
 * Decisions are taken where they always were; each item says where.
 */
export function approvalInboxRoutes(options: ApprovalInboxRouteOptions) {
  return async (app: App) => {
    app.get(
      '/api/:org/approvals',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags: ['approvals'],
          operationId: 'listApprovals',
          summary:
            "The org's tool calls and action runs that wait for approval (or were decided), newest first",
          description:
            'Two kinds in one list, told apart by `kind`. `tool_call`: a call of an agent that paused its turn ' +
            '(decided with `POST /api/v1/agents/{agentId}/approvals/{approvalId}` `{decision, reason?}`, which ' +
            'takes the `messages` scope; that route has no org in its path, so the admin password decides there ' +
            'for org `default` only). One undecided past `expiresAt` is `expired` at once, before the reaper ' +
            'records it. `action_run`: a connector action run asked for through the API that `requiresApproval` ' +
            '(decided with `POST /api/{org}/runs/{runId}/approve` or `/reject`, `write` scope); a run an agent ' +
            "started is listed as its tool call only. Each item's `decide` names the route to post to, relative " +
            'to the API base: a server mounted under `SVC_BASE_PATH` takes that prefix before it. ' +
            "`agentId` lists only that agent's tool calls (action runs belong to no agent).",
          params: orgParams,
          querystring: pageQuerySchema.extend({
            status: z
              .enum([...APPROVAL_STATUSES, 'all'])
              .default('pending')
              .describe('`pending` (default): what waits for a decision; `all`: every status'),
            agentId: idSchema.optional().describe("only this agent's tool calls"),
          }),
          response: { 200: approvalListSchema, ...problemResponses },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { limit, cursor, status, agentId } = request.query;
        // One row past the page says whether another page exists, so the last page has no cursor.
        const rows = await listInbox(
          options.pool,
          org.id,
          { status: status === 'all' ? null : status, agentId: agentId ?? null },
          inboxCursorOf(cursor),
          limit + 1,
        );
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        return {
          approvals: page.map((row) => toItem(row, org)),
          nextCursor:
            rows.length > limit && last
              ? encodeInboxCursor({ micros: last.cursor_micros, key: last.cursor_key })
              : null,
        };
      },
    );
  };
}
