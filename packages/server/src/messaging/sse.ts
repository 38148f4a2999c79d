import type { FastifyReply } from 'fastify';
import type { Pool } from 'pg';
import { openEventStream } from '../http/event-stream.js';
import { eventsAfterMany, type StoredEvent } from '../turns/events.js';
import type { ConversationHub } from '../turns/hub.js';

export interface StreamTimings {
  /** A `: ping` comment this often keeps proxies from closing an idle stream (default 15 s). */
  pingMs?: number;
  /**
   * While LISTEN works: how often one query looks, for every open stream of this process at once,
   * for events whose notification never came (default 15 s). See `Streams`.
   */
  sweepMs?: number;
  /** While the listener is down or reconnecting: how often that query runs instead (default 2 s). */
  pollMs?: number;
}

const frame = (event: StoredEvent) =>
  `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...event.data, seq: event.seq })}\n\n`;

interface OpenStream {
  conversationId: string;
  /** The last event id sent. */
  position(): number;
  /** Writing is waiting for the client to read (its socket's backpressure): not read for meanwhile. */
  busy(): boolean;
  /** Sends the events after its position (given oldest first). */
  deliver(events: StoredEvent[]): void;
  /** Whether its caller's credentials still hold: a revoked token or an ended session ends it. */
  authorized(): Promise<boolean>;
  end(): void;
}

/** Events read for one conversation at most per read, however far behind a stream is. */
const READ_LIMIT = 500;

/**
 * The event streams of this process. An idle stream costs no query: it is read for only when
 * woken by a notification (LISTEN/NOTIFY, through the hub), and when the listener comes back
 * after a gap (the hub wakes every stream, which reads from its last id). Streams woken together
 * are read for together: one query for all of them (500 conversations streaming a reply each
 * cost one query per batch of deltas, not 500). What a notification cannot cover is one never
 * sent: the replica that committed an event died before announcing it, or its announcement
 * failed. For that, one query per sweep compares each open conversation's last event number with
 * what its streams have sent, and wakes those behind: one query per process whatever the number
 * of streams, every `sweepMs` (15 s, the ping interval: a lost notification is rare, and late by
 * at most that), every `pollMs` (2 s) while the listener is down.
 */
export interface Streams {
  /** `authorized`: whether the caller may still read (asked before each batch and each ping). */
  open(
    reply: FastifyReply,
    conversationId: string,
    afterSeq: number,
    authorized: () => Promise<boolean>,
  ): void;
  /** Ends every stream (shutdown): clients reconnect elsewhere. */
  endAll(): void;
}

