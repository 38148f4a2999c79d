import { dirname } from 'node:path';
import type { EventEnvelope, JsonSchema } from '@svc/connector-sdk';
import type { FastifyBaseLogger } from 'fastify';
import type { Pool, PoolClient } from 'pg';
import { executeAuthRun } from '../auth-runs/execute.js';
import { grantCredentialHosts, ungrantedConfig, urlHosts } from '../connections/grants.js';
import { connectCommands } from '../connections/model.js';
import {
  browserMethodOf,
  captureAgain,
  persistSessionUpdate,
  sessionGrant,
  sessionSecrets,
} from '../connections/session-store.js';
import { parseChildMessage } from '../connectors/child-messages.js';
import type { EgressGrant } from '../connectors/egress-proxy.js';
import type { ChildMessage, ParentMessage, RejectedItem } from '../connectors/protocol.js';
import type { ConnectorCodeError, Sandbox, SandboxPool } from '../connectors/sandbox.js';
import { transaction } from '../db/transaction.js';
import { linkEvents } from '../entities/links.js';
import { storeEvents } from '../events/store.js';
import { freshToken, type OAuthDeps } from '../oauth/refresh.js';
import { createLogBuffer, type LogBuffer, serverLine } from './logs.js';
import type { RunMetrics } from './metrics.js';
import { type ClaimedRun, endRun, RunLeaseLostError, retryWithRenewedToken, whileHeld } from './queue.js';
import { connectorModule, linkRulesByKind, loadRunScope, persistAuthUpdate, type RunScope } from './scope.js';

export interface RunnerDeps {
  pool: Pool;
  encryptionKey: Buffer;
  /** Renews OAuth tokens before they expire and after the service refused one. */
  oauth?: OAuthDeps;
  /** Children for runs, started ahead, each with the run's time and memory limits. */
  sandboxes: SandboxPool;
  log: FastifyBaseLogger;
  /** After a cancel, how long the connector has to stop on its own before it is killed. */
  cancelGraceMs?: number;
  metrics?: RunMetrics;
}

/** Why a run was told to stop: cancelled through the API, or no longer this worker's. */
export type StopReason = 'cancelled' | 'lease_lost';

/** Messages read ahead of the server's writes before the child is made to wait, and to go on. */
const INBOX_HIGH = 64;
const INBOX_LOW = 16;
const INBOX_HIGH_BYTES = 32 * 1024 * 1024;

/** How often pending log lines are written while a run emits nothing. */
const LOG_FLUSH_MS = 1000;

/**
 * Runs one claimed run in a sandboxed child to its end. Every write (a batch of events, a
 * checkpoint, log lines, the end) is one fenced transaction, acknowledged to the child only once
 * committed: a crash at any line loses nothing the connector was told was kept, and a worker whose
 * lease lapsed writes nothing at all.
 */
