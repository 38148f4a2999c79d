import type { FastifyReply } from 'fastify';
import type { Pool } from 'pg';
import { eventsAfter, type StoredEvent } from '../turns/events.js';
import type { ConversationHub } from '../turns/hub.js';

export interface StreamTimings {
  /** A `: ping` comment this often keeps proxies from closing an idle stream (default 15 s). */
  pingMs?: number;
  /** The database is read this often even when no notification came (default 2 s). */
  pollMs?: number;
}

/** Every open stream of this process, ended when the server shuts down. */
export type OpenStreams = Set<() => void>;

const frame = (event: StoredEvent) =>
  `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...event.data, seq: event.seq })}\n\n`;

/**
 * Streams a conversation's events after `afterSeq` as SSE, then live, on whichever replica the
 * client reached (the atproto cursor flow): subscribe first, then read from the database after the
 * last id sent whenever woken, so nothing is skipped between the backlog and live events, and an
 * event is never sent twice. A client too slow to read is waited for (the socket's backpressure)
 * rather than buffered for.
 */
export function streamConversation(
  reply: FastifyReply,
  deps: { pool: Pool; hub: ConversationHub; open: OpenStreams },
  conversationId: string,
  afterSeq: number,
  timings: StreamTimings = {},
): void {
  const res = reply.raw;
  reply.hijack();
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // nginx and friends would otherwise hold the stream back in their buffers.
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  res.write('retry: 1000\n\n');

  let last = afterSeq;
  let reading = false;
  let again = false;
  let ended = false;

  const writeAll = async (text: string) => {
    if (res.write(text)) return;
    // Whichever comes first: a client that leaves while we wait must not hold this reader forever.
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.once('drain', done);
      res.once('close', done);
    });
  };
  const read = async (): Promise<void> => {
    if (ended) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      for (;;) {
        const events = await eventsAfter(deps.pool, conversationId, last);
        if (ended || events.length === 0) break;
        await writeAll(events.map(frame).join(''));
        last = (events.at(-1) as StoredEvent).seq;
      }
    } catch {
      // The database is away: the next wake-up or poll tries again.
    } finally {
      reading = false;
      if (again) {
        again = false;
        void read();
      }
    }
  };

  const unsubscribe = deps.hub.subscribe(conversationId, () => void read());
  const poll = setInterval(() => void read(), timings.pollMs ?? 2000);
  const ping = setInterval(() => res.write(': ping\n\n'), timings.pingMs ?? 15_000);
  const end = () => {
    if (ended) return;
    ended = true;
    unsubscribe();
    clearInterval(poll);
    clearInterval(ping);
    deps.open.delete(end);
    res.end();
  };
  deps.open.add(end);
  res.on('close', end);
  void read();
}

/** `Last-Event-ID` (a reconnecting EventSource sends it) or `?after=`: the last id the client has. */
export function lastEventId(header: string | string[] | undefined, query: number | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && /^\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return query ?? 0;
}
