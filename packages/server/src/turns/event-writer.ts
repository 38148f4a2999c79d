import type { ConversationEventType } from '@svc/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import { type Announcer, createAnnouncer } from './events.js';
import { type ClaimedTurn, LeaseLostError } from './turn.js';

/**
 * Writes the events of every turn a process runs, many turns in one statement. A turn streams a
 * delta every few tens of milliseconds; written one transaction each, 500 turns at once made
 * 10,000 commits in a reply's two seconds, each holding PostgreSQL's notification lock through its
 * flush. Here the process's pending events go out together (deltas coalesced per turn, at most
 * every `intervalMs`; other events at once), in one autocommit statement that is fenced per turn:
 * only turns whose lease this process still holds are written, and a turn that lost it learns so
 * at its next write. Announcements follow the commit, batched (`Announcer`).
 */
export interface EventWriter {
  /** Adds reply text to the turn's next `reply.delta`; written within `intervalMs`. */
  delta(turn: ClaimedTurn, text: string): void;
  /** Appends an event after whatever the turn has pending; resolves once it is stored. */
  append(turn: ClaimedTurn, type: ConversationEventType, data: Record<string, unknown>): Promise<void>;
  /**
   * Resolves once everything the turn handed over is stored (before it writes on its own:
   * its end comes after its deltas); rejects with why a write of it failed.
   */
  settle(turn: ClaimedTurn): Promise<void>;
  /** Forgets a turn that ended (its failures included). */
  forget(turn: ClaimedTurn): void;
  /** Announces a conversation's new events (after a commit made elsewhere). */
  announce(conversationId: string): void;
  /** Writes what is pending, then stops. */
  close(): Promise<void>;
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

interface TurnEntry {
  turn: ClaimedTurn;
  /** Events in order, each but the last with its deltas folded in before it. */
  rows: { type: ConversationEventType; data: Record<string, unknown> }[];
  text: string;
  waiters: Waiter[];
  /** A write of this turn failed: its next call rejects with this. */
  failure?: Error;
}

export function createEventWriter(options: {
  pool: Pool;
  log: FastifyBaseLogger;
  /** Deltas are coalesced this long (default 50 ms). */
  intervalMs?: number;
  /** A turn was found no longer held by this process: its worker stops it. */
  onLost?: (turn: ClaimedTurn) => void;
}): EventWriter {
  const intervalMs = options.intervalMs ?? 50;
  const announcer: Announcer = createAnnouncer(options.pool, options.log);
  const entries = new Map<string, TurnEntry>();
  // Turns whose events are being written now, and the write: `settle` on one of them waits for it.
  let writing: { ids: Set<string>; done: Promise<void> } | null = null;
  let timer: NodeJS.Timeout | null = null;
  let soon = false;
  let closed = false;

  const entryOf = (turn: ClaimedTurn): TurnEntry => {
    let entry = entries.get(turn.id);
    if (!entry) {
      entry = { turn, rows: [], text: '', waiters: [] };
      entries.set(turn.id, entry);
    }
    return entry;
  };
  const foldText = (entry: TurnEntry) => {
    if (entry.text === '') return;
    entry.rows.push({ type: 'reply.delta', data: { messageId: entry.turn.id, text: entry.text } });
    entry.text = '';
  };
  const hasWork = (entry: TurnEntry) => entry.rows.length > 0 || entry.text !== '';

  /** Writes soon: at once for an event someone waits on, within the interval for deltas. */
  const schedule = (now: boolean) => {
    if (closed && !now) now = true;
    if (now) soon = true;
    if (writing) return; // the write under way schedules the next one when it ends
    if (now) {
      if (timer) clearTimeout(timer);
      timer = setTimeout(write, 0);
    } else {
      timer ??= setTimeout(write, intervalMs);
    }
  };

  const write = () => {
    timer = null;
    soon = false;
    const batch = [...entries.values()].filter(hasWork);
    if (batch.length === 0) return;
    const ids = new Set(batch.map((e) => e.turn.id));
    const done = writeBatch(batch).finally(() => {
      writing = null;
      const left = [...entries.values()].some(hasWork);
      if (left) schedule(soon || closed);
    });
    writing = { ids, done };
  };

  const writeBatch = async (batch: TurnEntry[]) => {
    const messageIds: string[] = [];
    const leaseTokens: number[] = [];
    const conversationIds: string[] = [];
    const types: string[] = [];
    const data: string[] = [];
    const waiters = new Map<string, Waiter[]>();
    for (const entry of batch) {
      foldText(entry);
      for (const row of entry.rows) {
        messageIds.push(entry.turn.id);
        leaseTokens.push(entry.turn.leaseToken);
        conversationIds.push(entry.turn.conversationId);
        types.push(row.type);
        data.push(JSON.stringify(row.data));
      }
      entry.rows = [];
      waiters.set(entry.turn.id, entry.waiters);
      entry.waiters = [];
    }
    let written: Set<string>;
    try {
      written = await insertEvents(options.pool, { messageIds, leaseTokens, conversationIds, types, data });
    } catch (error) {
      options.log.warn({ err: error }, 'could not write the events of running turns');
      for (const entry of batch) {
        entry.failure = error as Error;
        for (const waiter of waiters.get(entry.turn.id) ?? []) waiter.reject(error as Error);
      }
      return;
    }
    for (const entry of batch) {
      if (written.has(entry.turn.id)) {
        announcer.announce(entry.turn.conversationId);
        for (const waiter of waiters.get(entry.turn.id) ?? []) waiter.resolve();
      } else {
        const lost = new LeaseLostError(entry.turn.id);
        entry.failure = lost;
        for (const waiter of waiters.get(entry.turn.id) ?? []) waiter.reject(lost);
        options.onLost?.(entry.turn);
      }
    }
  };

  const waitFor = (entry: TurnEntry) =>
    new Promise<void>((resolve, reject) => {
      entry.waiters.push({ resolve, reject });
      schedule(true);
    });

  return {
    delta(turn, text) {
      if (text === '') return;
      const entry = entryOf(turn);
      if (entry.failure) return; // its next append or settle says why
      entry.text += text;
      schedule(false);
    },
    append(turn, type, data) {
      const entry = entryOf(turn);
      if (entry.failure) return Promise.reject(entry.failure);
      foldText(entry);
      entry.rows.push({ type, data });
      return waitFor(entry);
    },
    async settle(turn) {
      const entry = entries.get(turn.id);
      if (!entry) return;
      if (entry.failure) throw entry.failure;
      if (hasWork(entry)) return waitFor(entry);
      if (writing?.ids.has(turn.id)) {
        await writing.done;
        if (entry.failure) throw entry.failure;
      }
    },
    forget(turn) {
      entries.delete(turn.id);
    },
    announce(conversationId) {
      announcer.announce(conversationId);
    },
    async close() {
      closed = true;
      while (writing || [...entries.values()].some(hasWork)) {
        if (!writing) write();
        await writing?.done;
      }
      if (timer) clearTimeout(timer);
      await announcer.close();
    },
  };
}

/**
 * One statement: each turn's message row is locked only while its lease is the one given (a
 * worker whose lease lapsed writes nothing), each conversation's event numbers are taken from its
 * row in one step for all its new events, and the events are inserted in the order given.
 * Answers the messages whose events were written.
 */
async function insertEvents(
  pool: Pool,
  rows: {
    messageIds: string[];
    leaseTokens: number[];
    conversationIds: string[];
    types: string[];
    data: string[];
  },
): Promise<Set<string>> {
  const { rows: written } = await pool.query<{ message_id: string }>(
    `WITH input AS (
       SELECT i.* FROM unnest($1::uuid[], $2::bigint[], $3::uuid[], $4::text[], $5::jsonb[])
              WITH ORDINALITY AS i(message_id, lease_token, conversation_id, type, data, ord)
     ),
     held AS (
       SELECT m.id, m.conversation_id FROM messages m
        WHERE m.id IN (SELECT message_id FROM input) AND m.status = 'running'
          AND m.lease_token = (SELECT lease_token FROM input WHERE message_id = m.id LIMIT 1)
        ORDER BY m.id
          FOR UPDATE
     ),
     counted AS (
       SELECT h.conversation_id, count(*) AS n FROM input i JOIN held h ON h.id = i.message_id
        GROUP BY h.conversation_id
     ),
     numbered AS (
       UPDATE conversations c SET last_seq = c.last_seq + counted.n
         FROM counted WHERE c.id = counted.conversation_id
       RETURNING c.id, c.last_seq - counted.n AS first_seq
     ),
     added AS (
       INSERT INTO conversation_events (conversation_id, seq, message_id, type, data)
       SELECT i.conversation_id,
              n.first_seq + row_number() OVER (PARTITION BY i.conversation_id ORDER BY i.ord),
              i.message_id, i.type, i.data
         FROM input i JOIN held h ON h.id = i.message_id JOIN numbered n ON n.id = i.conversation_id
       RETURNING message_id
     )
     SELECT DISTINCT message_id FROM added`,
    [rows.messageIds, rows.leaseTokens, rows.conversationIds, rows.types, rows.data],
  );
  return new Set(written.map((row) => row.message_id));
}