export async function executeRun(deps: RunnerDeps, run: ClaimedRun, stop: AbortSignal): Promise<void> {
  // Interactive auth (the connector's `authenticate`) speaks a protocol of its own.
  if (run.runType === 'auth') return executeAuthRun(deps, run, stop);
  const scope = await loadRunScope(deps.pool, run, deps.encryptionKey);
  if (!scope) return; // deleted with its connection meanwhile
  // A browser session's cookie values are secrets too: never in the run's log.
  const secrets = [...scope.secrets, ...sessionSecrets(scope.sessionState)];
  const logs = createLogBuffer(secrets);
  try {
    await renewToken(deps, scope, secrets, logs);
  } catch (error) {
    await finish(deps, run, logs, { status: 'failed', errorMessage: messageOf(error) });
    return;
  }
  let module: Awaited<ReturnType<typeof connectorModule>>;
  let sandbox: Sandbox;
  let grant: EgressGrant;
  try {
    grant = await egressGrant(deps, scope);
    module = await connectorModule(scope);
    // Posted source is copied into the child's own slot: the one connector's code it can read.
    const folder = 'file' in module ? dirname(module.file) : null;
    sandbox = await deps.sandboxes.take(scope.connectionId, folder);
    if (folder !== null) module = { ...module, file: await sandbox.load(folder) };
  } catch (error) {
    await finish(deps, run, logs, { status: 'failed', errorMessage: messageOf(error) });
    return;
  }
  sandbox.grant(grant);
  let clean = false;
  try {
    const task: ParentMessage =
      run.runType === 'sync'
        ? {
            task: 'sync',
            module,
            ctx: {
              feedKey: scope.feedKey ?? '',
              config: scope.config,
              checkpoint: scope.checkpoint,
              credentials: scope.credentials,
              entityIds: scope.entityIds,
              sessionState: scope.sessionState,
            },
            eventKinds: eventKindsOf(scope),
            secrets,
          }
        : {
            task: 'execute',
            module,
            ctx: {
              actionKey: scope.actionKey ?? '',
              input: scope.actionInput,
              credentials: scope.credentials,
              config: scope.config,
              sessionState: scope.sessionState,
            },
            secrets,
          };
    sandbox.send(task);
    clean = await converse(deps, run, scope, secrets, logs, sandbox, stop);
  } finally {
    // A child that ended its run as the protocol says serves the connection's next run; any other
    // (stopped, timed out, cancelled, crashed) is killed.
    if (clean) deps.sandboxes.release(scope.connectionId, sandbox);
    else sandbox.stop();
  }
}

/**
 * The run's OAuth token, renewed first when it is close to expiry (or, `refused`, when the service
 * just refused it): `scope` takes the token the run is to use. Throws RefreshFailedError (the
 * connection was moved to `revoked` or `error`, saying to reconnect) rather than run with a token
 * that will not work.
 */
async function renewToken(
  deps: RunnerDeps,
  scope: RunScope,
  /** What the run's log and child keep out of every line: the renewed token joins them. */
  secrets: string[],
  logs: LogBuffer,
  refused?: string,
): Promise<boolean> {
  if (!scope.credentials || !deps.oauth) return false;
  const token = await freshToken(
    deps.oauth,
    {
      orgId: scope.orgId,
      orgSlug: scope.orgSlug,
      connectionId: scope.connectionId,
      definition: scope.definition,
    },
    {
      ...(refused !== undefined ? { refused } : {}),
      warn: (text) => logs.add(serverLine('warn', text)),
    },
  );
  if (!token || token.accessToken === scope.credentials.accessToken) return false;
  const renewed = [token.accessToken, ...(token.refreshToken ? [token.refreshToken] : [])];
  scope.secrets.push(...renewed);
  secrets.push(...renewed);
  scope.credentials = {
    provider: scope.credentials.provider,
    accessToken: token.accessToken,
    refreshToken: token.refreshToken ?? null,
    expiresAt: token.expiresAt ?? null,
    scope: token.scope ?? null,
  };
  logs.add(serverLine('info', 'renewed the OAuth token before the run'));
  return true;
}

/**
 * What the run's child may reach: any host the egress policy allows when the connection holds no
 * credentials; else only the hosts they were granted for (connections/grants.ts), and not at all
 * when the run's config points elsewhere. Credentials set before grants existed are granted for
 * the config of their first run.
 */
async function egressGrant(deps: RunnerDeps, scope: RunScope): Promise<EgressGrant> {
  // A browser session's cookies go to its required domains (and the definition's own hosts) only.
  if (!scope.hasCredentials && scope.sessionState) return sessionGrant(scope);
  if (!scope.hasCredentials) return { hosts: null };
  const granted: string[] =
    scope.grantedHosts ??
    ((await transaction(deps.pool, (client) =>
      grantCredentialHosts(client, scope.connectionId, scope.definition),
    )) as string[]);
  // A credential that is itself a URL (a webhook's, say) is its owner's word on where it goes.
  const hosts = [...granted, ...urlHosts(scope.secrets)];
  const why = ungrantedConfig(hosts, scope.config);
  if (why) throw new Error(why);
  return { hosts: new Set(hosts) };
}

type Next =
  | ChildMessage
  | { type: 'malformed'; why: Error }
  | { type: 'ended'; why: ConnectorCodeError | null }
  | { type: 'stop' }
  | { type: 'tick' };

