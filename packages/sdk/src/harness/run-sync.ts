/**
 * `runSync`: one sync of one feed on your machine, without a server, checked the way the server
 * checks it: every envelope, from the returned array and from `ctx.emitEvents` alike.
 */

import { assertValidDefinition } from '../definition/validate.js';
import type { EventEnvelope } from '../events/envelope.js';
import { type OwlettoField, owlettoWarning } from '../events/owletto.js';
import { createConnectorLogger, type LogEntry, type LogSink } from '../logging/index.js';
import type { Connector } from '../runtime/connector.js';
import { withRunLogger } from '../runtime/log.js';
import { checkpointSchema } from '../runtime/schema.js';
import type { Checkpoint, SyncContext, SyncCredentials, SyncResult } from '../runtime/types.js';
import { checkEnvelopes, EnvelopeError, notWireSafe, syncResultShape } from './check.js';
import {
  checkAgainst,
  credentialValues,
  findByKey,
  HarnessError,
  SyncFailedError,
  withoutEnvKeys,
} from './inputs.js';

export interface RunSyncOptions {
  feedKey: string;
  config?: Record<string, unknown>;
  checkpoint?: Checkpoint | null;
  credentials?: SyncCredentials | null;
  entityIds?: number[];
  sessionState?: Record<string, unknown> | null;
  /**
   * `true` (default): the long-running path, with `ctx.emitEvents` and `ctx.updateCheckpoint`.
   * `false`: the short path, where the sync returns everything at the end.
   */
  streaming?: boolean;
  /** Called with each batch as it is accepted, emitted or returned: to print events as they come. */
  onEvents?: (events: EventEnvelope[]) => void | Promise<void>;
  /** Where log lines go as they are written, besides the run's `logs`. */
  logSink?: LogSink;
}

export interface SyncRun {
  /** Every event, emitted then returned, in the order they arrived. */
  events: EventEnvelope[];
  /** The checkpoint the sync returned: the one the next sync starts from. */
  checkpoint: Checkpoint | null;
  /** Each checkpoint committed along the way through `ctx.updateCheckpoint`. */
  checkpointUpdates: (Checkpoint | null)[];
  auth_update: Record<string, unknown> | null;
  metadata: NonNullable<SyncResult['metadata']>;
  /** origin_ids seen more than once: the server keeps one row for each. */
  duplicateOriginIds: string[];
  logs: LogEntry[];
  durationMs: number;
}

export async function runSync(connector: Connector, options: RunSyncOptions): Promise<SyncRun> {
  assertValidDefinition(connector);
  const { definition } = connector;
  const feed = findByKey(definition, 'feed', options.feedKey);
  const config = options.config ?? {};
  // env_keys values arrive merged into config; the feed's schema describes the rest.
  checkAgainst(
    feed.configSchema,
    withoutEnvKeys(definition, config),
    `config does not match feed "${feed.key}"'s configSchema`,
  );
  // Copies, as the server's would be: a connector mutating one object must not rewrite history.
  checkCheckpoint(options.checkpoint ?? null, 'checkpoint');
  const checkpoint = options.checkpoint ? structuredClone(options.checkpoint) : null;

  const logger = createConnectorLogger({
    connectorKey: definition.key,
    secrets: credentialValues(definition, config, options.credentials, options.sessionState),
    ...(options.logSink ? { sink: options.logSink } : {}),
  });
  const events: EventEnvelope[] = [];
  const checkpointUpdates: (Checkpoint | null)[] = [];
  // Said once for each Owletto-era field a run's events have, as a server's run log says it.
  const owlettoFields = new Set<OwlettoField>();
  const warnOwletto = (fields: OwlettoField[]) => {
    const fresh = fields.filter((field) => !owlettoFields.has(field));
    for (const field of fresh) owlettoFields.add(field);
    if (fresh.length > 0) logger.warn(owlettoWarning(fresh));
  };
  const accept = async (batch: unknown) => {
    const valid = checkEnvelopes(batch, events.length, warnOwletto);
    events.push(...valid);
    await options.onEvents?.(valid);
  };
  const ctx: SyncContext = {
    feedKey: feed.key,
    config,
    checkpoint,
    credentials: options.credentials ?? null,
    entityIds: options.entityIds ?? [],
    sessionState: options.sessionState ?? null,
  };
  if (options.streaming !== false) {
    ctx.emitEvents = accept;
    ctx.updateCheckpoint = async (next) => {
      checkCheckpoint(next, 'updateCheckpoint');
      checkpointUpdates.push(next === null ? null : structuredClone(next));
    };
  }

  const started = performance.now();
  let result: unknown;
  try {
    result = await withRunLogger(logger, () => connector.sync(ctx));
  } catch (error) {
    // The harness's own verdicts (a bad envelope, a bad checkpoint) are already precise.
    if (error instanceof EnvelopeError || error instanceof HarnessError) throw error;
    // What was emitted and committed before the failure stands, as on a server: say where to resume.
    throw new SyncFailedError(feed.key, error, events, checkpointUpdates, logger.entries());
  }
  const shape = syncResultShape.safeParse(result);
  if (!shape.success) {
    const detail = shape.error.issues
      .map((i) => `${i.path.join('.') || '(result)'}: ${i.message}`)
      .join('; ');
    throw new HarnessError(`sync of feed "${feed.key}" returned no valid SyncResult: ${detail}`);
  }
  const { auth_update = null, metadata = {} } = shape.data;
  // Rotated credentials are secrets from here on, in this run's log as in the server's.
  if (auth_update) logger.addSecrets(Object.values(auth_update));
  checkCheckpoint(shape.data.checkpoint, 'the returned checkpoint');
  for (const [name, value] of [
    ['auth_update', auth_update],
    ['metadata', metadata],
  ] as const) {
    const problem = notWireSafe(value, name);
    if (problem) throw new HarnessError(`sync of feed "${feed.key}" returned ${problem}`);
  }
  await accept(shape.data.events);
  return {
    events,
    checkpoint: shape.data.checkpoint === null ? null : structuredClone(shape.data.checkpoint),
    checkpointUpdates,
    auth_update,
    metadata,
    duplicateOriginIds: duplicates(events.map((e) => e.origin_id)),
    logs: logger.entries(),
    durationMs: performance.now() - started,
  };
}

function checkCheckpoint(checkpoint: unknown, what: string): void {
  if (!checkpointSchema.safeParse(checkpoint).success)
    throw new HarnessError(`${what} must be an object or null`);
  const problem = notWireSafe(checkpoint, 'checkpoint');
  if (problem) throw new HarnessError(`${what}: ${problem}`);
}

function duplicates(ids: string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const id of ids) (seen.has(id) ? twice : seen).add(id);
  return [...twice];
}
