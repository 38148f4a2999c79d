/** A run as the server answers it (`GET /api/:org/runs/:id`), and what the commands say of one. */

import type { Api } from './api.js';

export const RUN_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled', 'timeout'] as const;
export const RUN_TYPES = ['sync', 'action', 'code', 'watcher', 'auth'] as const;

export interface RunRecord {
  id: number;
  runType: (typeof RUN_TYPES)[number];
  feedId: number | null;
  connectionId: number | null;
  actionKey: string | null;
  actionInput: Record<string, unknown> | null;
  actionOutput: Record<string, unknown> | null;
  approvalStatus: 'pending' | 'approved' | 'rejected' | 'auto';
  status: (typeof RUN_STATUSES)[number];
  claimedBy: string | null;
  claimedAt: string | null;
  lastHeartbeatAt: string | null;
  completedAt: string | null;
  connectorKey: string | null;
  connectorVersion: string | null;
  checkpoint: Record<string, unknown> | null;
  itemsCollected: number;
  itemsRejected?: number;
  logLines?: number;
  errorMessage: string | null;
  createdAt: string;
}

export const RUN_IDS = '"svc runs list" shows them';
export const isOpen = (status: string) => status === 'pending' || status === 'running';

/** What a run works on: `feed 7`, `connection 3 send_message`. */
export const subject = (run: RunRecord) =>
  run.runType === 'sync' && run.feedId !== null
    ? `feed ${run.feedId}`
    : run.actionKey
      ? `connection ${run.connectionId} ${run.actionKey}`
      : run.connectionId !== null
        ? `connection ${run.connectionId}`
        : '-';

export async function getRun(api: Api, id: string): Promise<RunRecord> {
  const { run } = await api.call<{ run: RunRecord }>('GET', `/runs/${id}`, undefined, {
    not_found: `org ${api.session.org} has no run ${id}: ${RUN_IDS}`,
  });
  return run;
}
