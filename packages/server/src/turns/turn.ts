import type { ModelMessage } from 'ai';
import type { Pool, PoolClient } from 'pg';
import { whileFenced } from '../db/transaction.js';
import type { ReplyTarget } from '../outbox/queue.js';

/** What a paused turn keeps, to go on from where the model stopped. */
export interface TurnState {
  /** "provider/model" that asked: the resumed turn goes on with it. */
  model: string;
  /** The model's messages of this turn, history and message included, up to the pause. */
  messages: ModelMessage[];
  /** Reply text streamed before the pause. */
  text: string;
}

/** A message a worker holds: `leaseToken` fences every write it makes. */
export interface ClaimedTurn {
  id: string;
  conversationId: string;
  orgId: string;
  agentId: string;
  content: string;
  leaseToken: number;
  attempts: number;
  /** Where a turn paused for approvals stopped; null for a new turn. */
  state: TurnState | null;
  /** Where the reply goes when the message came through a chat platform's webhook. */
  replyTo: ReplyTarget | null;
  /** Whether files came with the message, and whether the conversation has a history yet (read at claim). */
  hasFiles: boolean;
  hasHistory: boolean;
  /** The watcher window this turn answers (its message was made by the watcher scheduler). */
  watcherWindowId?: string | null;
}

export interface TurnProblem {
  code: string;
  detail: string;
}

export class LeaseLostError extends Error {
  constructor(messageId: string) {
    super(
      `the turn of message ${messageId} is no longer this worker's (its lease lapsed or it was handed back)`,
    );
    this.name = 'LeaseLostError';
  }
}

/**
 * Runs `work` in a transaction that holds the message row, and only while the lease is this
 * worker's: a worker whose lease lapsed (and whose turn another worker may now run) writes nothing.
 */
export async function whileLeased<T>(
  pool: Pool,
  turn: ClaimedTurn,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  return whileFenced(
    pool,
    { table: 'messages', id: turn.id, status: 'running', leaseToken: turn.leaseToken },
    work,
    () => {
      throw new LeaseLostError(turn.id);
    },
  );
}

/**
 * A string as PostgreSQL stores it in text and jsonb: NUL and lone UTF-16 surrogates (half an
 * emoji, cut by a limit counted in UTF-16 units) become U+FFFD. Model and tool output may carry
 * either, and PostgreSQL refuses both.
 */
export function storable(text: string): string {
  return text.replace(/\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** JSON of `value` with every string in it `storable`. */
export function storableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item) => (typeof item === 'string' ? storable(item) : item));
}