/**
 * The run's conversation with its child, one message at a time, in the order they were sent. True
 * when it ended as the protocol says (a result or the connector's own failure, committed).
 */
async function converse(
  deps: RunnerDeps,
  run: ClaimedRun,
  scope: RunScope,
  secrets: string[],
  logs: LogBuffer,
  sandbox: Sandbox,
  stop: AbortSignal,
): Promise<boolean> {
  // Messages as they arrived, checked when their turn comes: the child waits (its channel is
  // paused) while more than a few, or a few frames' bytes, are ahead of the server's writes.
  const inbox: { raw: unknown; bytes: number }[] = [];
  let inboxBytes = 0;
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  let ended: ConnectorCodeError | null | undefined;
  const kinds = eventKindsOf(scope);
  let paused = false;
  const unsubscribe = sandbox.onMessage((raw, bytes) => {
    inbox.push({ raw, bytes });
    inboxBytes += bytes;
    if (!paused && (inbox.length >= INBOX_HIGH || inboxBytes >= INBOX_HIGH_BYTES)) {
      paused = true;
      sandbox.pause();
    }
    poke();
  });
  void sandbox.ended.then((why) => {
    ended = why;
    poke();
  });
  let stopSeen = false;
  stop.addEventListener('abort', poke, { once: true });
  let graceTimer: NodeJS.Timeout | undefined;
  const rules = linkRulesByKind(scope);
  let lastFlush = Date.now();

  const next = async (): Promise<Next> => {
    for (;;) {
      const first = inbox.shift();
      if (first) {
        inboxBytes -= first.bytes;
        if (paused && inbox.length <= INBOX_LOW && inboxBytes < INBOX_HIGH_BYTES / 2) {
          paused = false;
          sandbox.resume();
        }
        let message: ChildMessage | Error;
        try {
          message = parseChildMessage(first.raw, kinds);
        } catch (error) {
          message = new Error(
            `the connector's process sent a message the server could not read (${messageOf(error)})`,
          );
        }
        // A message that is not the protocol's ends the run: nothing after it is read.
        return message instanceof Error ? { type: 'malformed', why: message } : message;
      }
      // Messages the child sent before it exited are read before its exit.
      if (ended !== undefined) return { type: 'ended', why: ended };
      if (stop.aborted && !stopSeen) {
        stopSeen = true;
        return { type: 'stop' };
      }
      if (logs.size > 0 && Date.now() - lastFlush >= LOG_FLUSH_MS) return { type: 'tick' };
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, LOG_FLUSH_MS).unref();
      });
    }
  };

  const held = <T>(work: (client: PoolClient) => Promise<T>) => {
    lastFlush = Date.now();
    return whileHeld(deps.pool, run, async (client) => {
      const result = await work(client);
      await logs.flush(client, run.id);
      return result;
    });
  };

  try {
    for (;;) {
      const message = await next();
      switch (message.type) {
        case 'log':
          logs.add(message.entry);
          break;
        case 'tick':
          await held(async () => {});
          break;
        case 'events':
          try {
            await held((client) =>
              storeBatch(client, run, scope, rules, logs, message.events, message.rejected),
            );
            deps.metrics?.items(message.events.length, message.rejected.length);
            sandbox.send({ type: 'ack', seq: message.seq });
          } catch (error) {
            if (error instanceof RunLeaseLostError) throw error;
            sandbox.send({
              type: 'nack',
              seq: message.seq,
              error: `the server could not store the batch: ${messageOf(error)}`,
            });
          }
          break;
        case 'checkpoint':
          await held((client) => saveCheckpoint(client, run, message.checkpoint));
          sandbox.send({ type: 'ack', seq: message.seq });
          break;
        case 'synced':
          await held(async (client) => {
            // The connection's row before the feed's, as a reconnect takes them (no deadlock).
            // A browser connection's rotated cookies replace its session; the rest, its credentials.
            const update = message.auth_update
              ? await persistSessionUpdate(client, deps.encryptionKey, scope, message.auth_update)
              : null;
            if (update?.problem) logs.add(serverLine('warn', update.problem));
            const refused = update?.rest
              ? await persistAuthUpdate(client, deps.encryptionKey, scope, update.rest)
              : null;
            if (refused) logs.add(serverLine('warn', refused));
            await storeBatch(client, run, scope, rules, logs, message.events, message.rejected);
            if (message.checkpoint !== undefined) await saveCheckpoint(client, run, message.checkpoint);
            await endRun(client, run, { status: 'completed' });
          });
          deps.metrics?.items(message.events.length, message.rejected.length);
          return !stop.aborted;
        case 'executed': {
          const { result } = message;
          // A connector without code answers what its upstream said, which may echo the key it was
          // sent (a `next` link with `?api_key=`): kept from read tokens and the model. Code answers
          // for its own output.
          const output =
            result.output && scope.generated
              ? (logs.hideAll(result.output) as Record<string, unknown>)
              : (result.output ?? null);
          await held((client) =>
            endRun(
              client,
              run,
              result.success
                ? { status: 'completed', actionOutput: output }
                : {
                    status: 'failed',
                    errorMessage: logs.hide(
                      result.error ?? 'the action reported a failure without saying why',
                    ),
                    actionOutput: output,
                  },
            ),
          );
          return !stop.aborted;
        }
        case 'failed':
          if (message.credentialsRefused && scope.credentials?.refreshToken && !run.authRetried) {
            // Once: the token is renewed (unless another process did already) and the run queued again.
            try {
              if (await renewToken(deps, scope, secrets, logs, scope.credentials.accessToken)) {
                logs.add(
                  serverLine(
                    'warn',
                    `the service refused the OAuth token (${String(message.error)}); the token was renewed and the run starts again`,
                  ),
                );
                await held(async () => {});
                await retryWithRenewedToken(deps.pool, run);
                return false;
              }
            } catch (error) {
              if (error instanceof RunLeaseLostError) throw error;
              await finish(deps, run, logs, { status: 'failed', errorMessage: messageOf(error) });
              return false;
            }
          }
          await finish(
            deps,
            run,
            logs,
            // From connector code: whatever it sent, a text.
            {
              status: 'failed',
              errorMessage: String(message.error || 'the connector failed without saying why'),
            },
            // A browser session's service may say 403 where a token's says 401.
            message.credentialsRefused || (message.forbidden && sessionOnly(scope)) ? scope : null,
          );
          return !stop.aborted;
        case 'malformed':
          sandbox.stop();
          await finish(deps, run, logs, { status: 'failed', errorMessage: message.why.message });
          return false;
        case 'ended':
          if (message.why === null) return false; // stopped here: a cancel's grace ran out
          await finish(deps, run, logs, {
            status: /ran longer than/.test(message.why.message) ? 'timeout' : 'failed',
            errorMessage: message.why.message,
          });
          return false;
        case 'stop':
          if (stop.reason === 'cancelled') {
            // The connector hears of it (ctx.signal) and may wind down; it is killed after the grace.
            sandbox.send({ type: 'cancel' });
            graceTimer = setTimeout(() => sandbox.stop(), deps.cancelGraceMs ?? 5000);
          } else {
            sandbox.stop();
            return false;
          }
          break;
      }
    }
  } catch (error) {
    if (!(error instanceof RunLeaseLostError)) throw error;
    deps.log.info({ runId: run.id }, 'stopped a run this worker no longer holds (lapsed or cancelled)');
    return false;
  } finally {
    clearTimeout(graceTimer);
    unsubscribe();
    stop.removeEventListener('abort', poke);
  }
}

