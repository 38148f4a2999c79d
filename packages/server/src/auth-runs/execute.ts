/**
 * An `auth` run on the worker: the connector's `authenticate(ctx)` in its sandboxed child. Each
 * artifact it emits is checked (child-messages.ts) and kept as the run's next event in one fenced
 * transaction before `emit` answers; `awaitSignal` is answered with what the UI posted (taken from
 * `auth_run_signals`, deleted as it is delivered) or refused at its `timeoutMs`; the result becomes
 * the connection's sealed credentials (connections/credentials.ts) with the run's end, in one
 * transaction. The method's `timeoutSec` is the server's: at that moment the run ends `timeout`
 * and the child is killed, whatever the connector does; a cancel kills it at once.
 */
import { dirname } from 'node:path';
import type { ConnectorDefinition, InteractiveAuthMethod } from '@svc/connector-sdk';
import type { PoolClient } from 'pg';
import { readCredentials, storeCredentials } from '../connections/credentials.js';
import { ungrantedConfig, urlHosts } from '../connections/grants.js';
import { parseChildMessage } from '../connectors/child-messages.js';
import type { EgressGrant } from '../connectors/egress-proxy.js';
import type { ChildMessage } from '../connectors/protocol.js';
import type { Sandbox } from '../connectors/sandbox.js';
import type { RunnerDeps } from '../runs/execute.js';
import { createLogBuffer, type LogBuffer, serverLine } from '../runs/logs.js';
import { type ClaimedRun, endRun, RunLeaseLostError, whileHeld } from '../runs/queue.js';
import { connectorModule, type RunScope } from '../runs/scope.js';
import { AUTH_RUNS_CHANNEL, takeSignal, useSignalHub } from './signals.js';

/** The method's `timeoutSec` when it names none (the spec's default). */
export const DEFAULT_AUTH_TIMEOUT_SEC = 300;
/** How often a waiting `awaitSignal` looks for its signal without a notification. */
const SIGNAL_POLL_MS = 2000;
/** Artifacts one run may emit: a QR code refreshed every 20 s for an hour is 180. */
export const MAX_ARTIFACTS = 500;

export const interactiveMethod = (definition: ConnectorDefinition): InteractiveAuthMethod | undefined =>
  definition.authSchema?.methods.find((m): m is InteractiveAuthMethod => m.type === 'interactive');

interface AuthScope {
  orgId: string;
  connectionId: string;
  connectorKey: string;
  definition: ConnectorDefinition;
  config: Record<string, unknown>;
  grantedHosts: string[] | null;
  package: string | null;
  source: string | null;
  timeoutSec: number;
}

async function loadAuthScope(deps: RunnerDeps, run: ClaimedRun): Promise<AuthScope | null> {
  const { rows } = await deps.pool.query<{
    org_id: string;
    connection_id: string;
    connector_key: string;
    definition: ConnectorDefinition;
    package: string | null;
    source: string | null;
    config: Record<string, unknown>;
    granted_hosts: string[] | null;
    auth_timeout_sec: number | null;
  }>(
    `SELECT c.org_id, c.id AS connection_id, c.connector_key, d.definition, d.package, d.source, c.config,
            c.granted_hosts, r.auth_timeout_sec
       FROM runs r
       JOIN connections c ON c.id = r.connection_id
       JOIN connector_definitions d ON d.org_id = c.org_id AND d.connector_key = c.connector_key
      WHERE r.id = $1`,
    [run.id],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    orgId: String(row.org_id),
    connectionId: String(row.connection_id),
    connectorKey: row.connector_key,
    definition: row.definition,
    config: row.config ?? {},
    grantedHosts: row.granted_hosts,
    package: row.package,
    source: row.source,
    timeoutSec:
      row.auth_timeout_sec ?? interactiveMethod(row.definition)?.timeoutSec ?? DEFAULT_AUTH_TIMEOUT_SEC,
  };
}

