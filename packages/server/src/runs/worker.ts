import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import { createSandboxPool, type SandboxLimits, type SandboxOptions } from '../connectors/sandbox.js';
import { listenToChannels } from '../db/notifications.js';
import { startWorkLoop, type WorkLoop } from '../db/work-loop.js';
import { parseEgressAllow } from '../egress/policy.js';
import { oauthFetch } from '../oauth/egress.js';
import { renewExpiringTokens } from '../oauth/refresh.js';
import { positiveInteger } from '../ops/settings.js';
import type { SecretResolver } from '../secrets/resolve.js';
import { executeRun, type StopReason } from './execute.js';
import type { RunMetrics } from './metrics.js';
import {
  type ClaimedRun,
  claimRun,
  handBackRun,
  heartbeat,
  pruneEndedRuns,
  RUN_CANCEL_CHANNEL,
  RUNS_CHANNEL,
  reapLapsedRuns,
  scheduleDueFeeds,
} from './queue.js';

export interface RunWorkerOptions {
  pool: Pool;
  /** Opens the connections' credentials. */
  encryptionKey: Buffer;
  /** Resolves the OAuth clients' ids and secrets (org secrets) when a token is renewed. */
  secrets: SecretResolver;
  log: FastifyBaseLogger;
  /** Runs this process executes at once, each in a child process of its own. */
  concurrency?: number;
  /** How long a claim holds without a heartbeat (renewed every third of it). */
  leaseMs?: number;
  /**
   * A run's time and memory limits, and what its child may reach (SVC_EGRESS_ALLOW) and whether
   * posted source may run outside the OS sandbox.
   */
  limits?: SandboxOptions;
  pollMs?: number;
  /** How often this process looks for due feeds and reaps lapsed runs. */
  scheduleMs?: number;
  /** After a cancel, how long a connector has to stop before it is killed. */
  cancelGraceMs?: number;
  metrics?: RunMetrics;
  /** Days an ended run (and its log) is kept; 0 keeps them all. */
  retentionDays?: number;
}

/**
 * Runs one process executes at once unless told otherwise (SVC_RUN_CONCURRENCY). A run waiting on
 * the network holds no database connection (it writes when its child sends something), so what
 * bounds this is the children: each is a process of its own, about 75 MB resident at rest and at
 * most SVC_RUN_MEMORY_MB + 256 MB of data (its rlimit). 8 at once: about 600 MB when all are busy.
 */
export const DEFAULT_RUN_CONCURRENCY = 8;

export const DEFAULT_RUN_LIMITS: SandboxLimits = { timeoutMs: 15 * 60_000, memoryMb: 512 };

export const DEFAULT_RUN_RETENTION_DAYS = 30;

/**
 * SVC_CONNECTOR_SOURCE_INSTALLS: `on` lets org admins install posted source, which runs only in
 * the OS sandbox; `unsandboxed` also runs it on a host without bubblewrap (a developer's machine:
 * that code then reaches the host's files and processes); anything else, bundled connectors only.
 */
export function sourceInstalls(env: Record<string, string | undefined>): 'off' | 'on' | 'unsandboxed' {
  const value = (env.SVC_CONNECTOR_SOURCE_INSTALLS ?? '').trim().toLowerCase();
  if (value === 'unsandboxed') return 'unsandboxed';
  return ['1', 'on', 'true'].includes(value) ? 'on' : 'off';
}
/** How often a process deletes runs past their retention (each replica; they skip each other's). */
const PRUNE_EVERY_MS = 3_600_000;

/**
 * What an operator sets in the environment: SVC_RUN_CONCURRENCY (0: none), SVC_RUN_LEASE_MS,
 * SVC_RUN_TIMEOUT_MS, SVC_RUN_MEMORY_MB, SVC_RUN_RETENTION_DAYS (0: keep every run), and what
 * connector code may reach and run in: SVC_EGRESS_ALLOW, SVC_CONNECTOR_SOURCE_INSTALLS.
 */