/** A batch in the caller's transaction: its events, their entity links, and the counts. */
async function storeBatch(
  client: PoolClient,
  run: ClaimedRun,
  scope: RunScope,
  rules: ReturnType<typeof linkRulesByKind>,
  logs: LogBuffer,
  events: EventEnvelope[],
  rejected: RejectedItem[],
): Promise<void> {
  for (const item of rejected) {
    logs.add(serverLine('warn', `event rejected: ${item.reason}`, { origin_id: item.origin_id }));
  }
  const stored =
    events.length > 0 && scope.feedId
      ? await storeEvents(
          client,
          { orgId: scope.orgId, connectionId: scope.connectionId, feedId: scope.feedId, runId: run.id },
          events,
        )
      : { ids: new Map<string, string>(), inserted: 0 };
  if (rules.size > 0) {
    const linked = events.flatMap((envelope) => {
      const kindRules = rules.get(envelope.origin_type ?? envelope.semantic_type ?? '');
      const eventId = stored.ids.get(envelope.origin_id);
      return kindRules && eventId ? [{ eventId, envelope, rules: kindRules }] : [];
    });
    if (linked.length > 0) {
      await linkEvents(client, { orgId: scope.orgId, overrides: scope.overrides, events: linked });
    }
  }
  if (events.length === 0 && rejected.length === 0) return;
  await client.query(
    'UPDATE runs SET items_collected = items_collected + $2, items_rejected = items_rejected + $3 WHERE id = $1',
    [run.id, events.length, rejected.length],
  );
  // The feed counts items it did not have before: a re-sync of the same ones adds nothing.
  if (stored.inserted > 0 && scope.feedId) {
    await client.query('UPDATE feeds SET items_collected = items_collected + $2 WHERE id = $1', [
      scope.feedId,
      stored.inserted,
    ]);
  }
}

