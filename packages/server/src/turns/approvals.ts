import type { Pool, PoolClient } from 'pg';
import { rollback, transaction } from '../db/transaction.js';
import { visibleTo } from '../messaging/visibility.js';
import { appendEvent, WORK_CHANNEL } from './events.js';
import { EXPIRE_APPROVALS_LOCK, reaperTurn } from './queue.js';
import { type ClaimedTurn, storableJson, type TurnState, whileLeased } from './turn.js';

export interface ApprovalRequest {
  sdkApprovalId: string;
  toolCallId: string;
  tool: string;
  input: unknown;
}

export interface Decision {
  sdkApprovalId: string;
  status: 'approved' | 'rejected' | 'expired';
  reason: string | null;
}

/** `SVC_APPROVAL_TTL`: `24h`, `30m`, `90s`; an undecided call is rejected after it. */
export function parseApprovalTtl(raw: string | undefined): number {
  const text = (raw ?? '24h').trim();
  const match = /^(\d+)\s*(s|m|h|d)$/.exec(text);
  if (!match || Number(match[1]) === 0) {
    throw new Error(`SVC_APPROVAL_TTL "${text}" must be a duration such as 24h, 30m or 90s`);
  }
  return Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's'];
}

/**
 * Pauses a turn whose model asked for calls that need a decision: one approval per call, the turn
 * state kept on the message, the message `awaiting_approval` (so later messages of the
 * conversation wait behind it), and an `approval.requested` event per call.
 */
export async function pauseTurn(
  pool: Pool,
  turn: ClaimedTurn,
  state: TurnState,
  requests: ApprovalRequest[],
  ttlMs: number,
): Promise<void> {
  await whileLeased(pool, turn, async (client) => {
    await client.query(
      `UPDATE messages SET status = 'awaiting_approval', turn_state = $2, lease_expires_at = NULL,
              claimed_by = NULL, updated_at = now(),
              -- A pause is not a crash: the resumed turn has its attempts again.
              attempts = 0
        WHERE id = $1`,
      [turn.id, storableJson(state)],
    );
    for (const request of requests) {
      const { rows } = await client.query<{ id: string; expires_at: Date }>(
        `INSERT INTO approvals (message_id, conversation_id, org_id, agent_id, sdk_approval_id, tool_call_id, tool, input, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9 / 1000.0))
         RETURNING id, expires_at`,
        [
          turn.id,
          turn.conversationId,
          turn.orgId,
          turn.agentId,
          request.sdkApprovalId,
          request.toolCallId,
          request.tool,
          storableJson(request.input ?? null),
          ttlMs,
        ],
      );
      const approval = rows[0] as { id: string; expires_at: Date };
      await appendEvent(
        client,
        turn.conversationId,
        turn.id,
        'approval.requested',
        {
          messageId: turn.id,
          approvalId: approval.id,
          toolCallId: request.toolCallId,
          tool: request.tool,
          input: request.input ?? null,
          expiresAt: approval.expires_at.toISOString(),
        },
        // Announced by the caller after commit (EventWriter.announce).
        { notify: false },
      );
    }
  });
}

/** The decisions a resumed turn answers its model with. */
export async function decisionsOf(pool: Pool, messageId: string): Promise<Decision[]> {
  const { rows } = await pool.query<{
    sdk_approval_id: string;
    status: Decision['status'];
    reason: string | null;
  }>(
    "SELECT sdk_approval_id, status, reason FROM approvals WHERE message_id = $1 AND status <> 'pending' ORDER BY created_at",
    [messageId],
  );
  return rows.map((row) => ({ sdkApprovalId: row.sdk_approval_id, status: row.status, reason: row.reason }));
}

/** Once no call of its pause waits any more, the message goes back to the queue, first of its conversation. */
async function resumeWhenDecided(client: PoolClient, messageId: string): Promise<void> {
  const { rowCount } = await client.query(
    `UPDATE messages SET status = 'queued', updated_at = now()
      WHERE id = $1 AND status = 'awaiting_approval'
        AND NOT EXISTS (SELECT 1 FROM approvals WHERE message_id = $1 AND status = 'pending')`,
    [messageId],
  );
  if (rowCount === 1) await client.query('SELECT pg_notify($1, $2)', [WORK_CHANNEL, '']);
}