/** String values inside `value`, however deep: kept out of the run's log. */
function stringsOf(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') {
    if (value.length >= 4) into.push(value);
  } else if (value && typeof value === 'object') {
    for (const item of Object.values(value)) stringsOf(item, into);
  }
  return into;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function executeAuthRun(deps: RunnerDeps, run: ClaimedRun, stop: AbortSignal): Promise<void> {
  const started = Date.now();
  const scope = await loadAuthScope(deps, run);
  if (!scope) return; // deleted with its connection meanwhile
  // Values kept out of the log: the previous credentials, each signal delivered, the result's.
  const secrets: string[] = [];
  const logs = createLogBuffer(secrets);
  const end = async (given: { status: 'failed' | 'timeout'; errorMessage: string }) => {
    // The connector's own words may quote what it was given: not on the run record.
    const errorMessage = secrets.reduce(
      (text, secret) => (secret.length >= 4 ? text.replaceAll(secret, '[redacted]') : text),
      given.errorMessage,
    );
    const outcome = { ...given, errorMessage };
    logs.add(serverLine('error', errorMessage));
    await whileHeld(deps.pool, run, async (client) => {
      await logs.flush(client, run.id);
      await endRun(client, run, outcome);
    }).catch((error) => {
      if (!(error instanceof RunLeaseLostError)) throw error;
    });
  };
  let sandbox: Sandbox | undefined;
  let previous: Record<string, unknown> | null = null;
  let module: Awaited<ReturnType<typeof connectorModule>>;
  try {
    if (!interactiveMethod(scope.definition)) {
      throw new Error(`connector "${scope.connectorKey}" has no interactive auth method (any more)`);
    }
    previous = await readCredentials(deps.pool, deps.encryptionKey, scope).catch(() => {
      // Sealed under another key, or damaged: authenticating afresh is what fixes that.
      logs.add(serverLine('warn', 'the previous credentials could not be opened: starting without them'));
      return null;
    });
    // The child reaches what the egress policy allows; once it is handed the previous credentials,
    // only the hosts they were granted for, and only when the config still points there (else it
    // starts afresh, without them).
    let grant: EgressGrant = { hosts: null };
    if (previous) {
      const granted = scope.grantedHosts;
      if (granted && ungrantedConfig(granted, scope.config) === null) {
        grant = { hosts: new Set([...granted, ...urlHosts(previous)]) };
        stringsOf(previous, secrets);
      } else {
        previous = null;
      }
    }
    module = await connectorModule(scope as unknown as RunScope);
    const folder = 'file' in module ? dirname(module.file) : null;
    sandbox = await deps.sandboxes.take(scope.connectionId, folder);
    if (folder !== null) module = { ...module, file: await sandbox.load(folder) };
    sandbox.grant(grant);
  } catch (error) {
    sandbox?.stop();
    await end({ status: 'failed', errorMessage: messageOf(error) });
    return;
  }
  const child: Sandbox = sandbox;
  const timeoutMs = Math.max(0, scope.timeoutSec * 1000 - (Date.now() - started));
  // The server's own limit, below: the child's is a backstop only.
  child.arm(timeoutMs + 10_000);
  const signals = useSignalHub(deps.pool, deps.log);
  try {
    await converse(deps, run, scope, child, logs, secrets, stop, end, signals.hub, timeoutMs, {
      task: 'authenticate',
      module,
      ctx: { config: scope.config, previousCredentials: previous },
      timeoutMs,
      secrets: [...secrets],
    });
  } finally {
    signals.release();
    // An auth child held credentials and what the user typed: it serves no other run.
    child.stop();
    // Signals never taken (the run ended first) are not kept.
    await deps.pool.query('DELETE FROM auth_run_signals WHERE run_id = $1', [run.id]).catch(() => {});
  }
}

