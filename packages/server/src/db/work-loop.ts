import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import { listenToChannels } from './notifications.js';

export interface WorkLoop {
  /** Look for work now (a worker freed up, a reaper put some back). */
  wake(): void;
  /** Stops looking: no fill starts after this; the one under way is awaited. */
  close(): Promise<void>;
}

/**
 * What wakes a process's workers: a NOTIFY on `channel`, a poll every `pollMs` (a notification is
 * only a hint; one lost while the listener reconnects costs a poll, never the work), and `wake()`.
 * `fill` claims work until it has none or no room; one fill runs at a time, and a wake-up during
 * one runs another right after it, so that no notification is dropped between a claim and its end.
 */
export async function startWorkLoop(options: {
  pool: Pool;
  log: FastifyBaseLogger;
  channel: string;
  /** What is listened for, for log lines: "queued messages". */
  what: string;
  pollMs: number;
  fill(): Promise<void>;
}): Promise<WorkLoop> {
  let closing = false;
  let filling: Promise<void> | null = null;
  let again = false;
  function wake(): void {
    if (closing) return;
    if (filling) {
      again = true;
      return;
    }
    filling = options
      .fill()
      .catch((error) => options.log.warn({ err: error }, `could not look for ${options.what}`))
      .finally(() => {
        filling = null;
        if (again) {
          again = false;
          wake();
        }
      });
  }
  const listener = await listenToChannels(options.pool, options.log, {
    channels: [options.channel],
    what: options.what,
    onNotification: () => wake(),
    onStateChange: (listening) => {
      if (listening) wake();
    },
  });
  const poll = setInterval(wake, options.pollMs);
  wake();
  return {
    wake,
    async close() {
      closing = true;
      clearInterval(poll);
      await listener.close();
      await filling;
    },
  };
}
