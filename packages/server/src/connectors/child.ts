/**
 * The child process that connector code runs in (sandbox.ts starts it): it imports the connector
 * and runs one task (read its definition, a sync, an action), spoken to in frames over fd 3
 * (frames.ts). Nothing of the server is loaded here, and its environment holds no secret of the
 * server's. Its `fetch` goes through the parent's egress socket (child-network.ts).
 *
 * Envelopes are sorted here, so that a connector's author sees the same reasons the server gives;
 * the server checks them all again (connector code runs in this process: it may say anything).
 */

import { Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  type Checkpoint,
  type Connector,
  createConnectorLogger,
  type EventEnvelope,
  findConnector,
  type OwlettoField,
  owlettoWarning,
  withRunLogger,
} from '@svc/connector-sdk';
import { routeFetchThroughParent } from './child-network.js';
import { codelessConnector, listUpstreamActions } from './codeless/upstream.js';
import { sortEnvelopes } from './envelopes.js';
import { encodeFrame, readFrames } from './frames.js';
import {
  type AuthenticateTask,
  type ChildMessage,
  type ConnectorModule,
  type ExecuteTask,
  MAX_BATCH_ITEMS,
  type ParentMessage,
  type RejectedItem,
  type SyncTask,
} from './protocol.js';

// bwrap sets it; the connector's environment is only what the server gives.
delete process.env.PWD;
if (process.env.SVC_EGRESS_SOCKET) routeFetchThroughParent(process.env.SVC_EGRESS_SOCKET);

const channel = new Socket({ fd: 3, readable: true, writable: true });

const send = (message: ChildMessage | Record<string, unknown>) =>
  new Promise<void>((resolve, reject) =>
    channel.write(encodeFrame(message), (error?: Error | null) => (error ? reject(error) : resolve())),
  );

// The server is gone (killed, or it dropped this run): nothing this process does can land.
channel.on('close', () => process.exit(1));
channel.on('error', () => process.exit(1));

// From the sources, the bundled connectors are files of the build the server made
// (source-build.ts), not packages: their names, mapped.
const packages = JSON.parse(process.env.SVC_CONNECTOR_PACKAGES ?? '{}') as Record<string, string>;
delete process.env.SVC_CONNECTOR_PACKAGES;

async function load(module: ConnectorModule): Promise<Connector> {
  // A connector without code: svc's own, built from the definition and what the upstream said.
  if ('codeless' in module) return codelessConnector(module);
  const where = 'package' in module ? module.package : module.name;
  const file = 'package' in module ? packages[module.package] : module.file;
  const exports = (await import(
    file === undefined ? (module as { package: string }).package : pathToFileURL(file).href
  )) as Record<string, unknown>;
  const connector = findConnector(exports, where);
  if (!connector) {
    throw new Error(
      `${where}: exports no connector; export default a Connector (a class extending it, an instance, or defineConnector(...))`,
    );
  }
  return connector;
}

// The run under way: a child serves the runs of one connection, one after another.
let stop = new AbortController();
const waiting = new Map<number, { resolve(value?: unknown): void; reject(error: Error): void }>();
let seq = 0;

/** Sends a batch or a checkpoint and waits until the server has committed it. */
function committed(message: { type: 'events' | 'checkpoint' } & Record<string, unknown>): Promise<void> {
  return asked(message) as Promise<void>;
}

/** Sends a message that the server answers (an ack, a signal, a nack), and waits for the answer. */
function asked(message: { type: string } & Record<string, unknown>): Promise<unknown> {
  const id = ++seq;
  return new Promise<unknown>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    send({ ...message, seq: id } as ChildMessage).catch(reject);
  });
}

/** A sorted batch in parts the server takes (MAX_BATCH_ITEMS events and rejected items each). */
function inParts(sorted: { events: EventEnvelope[]; rejected: RejectedItem[] }) {
  const parts: { events: EventEnvelope[]; rejected: RejectedItem[] }[] = [];
  const count = Math.max(sorted.events.length, sorted.rejected.length);
  for (let at = 0; at === 0 || at < count; at += MAX_BATCH_ITEMS) {
    parts.push({
      events: sorted.events.slice(at, at + MAX_BATCH_ITEMS),
      rejected: sorted.rejected.slice(at, at + MAX_BATCH_ITEMS),
    });
  }
  return parts;
}