export function createStreams(
  deps: { pool: Pool; hub: ConversationHub },
  timings: StreamTimings = {},
): Streams {
  const streams = new Set<OpenStream>();
  const pollMs = timings.pollMs ?? 2000;
  const sweepMs = timings.sweepMs ?? 15_000;
  let ticker: NodeJS.Timeout | undefined;
  let lastSweep = 0;
  let sweeping = false;

  // Streams to read for, and the one read under way (one at a time: a wake-up during it is kept
  // for the next, so that no event committed meanwhile is missed).
  const due = new Set<OpenStream>();
  let reading = false;
  let scheduled = false;
  let retry: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (scheduled || reading || retry) return;
    scheduled = true;
    setImmediate(() => void readDue());
  };
  const wake = (stream: OpenStream) => {
    if (!streams.has(stream)) return;
    due.add(stream);
    schedule();
  };
  const readDue = async () => {
    scheduled = false;
    const waiting = [...due].filter((stream) => !stream.busy());
    if (waiting.length === 0) return;
    for (const stream of waiting) due.delete(stream);
    reading = true;
    try {
      // Nothing more for a caller whose token was revoked or whose session ended since it opened.
      const verdicts = await Promise.all(waiting.map((stream) => stream.authorized()));
      const batch = waiting.filter((_stream, i) => verdicts[i]);
      for (const [i, stream] of waiting.entries()) if (!verdicts[i]) stream.end();
      const after = new Map<string, number>();
      for (const stream of batch) {
        const position = stream.position();
        after.set(stream.conversationId, Math.min(after.get(stream.conversationId) ?? position, position));
      }
      const found = await eventsAfterMany(deps.pool, after, READ_LIMIT);
      for (const stream of batch) {
        if (!streams.has(stream)) continue;
        const events = found.get(stream.conversationId) ?? [];
        const fresh = events.filter((event) => event.seq > stream.position());
        if (fresh.length > 0) stream.deliver(fresh);
        // A full page: more may be behind it.
        if (events.length === READ_LIMIT) due.add(stream);
      }
    } catch {
      // The database is away: without a poll, nothing else would wake these streams for it.
      for (const stream of waiting) if (streams.has(stream)) due.add(stream);
      retry = setTimeout(() => {
        retry = undefined;
        schedule();
      }, pollMs);
    } finally {
      reading = false;
      if (due.size > 0) schedule();
    }
  };

  const sweep = async () => {
    sweeping = true;
    lastSweep = Date.now();
    try {
      const ids = [...new Set([...streams].map((s) => s.conversationId))];
      const { rows } = await deps.pool.query<{ id: string; last_seq: string }>(
        'SELECT id::text, last_seq FROM conversations WHERE id = ANY($1::uuid[])',
        [ids],
      );
      const last = new Map(rows.map((row) => [row.id, Number(row.last_seq)]));
      for (const stream of streams) {
        if ((last.get(stream.conversationId) ?? 0) > stream.position()) wake(stream);
      }
    } catch {
      // The database is away: the next tick tries again.
    } finally {
      sweeping = false;
    }
  };
  // Ticks cost nothing; a sweep runs when one is due.
  const tick = () => {
    const every = deps.hub.listening ? sweepMs : pollMs;
    if (!sweeping && Date.now() - lastSweep >= every) void sweep();
  };
  const track = (stream: OpenStream) => {
    streams.add(stream);
    if (!ticker) {
      lastSweep = Date.now();
      ticker = setInterval(tick, Math.min(pollMs, sweepMs));
      ticker.unref();
    }
    wake(stream);
  };
  const untrack = (stream: OpenStream) => {
    streams.delete(stream);
    due.delete(stream);
    if (streams.size === 0) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };

  return {
    open(reply, conversationId, afterSeq, authorized) {
      openStream(reply, deps.hub, conversationId, afterSeq, {
        authorized,
        pingMs: timings.pingMs ?? 15_000,
        track,
        untrack,
        wake,
      });
    },
    endAll() {
      for (const stream of [...streams]) stream.end();
    },
  };
}

/**
 * Streams a conversation's events after `afterSeq` as SSE, then live, on whichever replica the
 * client reached (the atproto cursor flow): subscribe first, then read from the database after the
 * last id sent whenever woken, so nothing is skipped between the backlog and live events, and an
 * event is never sent twice. A client too slow to read is waited for (the socket's backpressure)
 * rather than buffered for.
 */
function openStream(
  reply: FastifyReply,
  hub: ConversationHub,
  conversationId: string,
  afterSeq: number,
  options: {
    authorized: () => Promise<boolean>;
    pingMs: number;
    track: (stream: OpenStream) => void;
    untrack: (stream: OpenStream) => void;
    wake: (stream: OpenStream) => void;
  },
): void {
  const res = openEventStream(reply);

  let last = afterSeq;
  let ended = false;
  let waiting = false;

  const unsubscribe = hub.subscribe(conversationId, () => options.wake(stream));
  // A quiet stream is checked too: one whose session ended is closed within a ping.
  const ping = setInterval(
    () => void options.authorized().then((ok) => (ok ? res.write(': ping\n\n') : stream.end())),
    options.pingMs,
  );
  const stream: OpenStream = {
    authorized: options.authorized,
    conversationId,
    position: () => last,
    busy: () => waiting,
    deliver(events) {
      last = (events.at(-1) as StoredEvent).seq;
      if (res.write(events.map(frame).join(''))) return;
      // Read for again once the client has read this (or left): whatever came meanwhile is stored.
      waiting = true;
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        waiting = false;
        options.wake(stream);
      };
      res.once('drain', done);
      res.once('close', done);
    },
    end: () => {
      if (ended) return;
      ended = true;
      unsubscribe();
      clearInterval(ping);
      options.untrack(stream);
      res.end();
    },
  };
  res.on('close', stream.end);
  options.track(stream);
}

/** `Last-Event-ID` (a reconnecting EventSource sends it) or `?after=`: the last id the client has. */
export function lastEventId(header: string | string[] | undefined, query: number | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && /^\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return query ?? 0;
}
