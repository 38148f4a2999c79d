/** The spec's "Stored records" and "States and transitions": what the server keeps, read-only to connectors. */

export const CONNECTION_STATUSES = ['active', 'paused', 'error', 'revoked'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export const FEED_STATUSES = ['active', 'paused', 'error'] as const;
export type FeedStatus = (typeof FEED_STATUSES)[number];

export const RUN_TYPES = ['sync', 'action', 'code', 'watcher', 'auth'] as const;
export type RunType = (typeof RUN_TYPES)[number];

export const RUN_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled', 'timeout'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'auto'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export interface Connection {
  id: number;
  organizationId: string;
  connectorKey: string;
  displayName?: string;
  status: ConnectionStatus;
  accountId?: string;
  credentials?: Record<string, unknown>;
  entityIds?: number[];
  config?: Record<string, unknown>;
  errorMessage?: string;
  createdBy?: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface Feed {
  id: number;
  organizationId: string;
  connectionId: number;
  feedKey: string;
  status: FeedStatus;
  entityIds?: number[];
  config?: Record<string, unknown>;
  checkpoint?: Record<string, unknown>;
  /** Milliseconds between syncs. */
  syncIntervalMs?: number;
  nextSyncAt?: Date;
  lastSyncAt?: Date;
  lastSyncStatus?: string;
  lastError?: string;
  consecutiveFailures: number;
  itemsCollected: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface Run {
  id: number;
  organizationId: string;
  runType: RunType;
  feedId?: number;
  connectionId?: number;
  actionKey?: string;
  actionInput?: Record<string, unknown>;
  actionOutput?: Record<string, unknown>;
  approvalStatus: ApprovalStatus;
  status: RunStatus;
  claimedBy?: string;
  claimedAt?: Date;
  lastHeartbeatAt?: Date;
  completedAt?: Date;
  connectorKey?: string;
  connectorVersion?: string;
  checkpoint?: Record<string, unknown>;
  itemsCollected: number;
  errorMessage?: string;
  createdAt: Date;
}