async function saveCheckpoint(
  client: PoolClient,
  run: ClaimedRun,
  checkpoint: Record<string, unknown> | null,
) {
  const value = checkpoint === null ? null : JSON.stringify(checkpoint);
  await client.query('UPDATE runs SET checkpoint = $2 WHERE id = $1', [run.id, value]);
  if (run.feedId) {
    await client.query('UPDATE feeds SET checkpoint = $2, updated_at = now() WHERE id = $1', [
      run.feedId,
      value,
    ]);
  }
}

/**
 * Ends the run with what failed, its pending log lines with it; nothing when the lease is gone.
 * When the connector's service refused the credentials (`refused`), the connection goes to `error`
 * with the reason: retrying with the same credentials would only fail again, until a user gives
 * new ones.
 */
async function finish(
  deps: RunnerDeps,
  run: ClaimedRun,
  logs: LogBuffer,
  outcome: { status: 'failed' | 'timeout'; errorMessage: string },
  refused: RunScope | null = null,
): Promise<void> {
  // The message is often the connector's own (an error that echoes a request): it is kept on the
  // run and the connection, which read tokens see, so the run's secrets are taken out as from its log.
  const errorMessage = logs.hide(outcome.errorMessage);
  logs.add(serverLine('error', errorMessage));
  await whileHeld(deps.pool, run, async (client) => {
    await logs.flush(client, run.id);
    await endRun(client, run, { ...outcome, errorMessage });
    if (refused) {
      await client.query(
        `UPDATE connections SET status = 'error', error_message = $2, updated_at = now() WHERE id = $1 AND status = 'active'`,
        [
          refused.connectionId,
          sessionOnly(refused)
            ? `the service refused its browser session (${errorMessage}): ${captureAgain(refused.connectionId)}`
            : `its credentials were refused: ${errorMessage}; connect it again with ${
                connectCommands(refused.definition, refused.connectionId) ??
                'new credentials (PATCH the connection)'
              }`,
        ],
      );
    }
  }).catch((error) => {
    if (!(error instanceof RunLeaseLostError)) throw error;
  });
}

function eventKindsOf(scope: RunScope): Record<string, { metadataSchema?: JsonSchema }> | null {
  const kinds = scope.definition.feeds?.[scope.feedKey ?? '']?.eventKinds;
  if (!kinds || Object.keys(kinds).length === 0) return null;
  return Object.fromEntries(
    Object.entries(kinds).map(([name, kind]) => [
      name,
      kind.metadataSchema ? { metadataSchema: kind.metadataSchema } : {},
    ]),
  );
}

/** A connection whose only credentials are a browser session (connections/session-store.ts). */
const sessionOnly = (scope: RunScope) => browserMethodOf(scope.definition) !== null && !scope.hasCredentials;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