export function runWorkerSettings(
  env: Record<string, string | undefined>,
): Pick<RunWorkerOptions, 'concurrency' | 'leaseMs' | 'limits' | 'retentionDays'> {
  const concurrency =
    env.SVC_RUN_CONCURRENCY === '0' ? 0 : positiveInteger('SVC_RUN_CONCURRENCY', env.SVC_RUN_CONCURRENCY);
  const leaseMs = positiveInteger('SVC_RUN_LEASE_MS', env.SVC_RUN_LEASE_MS);
  const retentionDays =
    env.SVC_RUN_RETENTION_DAYS === '0'
      ? 0
      : positiveInteger('SVC_RUN_RETENTION_DAYS', env.SVC_RUN_RETENTION_DAYS);
  return {
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(leaseMs !== undefined ? { leaseMs } : {}),
    ...(retentionDays !== undefined ? { retentionDays } : {}),
    limits: {
      timeoutMs:
        positiveInteger('SVC_RUN_TIMEOUT_MS', env.SVC_RUN_TIMEOUT_MS) ?? DEFAULT_RUN_LIMITS.timeoutMs,
      memoryMb: positiveInteger('SVC_RUN_MEMORY_MB', env.SVC_RUN_MEMORY_MB) ?? DEFAULT_RUN_LIMITS.memoryMb,
      egress: parseEgressAllow(env.SVC_EGRESS_ALLOW),
      unsandboxedSource: sourceInstalls(env) === 'unsandboxed',
    },
  };
}