export interface ApprovalRow {
  id: string;
  message_id: string;
  conversation_id: string;
  tool_call_id: string;
  tool: string;
  input: unknown;
  status: 'pending' | 'approved' | 'rejected' | 'expired';
  reason: string | null;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
}

/**
 * Records a decision on one call, once: `already` when it was decided or expired before (past
 * `expires_at`, it is expired now if no reaper recorded it yet). The row is locked, so two decisions arriving at once on two replicas cannot both win.
 */
export async function decide(
  pool: Pool,
  /** `view`: whose private conversations the decider may see (messaging/visibility.ts); null: all. */
  target: { orgId: string; agentId: string; approvalId: string; view: string | null },
  decision: { approve: boolean; reason: string | null },
): Promise<{ approval: ApprovalRow; already: boolean } | null> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<ApprovalRow & { past_due: boolean }>(
      `SELECT *, expires_at < now() AS past_due FROM approvals WHERE id = $1 AND org_id = $2 AND agent_id = $3
          AND ($4::text IS NULL OR EXISTS (
                SELECT 1 FROM conversations c WHERE c.id = approvals.conversation_id AND ${visibleTo('c', 4)}))
        FOR UPDATE OF approvals`,
      [target.approvalId, target.orgId, target.agentId, target.view],
    );
    const current = rows[0];
    if (current?.status !== 'pending') {
      return rollback(current ? { approval: current, already: true } : null);
    }
    // Past its time it is expired, as the inbox already shows it, even if no reaper recorded it yet:
    // recorded here, as the reaper would, and the decision comes too late.
    if (current.past_due) {
      const expired = await client.query<ApprovalRow>(
        `UPDATE approvals SET status = 'expired', decided_at = now(), reason = $2 WHERE id = $1 RETURNING *`,
        [current.id, EXPIRED_REASON],
      );
      const approval = expired.rows[0] as ApprovalRow;
      await recordExpiry(client, approval);
      return { approval, already: true };
    }
    const updated = await client.query<ApprovalRow>(
      `UPDATE approvals SET status = $2, reason = $3, decided_at = now() WHERE id = $1 RETURNING *`,
      [current.id, decision.approve ? 'approved' : 'rejected', decision.reason],
    );
    const approval = updated.rows[0] as ApprovalRow;
    await appendEvent(client, approval.conversation_id, approval.message_id, 'approval.resolved', {
      messageId: approval.message_id,
      approvalId: approval.id,
      decision: approval.status,
      reason: approval.reason,
    });
    await resumeWhenDecided(client, approval.message_id);
    return { approval, already: false };
  });
}

const EXPIRED_REASON = 'nobody decided in time (SVC_APPROVAL_TTL)';

/** What follows a call marked expired: its conversation told, its turn resumed once nothing waits. */
async function recordExpiry(client: PoolClient, approval: ApprovalRow): Promise<void> {
  await appendEvent(client, approval.conversation_id, approval.message_id, 'approval.resolved', {
    messageId: approval.message_id,
    approvalId: approval.id,
    decision: 'expired',
    reason: approval.reason,
  });
  await resumeWhenDecided(client, approval.message_id);
}

/** Undecided calls past their time are rejected as `expired`, so no conversation waits forever. */
export async function expireApprovals(pool: Pool): Promise<number> {
  return transaction(pool, async (client) => {
    if (!(await reaperTurn(client, EXPIRE_APPROVALS_LOCK))) {
      return rollback(0);
    }
    const { rows } = await client.query<ApprovalRow>(
      `WITH due AS (
         SELECT id FROM approvals WHERE status = 'pending' AND expires_at < now()
          ORDER BY expires_at LIMIT 100 FOR UPDATE SKIP LOCKED
       )
       UPDATE approvals a SET status = 'expired', decided_at = now(), reason = $1
         FROM due WHERE a.id = due.id
       RETURNING a.*`,
      [EXPIRED_REASON],
    );
    for (const approval of rows) await recordExpiry(client, approval);
    return rows.length;
  });
}
