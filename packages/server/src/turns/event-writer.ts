import type { ConversationEventType } from '@svc/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import { type Announcer, createAnnouncer } from './events.js';
import { type ClaimedTurn, LeaseLostError, storableJson } from './turn.js';

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
    // A message claimed again (after a pause, or a lapsed lease) is another turn: its entry starts
    // afresh, whatever the one before left behind.
    if (entry?.turn !== turn) {
      entry = { turn, rows: [], text: '', waiters: [] };
      entries.set(turn.id, entry);
    }
    return entry;
  };
  /**
   * Moves the pending text into a delta. Between writes, a trailing high surrogate waits for its
   * other half (the output guard cuts text by UTF-16 units): half an emoji is not valid JSON text.
   */
  const foldText = (entry: TurnEntry, final: boolean) => {
    let text = entry.text;
    let kept = '';
    if (!final && /[\uD800-\uDBFF]$/.test(text)) {
      kept = text.slice(-1);
      text = text.slice(0, -1);
    }
    entry.text = kept;
    if (text === '') return;
    entry.rows.push({ type: 'reply.delta', data: { messageId: entry.turn.id, text } });
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
    // One batch at a time: a turn's events are numbered in the order its batches commit.
    if (writing) return;
    if (timer) clearTimeout(timer);
    timer = null;
    const final = soon || closed;
    soon = false;
    for (const entry of entries.values()) foldText(entry, final || entry.waiters.length > 0);
    const batch = [...entries.values()].filter((entry) => entry.rows.length > 0);
    if (batch.length === 0) {
      if ([...entries.values()].some(hasWork)) schedule(false);
      return;
    }
    const ids = new Set(batch.map((e) => e.turn.id));
    const done = writeBatch(batch).finally(() => {
      writing = null;
      const left = [...entries.values()].some(hasWork);
      if (left) schedule(soon || closed);
    });
    writing = { ids, done };
  };

  /** Takes each entry's rows and waiters out for a write; `putBack` returns them, first in line. */
  const take = (entry: TurnEntry) => {
    const taken = { rows: entry.rows, waiters: entry.waiters };
    entry.rows = [];
    entry.waiters = [];
    return {
      ...taken,
      putBack() {
        entry.rows = [...taken.rows, ...entry.rows];
        entry.waiters = [...taken.waiters, ...entry.waiters];
      },
    };
  };

  const fail = (entry: TurnEntry, waiters: Waiter[], error: Error) => {
    entry.failure = error;
    for (const waiter of waiters) waiter.reject(error);
    // It streams on otherwise until its next write, paying for a model nobody reads.
    options.onLost?.(entry.turn);
  };

  const writeBatch = async (batch: TurnEntry[]) => {
    const taken = batch.map((entry) => ({ entry, ...take(entry) }));
    let outcome: Map<string, 'written' | 'busy'>;
    try {
      outcome = await insertEvents(options.pool, taken);
    } catch (error) {
      if (taken.length > 1) {
        // One turn's events (or a passing deadlock) must not fail every turn of the process:
        // each is tried again on its own, and only one that fails alone is failed.
        for (const one of taken) one.putBack();
        for (const one of taken) await writeBatch([one.entry]);
        return;
      }
      options.log.warn({ err: error, messageId: batch[0]?.turn.id }, 'could not write the events of a turn');
      for (const one of taken) fail(one.entry, one.waiters, error as Error);
      return;
    }
    for (const one of taken) {
      const result = outcome.get(one.entry.turn.id);
      if (result === 'written') {
        announcer.announce(one.entry.turn.conversationId);
        for (const waiter of one.waiters) waiter.resolve();
      } else if (result === 'busy') {
        // Its conversation's row is held by a transaction elsewhere (a message being queued with
        // its files): written with the next batch rather than holding this one up.
        one.putBack();
      } else {
        fail(one.entry, one.waiters, new LeaseLostError(one.entry.turn.id));
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
      foldText(entry, true);
      entry.rows.push({ type, data });
      return waitFor(entry);
    },
    async settle(turn) {
      const entry = entries.get(turn.id);
      if (!entry || entry.turn !== turn) return;
      if (entry.failure) throw entry.failure;
      if (hasWork(entry)) return waitFor(entry);
      if (writing?.ids.has(turn.id)) {
        await writing.done;
        if (entry.failure) throw entry.failure;
      }
    },
    forget(turn) {
      if (entries.get(turn.id)?.turn === turn) entries.delete(turn.id);
    },
    announce(conversationId) {
      announcer.announce(conversationId);
    },
    async close() {
      closed = true;
      while (writing || [...entries.values()].some((entry) => hasWork(entry) && !entry.failure)) {
        if (!writing) write();
        if (!writing) break;
        await writing.done;
      }
      if (timer) clearTimeout(timer);
      await announcer.close();
    },
  };
}

/**
 * One statement: each turn's message row is locked only while its lease is the one given (a
 * worker whose lease lapsed writes nothing), each conversation's event numbers are taken from its
 * row in one step for all its new events (a row another transaction holds is skipped: `busy`),
 * and the events are inserted in the order given. Answers, for each message whose lease holds,
 * whether its events were written.
 */
async function insertEvents(
  pool: Pool,
  batch: { entry: TurnEntry; rows: TurnEntry['rows'] }[],
): Promise<Map<string, 'written' | 'busy'>> {
  const messageIds: string[] = [];
  const leaseTokens: number[] = [];
  const conversationIds: string[] = [];
  const types: string[] = [];
  const data: string[] = [];
  for (const { entry, rows } of batch) {
    for (const row of rows) {
      messageIds.push(entry.turn.id);
      leaseTokens.push(entry.turn.leaseToken);
      conversationIds.push(entry.turn.conversationId);
      types.push(row.type);
      data.push(storableJson(row.data));
    }
  }
  const { rows } = await pool.query<{ message_id: string; written: boolean }>(
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
     free AS (
       SELECT c.id FROM conversations c WHERE c.id IN (SELECT conversation_id FROM held)
        ORDER BY c.id
          FOR UPDATE SKIP LOCKED
     ),
     counted AS (
       SELECT h.conversation_id, count(*) AS n
         FROM input i JOIN held h ON h.id = i.message_id JOIN free f ON f.id = h.conversation_id
        GROUP BY h.conversation_id
     ),
     numbered AS (
       UPDATE conversations c SET last_seq = c.last_seq + counted.n
         FROM counted WHERE c.id = counted.conversation_id
       RETURNING c.id, c.last_seq - counted.n AS first_seq
     ),
     added AS (
       INSERT INTO conversation_events (conversation_id, seq, message_id, type, data)
       SELECT h.conversation_id,
              n.first_seq + row_number() OVER (PARTITION BY h.conversation_id ORDER BY i.ord),
              i.message_id, i.type, i.data
         FROM input i JOIN held h ON h.id = i.message_id JOIN numbered n ON n.id = h.conversation_id
       RETURNING message_id
     )
     SELECT h.id AS message_id, a.message_id IS NOT NULL AS written
       FROM held h LEFT JOIN (SELECT DISTINCT message_id FROM added) a ON a.message_id = h.id`,
    [messageIds, leaseTokens, conversationIds, types, data],
  );
  return new Map(rows.map((row) => [row.message_id, row.written ? 'written' : 'busy']));
}
