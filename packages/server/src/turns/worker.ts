import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { startWorkLoop, type WorkLoop } from '../db/work-loop.js';
import { createEgressClient } from '../egress/client.js';
import type { DeploymentEgress } from '../egress/deployment.js';
import { positiveInteger } from '../ops/settings.js';
import { type DeliveryWorkerOptions, startDeliveryWorkers } from '../outbox/worker.js';
import {
  DEFAULT_WATCHER_SETTLE_MS,
  type WatcherSchedulerOptions,
  watcherPass,
} from '../watchers/scheduler.js';
import { expireApprovals } from './approvals.js';
import { createEventWriter } from './event-writer.js';
import { WORK_CHANNEL } from './events.js';
import { claimTurns, extendLeases, handBack, reapLapsedTurns } from './queue.js';
import { runTurn, type TurnDeps } from './run.js';
import { type ClaimedTurn, LeaseLostError } from './turn.js';

export { DEFAULT_TURN_CONCURRENCY } from '@svc/core';

/** Messages one claim statement takes at most: a short statement, however much room there is. */
const CLAIM_BATCH = 100;

export interface TurnWorkerOptions extends Omit<TurnDeps, 'egress' | 'events'> {
  /** SVC_EGRESS_ALLOW and SVC_MCP_COMMANDS: where the agents' tools may be reached and run. */
  egress: DeploymentEgress;
  /** Turns this process runs at once (DEFAULT_TURN_CONCURRENCY in @svc/core unless told). */
  concurrency: number;
  /** Deltas are stored and sent at most this often, coalesced (default 50 ms). */
  deltaIntervalMs?: number;
  /** How long a claim holds without a heartbeat (renewed every third of it). */
  leaseMs?: number;
  /** Starts of one turn before the reaper fails it for good. */
  maxAttempts?: number;
  /** How often idle workers look for work even when no notification came. */
  pollMs?: number;
  /** How often this process reaps lapsed leases. */
  reapMs?: number;
  /**
   * The watcher scheduler (windows made, started and settled): on unless false. Its settle delay
   * is SVC_WATCHER_SETTLE_MS unless given.
   */
  watchers?: WatcherSchedulerOptions | false;
  /** The outbox's workers, which deliver replies to chat platforms: on unless false. */
  deliveries?: Omit<DeliveryWorkerOptions, 'pool' | 'secrets' | 'env' | 'log' | 'metrics'> | false;
}

