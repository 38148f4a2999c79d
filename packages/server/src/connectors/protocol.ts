/**
 * What the server and a connector's child process say to each other over IPC (sandbox.ts starts
 * the child, child.ts is it). The payloads are the SDK's own types: nothing is dropped in between.
 */

import type {
  ActionResult,
  AuthArtifact,
  AuthResult,
  Checkpoint,
  EventEnvelope,
  JsonSchema,
  LogEntry,
  SyncCredentials,
} from '@svc/connector-sdk';
import type { CodelessModule, ListTask } from './codeless/types.js';

/** Items in one message from the child, events and rejected ones each: it splits larger batches. */
export const MAX_BATCH_ITEMS = 5000;

/** A bundled package (its module name), a file of the connector's source, or no code (codeless/). */
export type ConnectorModule = { package: string } | { file: string; name: string } | CodelessModule;

export interface DefinitionTask {
  task: 'definition';
  module: ConnectorModule;
}

export interface SyncTask {
  task: 'sync';
  module: ConnectorModule;
  ctx: {
    feedKey: string;
    config: Record<string, unknown>;
    checkpoint: Checkpoint | null;
    credentials: SyncCredentials | null;
    entityIds: number[];
    sessionState: Record<string, unknown> | null;
  };
  /**
   * The feed's event kinds as installed: an envelope's kind (`origin_type`, else `semantic_type`)
   * must be one of them, and its metadata must fit the kind's `metadataSchema`. Null: the feed
   * declares none, and any kind is taken.
   */
  eventKinds: Record<string, { metadataSchema?: JsonSchema }> | null;
  /** Values kept out of every log line (the connection's credentials). */
  secrets: string[];
}

export interface ExecuteTask {
  task: 'execute';
  module: ConnectorModule;
  ctx: {
    actionKey: string;
    input: Record<string, unknown>;
    credentials: SyncCredentials | null;
    config: Record<string, unknown>;
    sessionState: Record<string, unknown> | null;
  };
  secrets: string[];
}

/** An `auth` run: the connector's `authenticate(ctx)` (interactive auth). */
export interface AuthenticateTask {
  task: 'authenticate';
  module: ConnectorModule;
  ctx: {
    config: Record<string, unknown>;
    previousCredentials: Record<string, unknown> | null;
  };
  /** When `ctx.signal` aborts on its own (the method's timeoutSec); the server kills the child then. */
  timeoutMs: number;
  secrets: string[];
}

export type Task = DefinitionTask | SyncTask | ExecuteTask | AuthenticateTask | ListTask;

/** An envelope the child refused, and why, for the run's count and log. */
export interface RejectedItem {
  origin_id: string | null;
  reason: string;
}

/** From the child. `seq` pairs a batch or a checkpoint with the server's acknowledgement. */
export type ChildMessage =
  | { type: 'events'; seq: number; events: EventEnvelope[]; rejected: RejectedItem[] }
  | { type: 'checkpoint'; seq: number; checkpoint: Checkpoint | null }
  | { type: 'log'; entry: LogEntry }
  | {
      type: 'synced';
      events: EventEnvelope[];
      rejected: RejectedItem[];
      /** Absent when the sync returned none after committing some through `updateCheckpoint`. */
      checkpoint?: Checkpoint | null;
      auth_update: Record<string, unknown> | null;
    }
  | { type: 'executed'; result: ActionResult }
  /** `ctx.emit(artifact)`: acknowledged once kept (checked again by the server: child-messages.ts). */
  | { type: 'artifact'; seq: number; artifact: AuthArtifact }
  /** `ctx.awaitSignal(name)`: answered by a `signal` (what the UI posted) or a `nack` (timed out). */
  | { type: 'await'; seq: number; name: string; timeoutMs: number | null }
  | { type: 'authenticated'; result: AuthResult }
  | {
      type: 'failed';
      error: string;
      /** The connector's service answered 401 (an SDK HttpError, or one in its `cause` chain). */
      credentialsRefused?: boolean;
      /**
       * It answered 403: a browser session the service no longer takes (for other credentials a
       * 403 is a missing permission or a rate limit, not refused credentials).
       */
      forbidden?: boolean;
    };

/** To the child: a batch or checkpoint is committed (or could not be), or the run must stop. */
export type ParentMessage =
  | Task
  | { type: 'ack'; seq: number }
  | { type: 'nack'; seq: number; error: string }
  | { type: 'signal'; seq: number; value: Record<string, unknown> }
  | { type: 'cancel' };
