import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { startWorkLoop, type WorkLoop } from '../db/work-loop.js';
import { createEgressClient } from '../egress/client.js';
import type { DeploymentEgress } from '../egress/deployment.js';
import { type DeliveryWorkerOptions, startDeliveryWorkers } from '../outbox/worker.js';
import { expireApprovals } from './approvals.js';
import { WORK_CHANNEL } from './events.js';
import {
  type ClaimedTurn,
  claimTurn,
  extendLease,
  handBack,
  LeaseLostError,
  reapLapsedTurns,
} from './queue.js';
import { runTurn, type TurnDeps } from './run.js';

/** Turns one process runs at once unless told otherwise (`--concurrency`). */
export const DEFAULT_TURN_CONCURRENCY = 4;

export interface TurnWorkerOptions extends Omit<TurnDeps, 'egress'> {
  /** SVC_EGRESS_ALLOW and SVC_MCP_COMMANDS: where the agents' tools may be reached and run. */
  egress: DeploymentEgress;
  /** Turns this process runs at once. */
  concurrency: number;
  /** How long a claim holds without a heartbeat (renewed every third of it). */
  leaseMs?: number;
  /** Starts of one turn before the reaper fails it for good. */
  maxAttempts?: number;
  /** How often idle workers look for work even when no notification came. */
  pollMs?: number;
  /** How often this process reaps lapsed leases. */
  reapMs?: number;
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
  const deps: TurnDeps = { ...options, egress: { ...options.egress, fetch: egressClient.fetch } };
  let closing = false;
  // Set once listening; a turn ends (and wakes it) only after that.
  let loop: WorkLoop | null = null;
  const wake = () => loop?.wake();

  const run = (turn: ClaimedTurn) => {
    const stop = new AbortController();
    // A worker that cannot renew its lease stops the turn rather than run on without it: after a
    // whole lease without a renewal, another worker may already have taken the turn up.
    let renewed = Date.now();
    const heartbeat = setInterval(() => {
      extendLease(options.pool, turn, leaseMs)
        .then((held) => {
          if (held) renewed = Date.now();
          else stop.abort(new LeaseLostError(turn.id));
        })
        .catch((error) => {
          options.log.warn({ err: error, messageId: turn.id }, 'could not renew a turn lease');
          if (Date.now() - renewed > leaseMs) stop.abort(new LeaseLostError(turn.id));
        });
    }, leaseMs / 3);
    const done = runTurn(deps, turn, stop.signal)
      .catch((error) => {
        if (error instanceof LeaseLostError || stop.signal.aborted) {
          options.log.info({ messageId: turn.id }, 'stopped a turn this worker no longer holds');
        } else {
          // Left to the reaper: the lease lapses and the turn is retried (bounded attempts).
          options.log.error({ err: error, messageId: turn.id }, 'a turn failed unexpectedly');
        }
      })
      .finally(() => {
        clearInterval(heartbeat);
        running.delete(turn.id);
        wake();
      });
    running.set(turn.id, { turn, stop, done });
  };

  const fill = async () => {
    while (!closing && running.size < options.concurrency) {
      const turn = await claimTurn(options.pool, workerId, leaseMs);
      if (turn === 'contended') continue; // another worker took that conversation: look again
      if (!turn) return;
      run(turn);
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