function runLogger(connectorKey: string, secrets: string[]) {
  return createConnectorLogger({
    connectorKey,
    secrets,
    // The server keeps the lines; this process keeps none beyond a few.
    maxEntries: 10,
    sink: (entry) => void send({ type: 'log', entry }).catch(() => {}),
  });
}

async function sync(task: SyncTask): Promise<ChildMessage> {
  const connector = await load(task.module);
  let checkpointed = false;
  // One batch in flight: emitEvents answers once the batch before is committed and this one is
  // on its way, so the connector builds its next batch while the server writes this one. Batches
  // and checkpoints go out one after another, each once the one before is committed; after one the
  // server could not store, nothing more is sent, and the next call (or the end of the sync) fails
  // with why. So no checkpoint is ever sent past a batch that was not stored.
  let inFlight: Promise<void> = Promise.resolve();
  // A call after sync() settled would reach whatever run this child serves next: refused.
  let ended = false;
  const after = (message: Parameters<typeof committed>[0], closing = false) => {
    if (ended && !closing)
      throw new Error('this sync has ended: emitEvents and updateCheckpoint belong to a sync under way');
    const previous = inFlight;
    const mine = previous.then(() => committed(message));
    inFlight = mine;
    // Observed here, so that it is not unhandled before a later call or the end awaits it.
    mine.catch(() => {});
    return { previous, mine };
  };
  const logger = runLogger(connector.definition.key, task.secrets);
  // The run's log says once for each Owletto-era field that the events had it and were mapped.
  const owlettoFields = new Set<OwlettoField>();
  const sorted = (events: unknown) => {
    const batch = sortEnvelopes(events, task.eventKinds);
    const fresh = batch.owletto.filter((field) => !owlettoFields.has(field));
    for (const field of fresh) owlettoFields.add(field);
    if (fresh.length > 0) logger.warn(owlettoWarning(fresh));
    return batch;
  };
  const result = await withRunLogger(logger, () =>
    connector.sync({
      ...task.ctx,
      signal: stop.signal,
      emitEvents: async (events) => {
        // The server takes so many items a message: a larger batch goes as several, in order.
        let handed: Promise<void> = Promise.resolve();
        for (const part of inParts(sorted(events))) {
          handed = after({ type: 'events', ...part }).previous;
        }
        await handed;
      },
      updateCheckpoint: async (checkpoint: Checkpoint | null) => {
        await after({ type: 'checkpoint', checkpoint }).mine;
        checkpointed = true;
      },
    }),
  ).finally(() => {
    ended = true;
  });
  await inFlight;
  if (typeof result !== 'object' || result === null) throw new Error('sync() must return a SyncResult');
  const parts = inParts(sorted(result.events ?? []));
  const last = parts.pop() ?? { events: [], rejected: [] };
  for (const part of parts) after({ type: 'events', ...part }, true);
  await inFlight;
  const keep = checkpointed && (result.checkpoint === null || result.checkpoint === undefined);
  return {
    type: 'synced',
    ...last,
    ...(keep ? {} : { checkpoint: result.checkpoint ?? null }),
    auth_update: result.auth_update ?? null,
  };
}

async function execute(task: ExecuteTask): Promise<ChildMessage> {
  const connector = await load(task.module);
  const result = await withRunLogger(runLogger(connector.definition.key, task.secrets), () =>
    connector.execute({ ...task.ctx, signal: stop.signal }),
  );
  if (typeof result !== 'object' || result === null || typeof result.success !== 'boolean') {
    throw new Error('execute() must return an ActionResult ({ success: boolean, output?, error? })');
  }
  return { type: 'executed', result: JSON.parse(JSON.stringify(result)) };
}

/**
 * `authenticate(ctx)`: each artifact goes to the server and `emit` answers once it is kept;
 * `awaitSignal` asks the server, which answers with what the UI posted or refuses at `timeoutMs`.
 * `ctx.signal` aborts on a cancel and at the run's time limit (the server kills this process then
 * anyway: a connector that ignores it is stopped all the same).
 */
