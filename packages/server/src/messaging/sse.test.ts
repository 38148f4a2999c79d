import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../../test/harness.js';
import { appendEvent, EVENTS_CHANNEL } from '../turns/events.js';

/** Streams held open at once: the old per-stream poll cost N/2 queries a second. */
const STREAMS = 40;

interface Stream {
  ids: number[];
  /** Resolves once an event with id `seq` arrived; fails after `ms`. */
  until(seq: number, ms?: number): Promise<void>;
  close(): void;
}

async function openStream(server: TestServer, conversationId: string): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(`${server.url}/api/v1/agents/support/conversations/${conversationId}/events`, {
    headers: { authorization: `Bearer ${ADMIN_PASSWORD}` },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const ids: number[] = [];
  const waiters = new Set<() => void>();
  void (async () => {
    let buffer = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const id = /^id: (\d+)$/m.exec(buffer.slice(0, end))?.[1];
          buffer = buffer.slice(end + 2);
          if (id !== undefined) ids.push(Number(id));
          for (const wake of waiters) wake();
        }
      }
    } catch {
      // closed by the test
    }
  })();
  return {
    ids,
    until: (seq, ms = 5000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!ids.includes(seq)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`event ${seq} did not arrive in ${ms} ms (got ${ids.join(', ')})`));
        }, ms);
        waiters.add(check);
        check();
      }),
    close: () => controller.abort(),
  };
}

/** Queries sent through the server's pool while `during` runs, by what they read. */
async function queriesDuring(server: TestServer, during: () => Promise<void>) {
  const pool = server.pool as unknown as { query: (...args: unknown[]) => unknown };
  const original = pool.query;
  const seen = { eventReads: 0, sweeps: 0, read: new Set<string>() };
  pool.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    const text = typeof first === 'string' ? first : (first?.text ?? '');
    if (text.includes('FROM conversation_events')) {
      seen.eventReads++;
      seen.read.add(String((args[1] as unknown[] | undefined)?.[0]));
    }
    if (text.includes('FROM conversations WHERE id = ANY')) seen.sweeps++;
    return original.apply(this, args);
  };
  try {
    await during();
  } finally {
    pool.query = original;
  }
  return seen;
}

async function conversations(server: TestServer, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await server.call('POST', '/api/v1/agents/support/messages', {
      body: { platform: 'api', content: `hello ${i}`, channel: `c${i}` },
    });
    expect(res.status).toBe(202);
    ids.push(res.body.conversationId);
  }
  return ids;
}

/** Appends an event as a worker does; `notify: false` is one whose announcement never went out. */
async function append(server: TestServer, conversationId: string, notify: boolean): Promise<number> {
  const client = await server.pool.connect();
  try {
    return await appendEvent(client, conversationId, null, 'reply.delta', { text: 'x' }, { notify });
  } finally {
    client.release();
  }
}

async function start(timings?: { sweepMs: number; pollMs: number }): Promise<TestServer> {
  const server = await startTestServer({
    ...(timings ? { streamTimings: timings } : {}),
    messageRateLimit: null,
  });
  await server.call('POST', '/api/default/agents', { body: { agentId: 'support', name: 'Support' } });
  return server;
}

describe('event streams', () => {
  let idle: TestServer;
  let quiet: TestServer;
  let sweeping: TestServer;
  const open: Stream[] = [];
  beforeAll(async () => {
    idle = await start();
    // Sweeps and polls far apart: only notifications, and the hub's wake-up after a reconnect, deliver.
    quiet = await start({ sweepMs: 60_000, pollMs: 60_000 });
    sweeping = await start({ sweepMs: 300, pollMs: 300 });
  });
  afterAll(() => {
    for (const stream of open) stream.close();
  });

  it('cost no query while idle, however many are open (default timings)', async () => {
    const ids = await conversations(idle, STREAMS);
    const streams = await Promise.all(ids.map((id) => openStream(idle, id)));
    open.push(...streams);
    await Promise.all(streams.map((s) => s.until(1)));
    const seen = await queriesDuring(idle, () => new Promise((resolve) => setTimeout(resolve, 3000)));
    expect({ eventReads: seen.eventReads, sweeps: seen.sweeps }).toEqual({ eventReads: 0, sweeps: 0 });
    // Still live: a notified event reaches its stream at once.
    await append(idle, ids[0] as string, true);
    await (streams[0] as Stream).until(2, 2000);
  });

  it('sweep for events whose notification never came with one query for every stream', async () => {
    const ids = await conversations(sweeping, STREAMS);
    const streams = await Promise.all(ids.map((id) => openStream(sweeping, id)));
    open.push(...streams);
    await Promise.all(streams.map((s) => s.until(1)));
    const seen = await queriesDuring(sweeping, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // Announced by no one: a replica that died between its commit and its NOTIFY.
      await append(sweeping, ids[7] as string, false);
      await (streams[7] as Stream).until(2, 3000);
    });
    // A sweep every 300 ms, each one query; only the stream that was behind read (a sweep that
    // comes while its read is under way may wake it once more, on a busy machine).
    expect(seen.sweeps).toBeGreaterThanOrEqual(3);
    expect(seen.sweeps).toBeLessThan(20);
    expect([...seen.read]).toEqual([ids[7]]);
    expect(seen.eventReads).toBeLessThanOrEqual(4);
  });

  it('deliver the backlog and live events to a stream opened with the id in capitals', async () => {
    const [id] = await conversations(quiet, 1);
    const stream = await openStream(quiet, (id as string).toUpperCase());
    open.push(stream);
    await stream.until(1);
    const seq = await append(quiet, id as string, true);
    await stream.until(seq, 2000);
  });

  it('lose no event when the listener connection is killed: the streams read again once it is back', async () => {
    const [id] = await conversations(quiet, 1);
    const stream = await openStream(quiet, id as string);
    open.push(stream);
    await stream.until(1);
    const listener = async () =>
      (
        await quiet.pool.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = $1',
          [`LISTEN ${EVENTS_CHANNEL}`],
        )
      ).rows.map((row) => row.pid);
    const [killed] = await listener();
    expect(killed).toBeDefined();
    await quiet.pool.query('SELECT pg_terminate_backend($1)', [killed]);
    for (let i = 0; (await listener()).includes(killed as number); i++) {
      expect(i).toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Committed and notified while nobody listens: only the reconnect's wake-up can deliver it.
    const seq = await append(quiet, id as string, true);
    await stream.until(seq, 5000);
    // And the new connection listens.
    for (let i = 0; (await listener()).length === 0; i++) {
      expect(i).toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const next = await append(quiet, id as string, true);
    await stream.until(next, 2000);
  });
});
