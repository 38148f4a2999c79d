/**
 * An auth run's events (`auth_run_events`: its artifacts and statuses, numbered from 1) as
 * Server-Sent Events, from any replica: the stream subscribes first, then reads from the database
 * after the last id it sent whenever woken (NOTIFY `svc_auth_runs`, from the worker's writes and
 * from the run's status trigger), so nothing between the backlog and live events is skipped and no
 * event is sent twice. A look every few seconds covers a notification never sent. It ends after
 * the run's final status.
 */
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { Pool } from 'pg';
import { type ChannelListener, listenToChannels } from '../db/notifications.js';
import { openEventStream } from '../http/event-stream.js';
import { AUTH_RUNS_CHANNEL } from './signals.js';

export const FINAL_STATUSES = new Set(['completed', 'failed', 'cancelled', 'timeout']);

export interface AuthRunEvent {
  seq: number;
  type: 'artifact' | 'status';
  data: Record<string, unknown>;
}

/** What an event's `data:` holds: `{seq, artifact}` or `{seq, status, errorMessage}`. */
export const eventData = (event: AuthRunEvent) =>
  event.type === 'artifact' ? { seq: event.seq, artifact: event.data } : { seq: event.seq, ...event.data };

const frame = (event: AuthRunEvent) =>
  `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(eventData(event))}\n\n`;

const READ_LIMIT = 200;

export async function authRunEventsAfter(
  pool: Pool,
  runId: string,
  after: number,
  limit = READ_LIMIT,
): Promise<AuthRunEvent[]> {
  const { rows } = await pool.query<AuthRunEvent>(
    'SELECT seq, type, data FROM auth_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
    [runId, after, limit],
  );
  return rows;
}

export interface AuthRunStreams {
  /** `authorized`: whether the caller may still read (asked before each read and each ping). */
  open(reply: FastifyReply, runId: string, after: number, authorized: () => Promise<boolean>): void;
  endAll(): void;
  close(): Promise<void>;
}

export async function createAuthRunStreams(
  pool: Pool,
  log: FastifyBaseLogger,
  timings: { pingMs?: number; pollMs?: number } = {},
): Promise<AuthRunStreams> {
  const readers = new Map<string, Set<() => void>>();
  const wakeAll = () => {
    for (const set of readers.values()) for (const wake of set) wake();
  };
  let listener: ChannelListener | null = null;
  let listening: Promise<ChannelListener> | null = null;
  // Opened with the first stream: a replica nobody follows an auth run on holds no connection for it.
  const listen = () => {
    listening ??= listenToChannels(pool, log, {
      channels: [AUTH_RUNS_CHANNEL],
      what: 'auth run events',
      onNotification: (_channel, runId) => {
        for (const wake of readers.get(runId) ?? []) wake();
      },
      onStateChange: (up) => {
        if (up) wakeAll();
      },
    }).then((opened) => {
      listener = opened;
      return opened;
    });
    listening.catch(() => {
      listening = null;
    });
  };
  const ends = new Set<() => void>();
  const pingMs = timings.pingMs ?? 15_000;
  const pollMs = timings.pollMs ?? 2000;

  return {
    open(reply, runId, after, authorized) {
      listen();
      const res = openEventStream(reply);
      let last = after;
      let ended = false;
      let reading = false;
      let again = false;
      const read = async () => {
        if (ended) return;
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          do {
            again = false;
            // Nothing more for a caller whose token was revoked or whose session ended.
            if (!(await authorized())) return end();
            const events = await authRunEventsAfter(pool, runId, last);
            if (ended) return;
            if (events.length > 0) {
              last = (events.at(-1) as AuthRunEvent).seq;
              const written = res.write(events.map(frame).join(''));
              const final = events.some(
                (event) => event.type === 'status' && FINAL_STATUSES.has(String(event.data.status)),
              );
              if (final) return end();
              if (events.length === READ_LIMIT) again = true;
              if (!written) {
                // Read on once the client has read this.
                res.once('drain', () => void read());
                return;
              }
            } else {
              // Resumed after the last event of a run that ended: nothing more will come.
              const { rows } = await pool.query<{ status: string }>('SELECT status FROM runs WHERE id = $1', [
                runId,
              ]);
              const status = rows[0]?.status;
              if (status === undefined || FINAL_STATUSES.has(status)) {
                const more = await authRunEventsAfter(pool, runId, last, 1);
                if (more.length === 0) return end();
                again = true;
              }
            }
          } while (again && !ended);
        } catch {
          // The database is away: the next poll tries again.
        } finally {
          reading = false;
        }
      };
      const set = readers.get(runId) ?? new Set();
      readers.set(runId, set);
      const wake = () => void read();
      set.add(wake);
      const ping = setInterval(
        () => void authorized().then((ok) => (ok ? res.write(': ping\n\n') : end())),
        pingMs,
      );
      const poll = setInterval(wake, listener?.listening ? pollMs * 5 : pollMs);
      const end = () => {
        if (ended) return;
        ended = true;
        set.delete(wake);
        if (set.size === 0) readers.delete(runId);
        clearInterval(ping);
        clearInterval(poll);
        ends.delete(end);
        res.end();
      };
      ends.add(end);
      res.on('close', end);
      void read();
    },
    endAll() {
      for (const end of [...ends]) end();
    },
    async close() {
      for (const end of [...ends]) end();
      const opened = await listening?.catch(() => null);
      await opened?.close();
    },
  };
}