export interface TurnWorkers {
  /** Turns running now, for metrics and tests. */
  readonly running: number;
  /**
   * Stops claiming, lets running turns finish for up to `graceMs`, then stops the rest and hands
   * them back to the queue for another worker.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Agent-turn workers of one process. Work is found by polling (a floor of `pollMs`) and woken by
 * NOTIFY; every claim is leased, heartbeated and fenced (queue.ts), so any number of processes may
 * run these on one database and any of them may die at any line.
 */
export async function startTurnWorkers(options: TurnWorkerOptions): Promise<TurnWorkers> {
  const leaseMs = options.leaseMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 3;
  const workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const running = new Map<string, { turn: ClaimedTurn; stop: AbortController; done: Promise<void> }>();
  // One guarded client per process for the tools' outbound calls (MCP servers that orgs name).
  const egressClient = createEgressClient({ policy: options.egress.policy });
  const events = createEventWriter({
    pool: options.pool,
    log: options.log,
    ...(options.deltaIntervalMs !== undefined ? { intervalMs: options.deltaIntervalMs } : {}),
    onLost: (turn) => stopTurn(turn),
  });
  const deps: TurnDeps = { ...options, events, egress: { ...options.egress, fetch: egressClient.fetch } };
  let closing = false;
  // Set once listening; a turn ends (and wakes it) only after that.
  let loop: WorkLoop | null = null;
  const wake = () => loop?.wake();
  // A message claimed again is another turn (another lease token): only the turn named is stopped.
  const stopTurn = (turn: ClaimedTurn) => {
    const entry = running.get(turn.id);
    if (entry?.turn.leaseToken === turn.leaseToken) entry.stop.abort(new LeaseLostError(turn.id));
  };

  // One statement renews every lease this process holds. A worker that cannot renew a lease stops
  // that turn rather than run on without it: after a whole lease without a renewal, another worker
  // may already have taken the turn up.
  let renewed = Date.now();
  const heartbeat = setInterval(() => {
    const turns = [...running.values()].map((r) => r.turn);
    extendLeases(options.pool, turns, leaseMs)
      .then((held) => {
        renewed = Date.now();
        for (const turn of turns) if (!held.has(turn.id)) stopTurn(turn);
      })
      .catch((error) => {
        options.log.warn({ err: error }, 'could not renew the leases of running turns');
        if (Date.now() - renewed > leaseMs) {
          for (const turn of turns) stopTurn(turn);
        }
      });
  }, leaseMs / 3);

  const run = (turn: ClaimedTurn) => {
    const stop = new AbortController();
    const done = runTurn(deps, turn, stop.signal)
      .catch((error) => {
        if (error instanceof LeaseLostError || stop.signal.aborted) {
          options.log.info({ messageId: turn.id }, 'stopped a turn this worker no longer holds');
        } else {
          // Left to the reaper: the lease lapses and the turn is retried (bounded attempts).
          options.log.error({ err: error, messageId: turn.id }, 'a turn failed unexpectedly');
        }
      })
      // What a stopped turn streamed last is written while its lease holds (a turn that ended
      // settled already), then forgotten.
      .then(() => events.settle(turn).catch(() => {}))
      .finally(() => {
        events.forget(turn);
        if (running.get(turn.id)?.turn === turn) running.delete(turn.id);
        wake();
      });
    running.set(turn.id, { turn, stop, done });
  };

  const fill = async () => {
    while (!closing && running.size < options.concurrency) {
      const room = Math.min(options.concurrency - running.size, CLAIM_BATCH);
      const turns = await claimTurns(options.pool, workerId, leaseMs, room);
      if (turns === 'contended') continue; // another worker took one of those conversations: look again
      for (const turn of turns) run(turn);
      if (turns.length < room) return;
    }
  };
  loop = await startWorkLoop({
    pool: options.pool,
    log: options.log,
    channel: WORK_CHANNEL,
    what: 'queued messages',
    pollMs: options.pollMs ?? 1000,
    fill,
  });
  let watching = false;
  const watcherOptions: WatcherSchedulerOptions = {
    ...(options.watchers || {}),
    settleMs:
      (options.watchers || {}).settleMs ??
      positiveInteger('SVC_WATCHER_SETTLE_MS', options.env.SVC_WATCHER_SETTLE_MS) ??
      DEFAULT_WATCHER_SETTLE_MS,
  };
  // Replicas reap at different moments, so that one lapsed lease is not raced for by all of them.
  const reapEvery = (options.reapMs ?? Math.min(5000, leaseMs / 2)) * (0.75 + Math.random() / 2);
  const reaper = setInterval(() => {
    expireApprovals(options.pool).catch((error) =>
      options.log.warn({ err: error }, 'could not expire undecided approvals'),
    );
    reapLapsedTurns(options.pool, maxAttempts)
      .then(({ requeued, failed }) => {
        if (failed > 0) options.metrics?.abandoned(failed);
        if (requeued > 0) wake();
      })
      .catch((error) => options.log.warn({ err: error }, 'could not reap lapsed turns'));
    // One pass at a time: a pass that reads many events must not stack up behind itself.
    if (options.watchers !== false && !watching) {
      watching = true;
      watcherPass(options.pool, options.env, watcherOptions)
        .then(({ started }) => {
          if (started > 0) wake();
        })
        .catch((error) => options.log.warn({ err: error }, 'could not schedule watchers'))
        .finally(() => {
          watching = false;
        });
    }
  }, reapEvery);
  // A process that runs turns delivers their replies too.
  const deliveries =
    options.deliveries === false
      ? null
      : await startDeliveryWorkers({
          ...options.deliveries,
          pool: options.pool,
          secrets: options.secrets,
          env: options.env,
          log: options.log,
          ...(options.metrics ? { metrics: options.metrics } : {}),
        });

  return {
    get running() {
      return running.size;
    },
    async close(graceMs = 10_000) {
      closing = true;
      clearInterval(reaper);
      await loop?.close();
      const delivering = deliveries?.close();
      const all = () => Promise.all([...running.values()].map((r) => r.done));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      const left = [...running.values()];
      for (const { stop } of left) stop.abort();
      await all();
      await events.close();
      clearInterval(heartbeat);
      await Promise.all(
        left.map(({ turn }) =>
          handBack(options.pool, turn).catch((error) => {
            if (!(error instanceof LeaseLostError)) {
              options.log.warn(
                { err: error, messageId: turn.id },
                'could not hand a turn back; the reaper will',
              );
            }
          }),
        ),
      );
      await delivering;
    },
  };
}
