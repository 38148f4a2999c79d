/**
 * The approvals inbox: the org's tool calls that paused a turn (`approvals`) and its connector
 * action runs that wait for approval (`runs`), as one list newest first, a keyset page at a time.
 */
import type { Pool } from 'pg';
import { microsOf, timestampAt } from '../db/keyset.js';
import { ProblemError } from '../http/problem.js';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

/**
 * An item's place in the merged list: its time, then a key that orders the two kinds' ids as one
 * (`tool_call:<uuid>`, `action_run:<run id, 19 digits>`), compared bytewise (COLLATE "C"). A uuid's
 * text in C order is its own order, and the padding puts run ids in numeric order.
 */
const TOOL_CALL_KEY = `('tool_call:' || a.id::text)`;
const ACTION_RUN_KEY = `('action_run:' || lpad(r.id::text, 19, '0'))`;
const KEY = /^(tool_call:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|action_run:\d{19})$/;

/** The years a cursor may name, as db/keyset.ts bounds them: beyond, PostgreSQL has a range error. */
const FIRST_MICROS = -210_866_803_200_000_000n;
const LAST_MICROS = 253_402_300_800_000_000n;

export interface InboxCursor {
  micros: string;
  key: string;
}

/** Opaque to clients: the last item's microseconds since the epoch (exact, as db/keyset.ts) and key. */
export const encodeInboxCursor = (cursor: InboxCursor) =>
  Buffer.from(JSON.stringify([cursor.micros, cursor.key])).toString('base64url');

/** A cursor this API did not give out is the caller's mistake (400), never a 500. */
export function inboxCursorOf(raw: string | undefined): InboxCursor | null {
  if (raw === undefined) return null;
  try {
    const [micros, key] = JSON.parse(Buffer.from(raw, 'base64url').toString()) as [unknown, unknown];
    if (
      typeof micros === 'string' &&
      /^-?\d{1,18}$/.test(micros) &&
      BigInt(micros) >= FIRST_MICROS &&
      BigInt(micros) <= LAST_MICROS &&
      typeof key === 'string' &&
      KEY.test(key)
    ) {
      return { micros, key };
    }
  } catch {}
  throw new ProblemError(400, 'validation_failed', 'the cursor is not one this API gave out', [
    { path: '/querystring/cursor', message: "use the previous page's nextCursor" },
  ]);
}

/**
 * A tool call's status as the reaper will record it: an undecided call past `expires_at` is what
 * `expireApprovals` (turns/approvals.ts) takes as due, so it is `expired` here at once, not only
 * once a reaper ran.
 */
const TOOL_CALL_STATUS = `CASE WHEN a.status = 'pending' AND a.expires_at < now() THEN 'expired' ELSE a.status END`;

/**
 * An action run's approval in the same words: `pending` while it waits; a run cancelled while it
 * waited never runs, as a rejected one, and nobody can decide it any more (runs/queue.ts decideRun).
 */
const ACTION_RUN_STATUS = `CASE WHEN r.approval_status = 'pending' AND r.status <> 'pending' THEN 'rejected'
                                ELSE r.approval_status END`;
/** When: the decision's mark (migration 025), else the cancel's end. */
const ACTION_RUN_DECIDED = `CASE WHEN r.approval_status = 'pending' AND r.status <> 'pending' THEN r.completed_at
                                 ELSE r.approval_decided_at END`;

export interface InboxRow {
  kind: 'tool_call' | 'action_run';
  id: string;
  created_at: Date;
  status: ApprovalStatus;
  decided_at: Date | null;
  input: unknown;
  cursor_micros: string;
  cursor_key: string;
  // tool_call
  agent_id: string | null;
  conversation_id: string | null;
  message_id: string | null;
  tool: string | null;
  reason: string | null;
  expires_at: Date | null;
  // action_run
  connection_id: string | null;
  connector_key: string | null;
  action_key: string | null;
}

export interface InboxFilters {
  /** null: every status. */
  status: ApprovalStatus | null;
  /** Tool calls of this agent only; action runs belong to no agent, so none is listed with it. */
  agentId: string | null;
}

/**
 * One page of the org's inbox, newest first by (created_at, key), after `cursor`. Each kind reads
 * at most `limit` rows of its own index in that order (migration 025), and the two are merged:
 * the page is the first `limit` of both.
 */
export async function listInbox(
  pool: Pool,
  orgId: string,
  filters: InboxFilters,
  cursor: InboxCursor | null,
  limit: number,
): Promise<InboxRow[]> {
  const after = (time: string, key: string) =>
    `($4::bigint IS NULL OR (${time}, ${key} COLLATE "C") < (${timestampAt(4)}, $5::text COLLATE "C"))`;
  const { rows } = await pool.query<InboxRow>(
    `SELECT * FROM (
       (SELECT 'tool_call' AS kind, a.id::text AS id, a.created_at, ${TOOL_CALL_STATUS} AS status,
               a.decided_at, a.input, ${microsOf('a.created_at')} AS cursor_micros, ${TOOL_CALL_KEY} AS cursor_key,
               a.agent_id, a.conversation_id::text, a.message_id::text, a.tool, a.reason, a.expires_at,
               NULL::text AS connection_id, NULL::text AS connector_key, NULL::text AS action_key
          FROM approvals a
         WHERE a.org_id = $1
           AND ($2::text IS NULL OR ${TOOL_CALL_STATUS} = $2::text)
           AND ($3::text IS NULL OR a.agent_id = $3::text)
           AND ${after('a.created_at', TOOL_CALL_KEY)}
         ORDER BY a.created_at DESC, a.id DESC
         LIMIT $6)
       UNION ALL
       (SELECT 'action_run', r.id::text, r.created_at, ${ACTION_RUN_STATUS},
               ${ACTION_RUN_DECIDED}, coalesce(r.action_input, '{}'), ${microsOf('r.created_at')}, ${ACTION_RUN_KEY},
               NULL, NULL, NULL, NULL, NULL, NULL,
               r.connection_id::text, r.connector_key, r.action_key
          FROM runs r
         WHERE r.org_id = $1 AND r.run_type = 'action'
           -- Waiting, or decided by a person: an agent's run, approved as its tool call, is that tool call.
           AND (r.approval_status = 'pending' OR r.approval_decided_at IS NOT NULL)
           AND ($2::text IS NULL OR ${ACTION_RUN_STATUS} = $2::text)
           AND $3::text IS NULL
           AND ${after('r.created_at', ACTION_RUN_KEY)}
         ORDER BY r.created_at DESC, r.id DESC
         LIMIT $6)
     ) inbox
     ORDER BY created_at DESC, cursor_key COLLATE "C" DESC
     LIMIT $6`,
    [orgId, filters.status, filters.agentId, cursor?.micros ?? null, cursor?.key ?? null, limit],
  );
  return rows;
}