async function converse(
  deps: RunnerDeps,
  run: ClaimedRun,
  scope: AuthScope,
  sandbox: Sandbox,
  logs: LogBuffer,
  secrets: string[],
  stop: AbortSignal,
  end: (outcome: { status: 'failed' | 'timeout'; errorMessage: string }) => Promise<void>,
  hub: ReturnType<typeof useSignalHub>['hub'],
  timeoutMs: number,
  task: unknown,
): Promise<void> {
  let over = false;
  let settle!: () => void;
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  /** Ends the conversation once: the child is killed, and `outcome` (if any) is the run's end. */
  const finish = (outcome?: { status: 'failed' | 'timeout'; errorMessage: string }) => {
    if (over) return Promise.resolve();
    over = true;
    sandbox.stop();
    return (outcome ? end(outcome) : Promise.resolve())
      .catch((error) => deps.log.error({ err: error, runId: run.id }, 'could not end an auth run'))
      .finally(settle);
  };
  const held = <T>(work: (client: PoolClient) => Promise<T>) =>
    whileHeld(deps.pool, run, async (client) => {
      const result = await work(client);
      await logs.flush(client, run.id);
      return result;
    });
  const lost = (error: unknown) => {
    if (error instanceof RunLeaseLostError) {
      deps.log.info(
        { runId: run.id },
        'stopped an auth run this worker no longer holds (cancelled or lapsed)',
      );
      void finish();
    } else {
      void finish({ status: 'failed', errorMessage: `the server failed: ${messageOf(error)}` });
    }
  };

  const deadline = setTimeout(
    () =>
      void finish({
        status: 'timeout',
        errorMessage: `the connector did not finish authenticating within ${scope.timeoutSec} s (the method's timeoutSec)`,
      }),
    timeoutMs,
  );
  // A cancel (the run is `cancelled` already) or a lost lease: the child is killed at once. A
  // worker shutting down ends the run `failed` (fenced: a lease really lost writes nothing): the
  // person waiting learns now, not when the reaper finds the lease lapsed; what the connector
  // showed them (a QR code, a session of its service) cannot be carried to another worker.
  const onStop = () =>
    void finish(
      stop.reason === 'cancelled'
        ? undefined
        : { status: 'failed', errorMessage: 'the worker running it stopped: start the authentication again' },
    );
  stop.addEventListener('abort', onStop, { once: true });
  void sandbox.ended.then((why) => {
    if (why === null) return void finish();
    void finish({
      status: /ran longer than/.test(why.message) ? 'timeout' : 'failed',
      errorMessage: why.message,
    });
  });

  /** Answers `awaitSignal` with the signal once posted, or refuses it at its timeout. */
  const awaitSignal = async (message: Extract<ChildMessage, { type: 'await' }>) => {
    const until = message.timeoutMs === null ? Number.POSITIVE_INFINITY : Date.now() + message.timeoutMs;
    let wake: (() => void) | null = null;
    const unsubscribe = hub.subscribe(run.id, () => wake?.());
    try {
      while (!over) {
        const value = await held((client) =>
          takeSignal(client, deps.encryptionKey, { orgId: scope.orgId, runId: run.id, name: message.name }),
        );
        if (value) {
          stringsOf(value, secrets);
          sandbox.send({ type: 'signal', seq: message.seq, value });
          return;
        }
        const left = until - Date.now();
        if (left <= 0) {
          sandbox.send({
            type: 'nack',
            seq: message.seq,
            error: `no signal "${message.name}" came within ${message.timeoutMs} ms`,
          });
          return;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(SIGNAL_POLL_MS, left));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    } catch (error) {
      lost(error);
    } finally {
      unsubscribe();
    }
  };

  const handle = async (raw: unknown) => {
    if (over) return;
    const message = parseChildMessage(raw, null);
    if (message instanceof Error) {
      await finish({ status: 'failed', errorMessage: message.message });
      return;
    }
    try {
      switch (message.type) {
        case 'log':
          logs.add(message.entry);
          return;
        case 'artifact':
          if (++artifacts > MAX_ARTIFACTS) {
            await finish({
              status: 'failed',
              errorMessage: `the connector emitted more than ${MAX_ARTIFACTS} artifacts: an auth run shows a few, each replacing the last`,
            });
            return;
          }
          await held(async (client) => {
            await client.query(
              `INSERT INTO auth_run_events (run_id, seq, type, data)
               SELECT $1, coalesce(max(seq), 0) + 1, 'artifact', $2 FROM auth_run_events WHERE run_id = $1`,
              [run.id, JSON.stringify(message.artifact)],
            );
            await client.query(`SELECT pg_notify('${AUTH_RUNS_CHANNEL}', $1)`, [run.id]);
          });
          sandbox.send({ type: 'ack', seq: message.seq });
          return;
        case 'await':
          // Not awaited: artifacts and log lines go on arriving while the connector waits.
          void awaitSignal(message);
          return;
        case 'authenticated': {
          const { credentials, metadata } = message.result;
          stringsOf(credentials, secrets);
          const accountId = typeof metadata?.account_id === 'string' ? metadata.account_id : null;
          const displayName = typeof metadata?.display_name === 'string' ? metadata.display_name : null;
          logs.add(
            serverLine('info', 'authenticated: the credentials are kept on the connection', {
              ...(accountId ? { accountId } : {}),
            }),
          );
          if (over) return;
          await held(async (client) => {
            await storeCredentials(client, deps.encryptionKey, {
              orgId: scope.orgId,
              connectionId: scope.connectionId,
              definition: scope.definition,
              method: 'interactive',
              credentials,
              accountId,
              displayName,
            });
            await endRun(client, run, { status: 'completed' });
          });
          await finish();
          return;
        }
        case 'failed':
          await finish({
            status: 'failed',
            errorMessage: String(message.error || 'the connector failed without saying why'),
          });
          return;
        default:
          await finish({
            status: 'failed',
            errorMessage: `the connector's process sent a "${message.type}" message, which an auth run does not take`,
          });
      }
    } catch (error) {
      lost(error);
    }
  };

  let artifacts = 0;
  let chain = Promise.resolve();
  const unsubscribe = sandbox.onMessage((raw) => {
    chain = chain.then(() => handle(raw));
  });
  try {
    if (!stop.aborted) sandbox.send(task);
    else void finish();
    await done;
    await chain;
  } finally {
    clearTimeout(deadline);
    stop.removeEventListener('abort', onStop);
    unsubscribe();
  }
}
