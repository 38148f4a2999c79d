/** The spec's "Sync and action contexts and results". */

import type { EventEnvelope } from '../events/envelope.js';

export type Checkpoint = Record<string, unknown>;

export interface SyncContext {
  feedKey: string;
  /** The feed's config; for `env_keys` auth, the user's values are merged in under each field's key. */
  config: Record<string, unknown>;
  /** The last checkpoint committed, or null on the first sync. */
  checkpoint: Checkpoint | null;
  /** Set for `oauth` auth. */
  credentials: SyncCredentials | null;
  entityIds: number[];
  /** For `browser` auth: the captured cookies. */
  sessionState?: Record<string, unknown> | null;
  /** Long-running syncs only: hands a batch over now instead of returning everything at the end. */
  emitEvents?: (events: EventEnvelope[]) => Promise<void>;
  /** Long-running syncs only: commits a checkpoint with the events emitted before it. */
  updateCheckpoint?: (checkpoint: Checkpoint | null) => Promise<void>;
  /**
   * Not in the spec; svc's: aborted when the run is cancelled or must stop. Pass it to `fetch`;
   * a sync that ignores it is killed a few seconds later.
   */
  signal?: AbortSignal;
}

export interface SyncCredentials {
  provider: string;
  accessToken: string;
  refreshToken?: string | null;
  expiresAt?: string | null;
  scope?: string | null;
}

export interface SyncResult {
  events: EventEnvelope[];
  checkpoint: Checkpoint | null;
  /** Credentials that rotated during the sync; persisted onto the linked auth profile. */
  auth_update?: Record<string, unknown> | null;
  metadata?: {
    items_found?: number;
    items_skipped?: number;
    [key: string]: unknown;
  };
}

export interface ActionContext {
  actionKey: string;
  input: Record<string, unknown>;
  credentials: SyncCredentials | null;
  config: Record<string, unknown>;
  /**
   * A `browser` connection's captured session, `{cookies}`, as on `SyncContext` (the spec: "Where
   * credentials land (same for ActionContext)").
   */
  sessionState?: Record<string, unknown> | null;
  /** Not in the spec; svc's: aborted when the run is cancelled or must stop. */
  signal?: AbortSignal;
}

export interface ActionResult {
  success: boolean;
  output?: Record<string, unknown>;
  /** Why it failed, in words a user can act on. */
  error?: string;
}
