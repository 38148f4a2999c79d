import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';

export interface ChannelListener {
  /** True while LISTENing; false from a lost connection until the next one LISTENs again. */
  readonly listening: boolean;
  close(): Promise<void>;
}

export interface ListenOptions {
  channels: string[];
  onNotification(channel: string, payload: string): void;
  /**
   * Told when the connection is lost (notifications may have been missed meanwhile) and when it
   * listens again, so that a user can fall back to reading the database and catch up.
   */
  onStateChange?(listening: boolean): void;
  /** What is listened for, for log lines: "token revocations". */
  what: string;
}

/**
 * One dedicated connection that LISTENs on `channels`, reconnecting with exponential backoff when
 * it is lost. A notification is only ever a hint: every user also reads the database, so that one
 * lost while reconnecting delays work, never loses it.
 */
export async function listenToChannels(
  pool: pg.Pool,
  log: FastifyBaseLogger,
  options: ListenOptions,
): Promise<ChannelListener> {
  let current: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const listen = async (attempt = 0): Promise<void> => {
    const client = new pg.Client(pool.options);
    const again = () => {
      retry = setTimeout(() => void listen(attempt + 1), Math.min(30_000, 500 * 2 ** attempt));
    };
    const lost = (error?: Error) => {
      if (current !== client) return;
      current = null;
      client.end().catch(() => {});
      options.onStateChange?.(false);
      if (closed) return;
      log.warn({ err: error }, `lost the listener for ${options.what}; reading the database meanwhile`);
      again();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => options.onNotification(message.channel, message.payload ?? ''));
    try {
      await client.connect();
      for (const channel of options.channels) await client.query(`LISTEN ${channel}`);
      if (closed) {
        await client.end();
        return;
      }
      current = client;
      options.onStateChange?.(true);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      if (closed) return;
      log.warn({ err: error }, `could not listen for ${options.what}; retrying`);
      again();
    }
  };
  await listen();

  return {
    get listening() {
      return current !== null;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const client = current;
      current = null;
      await client?.end().catch(() => {});
    },
  };
}