export interface RunWorkers {
  readonly running: number;
  /** Stops claiming; the runs under way are stopped and left to the reaper after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Connector runs in one process: due feeds scheduled, runs claimed under leases, each executed in
 * a sandboxed child, heartbeated, and reaped when a worker stops renewing. Any number of
 * processes may run these on one database and any of them may die at any line.
 */
export async function startRunWorkers(options: RunWorkerOptions): Promise<RunWorkers> {
  const leaseMs = options.leaseMs ?? 30_000;
  const concurrency = options.concurrency ?? DEFAULT_RUN_CONCURRENCY;
  const workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const running = new Map<string, { run: ClaimedRun; stop: AbortController; done: Promise<void> }>();
  const sandboxes = createSandboxPool(options.limits ?? DEFAULT_RUN_LIMITS);
  const oauthEgress = oauthFetch(options.limits?.egress ?? parseEgressAllow(undefined));
  const deps = {
    pool: options.pool,
    encryptionKey: options.encryptionKey,
    oauth: {
      pool: options.pool,
      encryptionKey: options.encryptionKey,
      secrets: options.secrets,
      fetch: oauthEgress.fetch,
    },
    sandboxes,
    log: options.log,
    ...(options.cancelGraceMs !== undefined ? { cancelGraceMs: options.cancelGraceMs } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  };
  let closing = false;
  let loop: WorkLoop | null = null;
  const stopRun = (runId: string, reason: StopReason) => {
    const entry = running.get(runId);
    if (entry && !entry.stop.signal.aborted) entry.stop.abort(reason);
  };

  const start = (run: ClaimedRun) => {
    const stop = new AbortController();
    let renewed = Date.now();
    const beat = setInterval(() => {
      heartbeat(options.pool, run, leaseMs)
        .then(async (held) => {
          if (held) {
            renewed = Date.now();
            return;
          }
          const { rows } = await options.pool.query<{ status: string }>(
            'SELECT status FROM runs WHERE id = $1',
            [run.id],
          );
          stopRun(run.id, rows[0]?.status === 'cancelled' ? 'cancelled' : 'lease_lost');
        })
        .catch((error) => {
          options.log.warn({ err: error, runId: run.id }, 'could not renew a run lease');
          // After a whole lease without a renewal, another worker may already hold the run.
          if (Date.now() - renewed > leaseMs) stopRun(run.id, 'lease_lost');
        });
    }, leaseMs / 3);
    const started = Date.now();
    const done = executeRun(deps, run, stop.signal)
      .then(() => record(run, started))
      .catch((error) =>
        // Left to the reaper: the lease lapses and the run times out; a sync's feed retries later.
        options.log.error({ err: error, runId: run.id }, 'a run failed unexpectedly'),
      )
      .finally(() => {
        clearInterval(beat);
        running.delete(run.id);
        loop?.wake();
      });
    running.set(run.id, { run, stop, done });
  };

  /** The run's end as this worker left it: its status, or `lost` when it was no longer this worker's. */
  const record = async (run: ClaimedRun, started: number) => {
    if (!options.metrics) return;
    const { rows } = await options.pool.query<{ status: string; lease_token: string }>(
      'SELECT status, lease_token FROM runs WHERE id = $1',
      [run.id],
    );
    const row = rows[0];
    const mine = row && Number(row.lease_token) === run.leaseToken && row.status !== 'running';
    options.metrics.ended(run.runType, mine ? row.status : 'lost', (Date.now() - started) / 1000);
  };

  const fill = async () => {
    sandboxes.warm();
    while (!closing && running.size < concurrency) {
      const run = await claimRun(options.pool, workerId, leaseMs);
      if (!run) return;
      start(run);
    }
  };
  // A cancel through the API reaches the run at once, not at its next heartbeat.
  const cancels = await listenToChannels(options.pool, options.log, {
    channels: [RUN_CANCEL_CHANNEL],
    what: 'cancelled runs',
    onNotification: (_channel, runId) => stopRun(runId, 'cancelled'),
  });
  loop = await startWorkLoop({
    pool: options.pool,
    log: options.log,
    channel: RUNS_CHANNEL,
    what: 'connector runs',
    pollMs: options.pollMs ?? 1000,
    fill,
  });
  // Replicas schedule and reap at different moments; either is safe on all of them at once.
  let renewing = false;
  const every = (options.scheduleMs ?? Math.min(5000, leaseMs / 2)) * (0.75 + Math.random() / 2);
  const chores = setInterval(() => {
    scheduleDueFeeds(options.pool)
      .then((scheduled) => {
        if (scheduled > 0) loop?.wake();
      })
      .catch((error) => options.log.warn({ err: error }, 'could not schedule due feeds'));
    reapLapsedRuns(options.pool).catch((error) =>
      options.log.warn({ err: error }, 'could not reap lapsed runs'),
    );
    // One pass at a time: a slow provider must not stack passes that each hold a connection.
    if (!renewing) {
      renewing = true;
      renewExpiringTokens(deps.oauth)
        .catch((error) => options.log.warn({ err: error }, 'could not renew OAuth tokens due'))
        .finally(() => {
          renewing = false;
        });
    }
  }, every);
  // Ended runs past their retention: a minute after start, then hourly. Without an index on
  // completed_at (every finish would pay for it), so not often.
  const retentionDays = options.retentionDays ?? DEFAULT_RUN_RETENTION_DAYS;
  // In batches, until none is left or for at most half a minute: a deployment of minute-interval
  // feeds ends 1,440 runs a day each.
  const prune = async () => {
    const until = Date.now() + 30_000;
    try {
      while (!closing && Date.now() < until && (await pruneEndedRuns(options.pool, retentionDays)) > 0) {}
    } catch (error) {
      options.log.warn({ err: error }, 'could not delete runs past their retention');
    }
  };
  const firstPrune = retentionDays > 0 ? setTimeout(() => void prune(), 60_000) : undefined;
  const pruning = retentionDays > 0 ? setInterval(() => void prune(), PRUNE_EVERY_MS) : undefined;

  return {
    get running() {
      return running.size;
    },
    async close(graceMs = 10_000) {
      closing = true;
      clearInterval(chores);
      clearTimeout(firstPrune);
      clearInterval(pruning);
      await loop?.close();
      await cancels.close();
      const all = () => Promise.all([...running.values()].map((r) => r.done));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      // What is still running is stopped; a sync goes back to the queue (another worker resumes it
      // from its last committed checkpoint), an action is left to time out rather than run twice.
      const left = [...running.values()].map(({ run }) => run);
      for (const run of left) stopRun(run.id, 'lease_lost');
      await all();
      sandboxes.close();
      await oauthEgress.close();
      await Promise.all(
        left
          .filter((run) => run.runType === 'sync')
          .map((run) =>
            handBackRun(options.pool, run).catch(() => {
              // Already lapsed or cancelled: nothing to hand back.
            }),
          ),
      );
    },
  };
}
