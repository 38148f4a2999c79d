/**
 * Signals of auth runs (what the UI posts for a connector's `awaitSignal`): kept sealed in
 * `auth_run_signals` until the worker running the run takes them, whichever replica the UI
 * reached. The poster NOTIFYs `svc_auth_signals` with the run's id; the worker LISTENs (one
 * connection per process, open while it runs auth runs) and also looks every few seconds, so a
 * lost notification costs a moment, never a signal.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Pool, PoolClient } from 'pg';
import { type ChannelListener, listenToChannels } from '../db/notifications.js';
import { seal, unseal } from '../secrets/cipher.js';

export const AUTH_SIGNALS_CHANNEL = 'svc_auth_signals';
/** NOTIFY channel of auth runs' event streams (payload: the run's id); sent by 019_auth_runs.sql's trigger too. */
export const AUTH_RUNS_CHANNEL = 'svc_auth_runs';

/** Binds a sealed signal to its org, run and name: copied into another row, it does not open. */
export const signalContext = (orgId: string, runId: string, name: string) =>
  `auth_signal:${orgId}:${runId}:${name}`;

/** Keeps a posted signal (replacing one of that name not yet taken) and wakes the run's worker. */
export async function storeSignal(
  client: PoolClient,
  key: Buffer,
  input: { orgId: string; runId: string; name: string; value: Record<string, unknown> },
): Promise<void> {
  await client.query(
    `INSERT INTO auth_run_signals (run_id, name, value) VALUES ($1, $2, $3)
     ON CONFLICT (run_id, name) DO UPDATE SET value = EXCLUDED.value, created_at = now()`,
    [
      input.runId,
      input.name,
      seal(key, JSON.stringify(input.value), signalContext(input.orgId, input.runId, input.name)),
    ],
  );
  await client.query(`SELECT pg_notify('${AUTH_SIGNALS_CHANNEL}', $1)`, [input.runId]);
}

/** Takes (reads and deletes, in the caller's transaction) the signal `name` of the run, or null. */
export async function takeSignal(
  client: PoolClient,
  key: Buffer,
  input: { orgId: string; runId: string; name: string },
): Promise<Record<string, unknown> | null> {
  const { rows } = await client.query<{ value: Buffer }>(
    'DELETE FROM auth_run_signals WHERE run_id = $1 AND name = $2 RETURNING value',
    [input.runId, input.name],
  );
  const row = rows[0];
  if (!row) return null;
  return JSON.parse(unseal(key, row.value, signalContext(input.orgId, input.runId, input.name))) as Record<
    string,
    unknown
  >;
}

/** Wakes the waiters of a run when a signal is posted for it, on any replica. */
interface SignalHub {
  subscribe(runId: string, wake: () => void): () => void;
}

const hubs = new WeakMap<Pool, { hub: SignalHub; users: number; listener: Promise<ChannelListener> }>();

/**
 * The process's signal listener on `pool`, opened by its first user and closed after its last
 * (`release`): a worker that runs no auth run holds no connection for it.
 */
export function useSignalHub(pool: Pool, log: FastifyBaseLogger): { hub: SignalHub; release(): void } {
  let entry = hubs.get(pool);
  if (!entry) {
    const waiters = new Map<string, Set<() => void>>();
    const wakeAll = () => {
      for (const set of waiters.values()) for (const wake of set) wake();
    };
    const listener = listenToChannels(pool, log, {
      channels: [AUTH_SIGNALS_CHANNEL],
      what: 'auth run signals',
      onNotification: (_channel, runId) => {
        for (const wake of waiters.get(runId) ?? []) wake();
      },
      onStateChange: (listening) => {
        if (listening) wakeAll();
      },
    });
    listener.catch(() => {});
    const hub: SignalHub = {
      subscribe(runId, wake) {
        const set = waiters.get(runId) ?? new Set();
        waiters.set(runId, set);
        set.add(wake);
        return () => {
          set.delete(wake);
          if (set.size === 0) waiters.delete(runId);
        };
      },
    };
    entry = { hub, users: 0, listener };
    hubs.set(pool, entry);
  }
  const held = entry;
  held.users++;
  let released = false;
  return {
    hub: held.hub,
    release() {
      if (released) return;
      released = true;
      held.users--;
      if (held.users === 0) {
        hubs.delete(pool);
        void held.listener.then((l) => l.close()).catch(() => {});
      }
    },
  };
}
