/**
 * `svc approvals list|approve|reject`: the org's approvals inbox, tool calls of agents and connector
 * action runs in one list. Each item names where its decision is posted (`decide`), so the CLI
 * decides by looking the id up in the list rather than guessing the route from the id's shape.
 */

import { type Api, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import { short, table, when } from './table.js';

type Item =
  | {
      kind: 'tool_call';
      id: string;
      agentId: string;
      tool: string;
      input: unknown;
      status: string;
      reason: string | null;
      createdAt: string;
      expiresAt: string;
      decide: { path: string };
    }
  | {
      kind: 'action_run';
      id: number;
      connectorKey: string;
      actionKey: string;
      input: unknown;
      status: string;
      createdAt: string;
      decide: { approvePath: string; rejectPath: string };
    };

export const APPROVAL_FILTERS = ['pending', 'approved', 'rejected', 'expired', 'all'];

export interface ListFlags extends SessionFlags {
  status?: string;
  agent?: string;
  limit?: number;
  cursor?: string;
  json?: boolean;
}

async function page(api: Api, query: URLSearchParams) {
  return api.call<{ approvals: Item[]; nextCursor: string | null }>('GET', `/approvals?${query}`, undefined, {
    validation_failed: 'a --cursor comes from the previous page: "svc approvals list" prints the next one',
  });
}

export async function approvalsList(flags: ListFlags, io: RuntimeIo): Promise<void> {
  const query = new URLSearchParams({ status: flags.status ?? 'pending', limit: String(flags.limit ?? 50) });
  if (flags.agent) query.set('agentId', flags.agent);
  if (flags.cursor) query.set('cursor', flags.cursor);
  const api = await openApi(io, flags);
  const { approvals, nextCursor } = await page(api, query);
  if (flags.json) {
    io.out(JSON.stringify({ org: api.session.org, approvals, nextCursor }, null, 2));
    return;
  }
  if (approvals.length === 0) {
    const status = flags.status ?? 'pending';
    io.out(
      status === 'pending'
        ? `Nothing waits for approval in org ${api.session.org}.`
        : status === 'all'
          ? `No approvals in org ${api.session.org} yet.`
          : `Nothing ${status} in org ${api.session.org}.`,
    );
    return;
  }
  const rows = approvals.map((a) => [
    String(a.id),
    a.kind,
    a.kind === 'tool_call' ? `${a.agentId}: ${a.tool}` : `${a.connectorKey}.${a.actionKey}`,
    a.status,
    when(a.createdAt),
    short(JSON.stringify(a.input ?? null), 60),
  ]);
  for (const line of table(['ID', 'KIND', 'WHAT', 'STATUS', 'CREATED', 'INPUT'], rows)) io.out(line);
  if (nextCursor) io.err(`more: svc approvals list --cursor ${nextCursor}`);
}

export interface DecideFlags extends SessionFlags {
  reason?: string;
  /** The agent of a tool call: decided directly, without the inbox (which takes the read scope). */
  agent?: string;
  json?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A tool call of a known agent, decided where it lives: a `messages`-only token can. */
async function decideToolCall(
  api: Api,
  verb: 'approve' | 'reject',
  id: string,
  agentId: string,
  flags: DecideFlags,
  io: RuntimeIo,
): Promise<void> {
  const answer = await api.callRoot<{ approval: { tool: string } }>(
    'POST',
    `/api/v1/agents/${encodeURIComponent(agentId)}/approvals/${id}`,
    { decision: verb, ...(flags.reason ? { reason: flags.reason } : {}) },
    {
      not_found: `agent "${agentId}" has no approval ${id} this token may decide: "svc approvals list" shows them`,
      conflict: '"svc approvals list --status all" shows how it was decided',
    },
  );
  if (flags.json) {
    io.out(JSON.stringify(answer, null, 2));
    return;
  }
  const what = `tool call ${answer.approval.tool} of agent ${agentId}`;
  io.out(
    verb === 'approve'
      ? `approved ${what}: it runs now`
      : `rejected ${what}: the model is told it was refused`,
  );
}

/** The pending item with this id, read page by page through the inbox. */
async function find(api: Api, id: string): Promise<Item> {
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ status: 'all', limit: '200', ...(cursor ? { cursor } : {}) });
    const answer = await page(api, query);
    const item = answer.approvals.find((a) => String(a.id).toLowerCase() === id.toLowerCase());
    if (item) return item;
    cursor = answer.nextCursor;
  } while (cursor);
  throw new Error(`org ${api.session.org} has no approval "${id}": "svc approvals list" shows what waits`);
}

export async function approvalsDecide(
  verb: 'approve' | 'reject',
  id: string,
  flags: DecideFlags,
  io: RuntimeIo,
): Promise<void> {
  const api = await openApi(io, flags);
  if (flags.agent && UUID.test(id)) return decideToolCall(api, verb, id, flags.agent, flags, io);
  const item = await find(api, id);
  if (item.status !== 'pending') {
    throw new Error(`approval ${id} is ${item.status} already: it can be decided only once`);
  }
  const hints = { conflict: '"svc approvals list --status all" shows how it was decided' };
  let answer: unknown;
  if (item.kind === 'tool_call') {
    answer = await api.callRoot(
      'POST',
      item.decide.path,
      { decision: verb, ...(flags.reason ? { reason: flags.reason } : {}) },
      hints,
    );
  } else {
    // An action run's decision takes no reason: say so rather than drop it silently.
    if (flags.reason) io.err('an action run keeps no reason: the decision was sent without it');
    const path = verb === 'approve' ? item.decide.approvePath : item.decide.rejectPath;
    answer = await api.callRoot('POST', path, undefined, hints);
  }
  if (flags.json) {
    io.out(JSON.stringify(answer, null, 2));
    return;
  }
  const what =
    item.kind === 'tool_call'
      ? `tool call ${item.tool} of agent ${item.agentId}`
      : `action run ${item.id} (${item.connectorKey}.${item.actionKey})`;
  io.out(
    verb === 'approve'
      ? `approved ${what}: it runs now`
      : `rejected ${what}${item.kind === 'tool_call' ? ': the model is told it was refused' : ': it never runs'}`,
  );
}