async function authenticate(task: AuthenticateTask): Promise<ChildMessage> {
  const connector = await load(task.module);
  const run = stop;
  const deadline = setTimeout(
    () => run.abort(new Error(`the auth run ran out of time (${task.timeoutMs / 1000} s)`)),
    task.timeoutMs,
  );
  let ended = false;
  const live = () => {
    if (ended) throw new Error('this authentication has ended: emit and awaitSignal belong to one under way');
    if (run.signal.aborted) throw run.signal.reason ?? new Error('the auth run was stopped');
  };
  try {
    const result = await withRunLogger(runLogger(connector.definition.key, task.secrets), () =>
      connector.authenticate({
        ...task.ctx,
        signal: run.signal,
        emit: async (artifact) => {
          live();
          // Through JSON, as the server will keep it.
          await asked({ type: 'artifact', artifact: JSON.parse(JSON.stringify(artifact ?? null)) });
        },
        awaitSignal: (name, options) => {
          live();
          const answer = asked({ type: 'await', name, timeoutMs: options?.timeoutMs ?? null });
          return new Promise<Record<string, unknown>>((resolve, reject) => {
            const aborted = () => reject(run.signal.reason ?? new Error('the auth run was stopped'));
            run.signal.addEventListener('abort', aborted, { once: true });
            answer.then(
              (value) => resolve(value as Record<string, unknown>),
              (error: Error) => reject(error),
            );
            answer.finally(() => run.signal.removeEventListener('abort', aborted)).catch(() => {});
          });
        },
      }),
    );
    if (
      typeof result !== 'object' ||
      result === null ||
      typeof result.credentials !== 'object' ||
      result.credentials === null
    ) {
      throw new Error('authenticate() must return an AuthResult ({ credentials: {...}, metadata? })');
    }
    return { type: 'authenticated', result: JSON.parse(JSON.stringify(result)) };
  } finally {
    ended = true;
    clearTimeout(deadline);
  }
}

/**
 * An error's message with the causes under it: `fetch` says only "fetch failed", and why (the
 * egress policy refused the host, the connection was refused) is in its cause.
 */
function describe(error: unknown): string {
  const parts: string[] = [];
  // A message that already says why (the connector's own) is left as it is.
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 4; depth++) {
    const text = at instanceof Error ? at.message : String(at);
    if (text && !parts.some((part) => part.includes(text))) parts.push(text);
    if (parts.join(': ').length >= 80) break;
    at = at instanceof Error ? at.cause : undefined;
  }
  return parts.join(': ');
}

/** Whether an error is (or was caused by) a 401 (or `status`) from the connector's service: its credentials refused. */
function refusedCredentials(error: unknown, status = 401): boolean {
  for (let at = error, depth = 0; at && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    if (
      (at as { name?: string; status?: number }).name === 'HttpError' &&
      (at as { status?: number }).status === status
    )
      return true;
  }
  return false;
}

const onTask = async (message: ParentMessage) => {
  if ('type' in message) {
    if (message.type === 'cancel') stop.abort(new Error('the run was cancelled'));
    else {
      const pending = waiting.get(message.seq);
      waiting.delete(message.seq);
      if (message.type === 'ack') pending?.resolve();
      else if (message.type === 'signal') pending?.resolve(message.value);
      else pending?.reject(new Error(message.error));
    }
    return;
  }
  stop = new AbortController();
  try {
    if (message.task === 'codeless-actions') {
      const read = await listUpstreamActions(message);
      await send({ ok: true, ...JSON.parse(JSON.stringify(read)) });
      return;
    }
    if (message.task === 'definition') {
      const connector = await load(message.module);
      // Through JSON, as the server will keep it: a definition that does not survive it is refused.
      await send({ ok: true, definition: JSON.parse(JSON.stringify(connector.definition ?? null)) });
      return;
    }
    await send(
      message.task === 'sync'
        ? await sync(message)
        : message.task === 'authenticate'
          ? await authenticate(message)
          : await execute(message),
    );
  } catch (error) {
    const text = describe(error);
    if (message.task === 'definition' || message.task === 'codeless-actions')
      await send({ ok: false, error: text }).catch(() => {});
    else
      await send({
        type: 'failed',
        error: text,
        credentialsRefused: refusedCredentials(error),
        forbidden: refusedCredentials(error, 403),
      }).catch(() => {});
  }
};

readFrames(
  channel,
  (message) => void onTask(message as ParentMessage),
  () => process.exit(1),
  // The server's word: no cap on size or depth (an org's config is whatever it wrote).
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER,
);
