import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { listenToChannels } from '../db/notifications.js';
import { EVENTS_CHANNEL } from './events.js';

/**
 * Wakes the readers of a conversation's events on this process when any replica appends one.
 * Only ids travel (many to a notification): a woken reader reads the events from the database after its last `seq`, so a
 * notification lost or doubled costs a query, never an event. After a lost connection, every
 * reader is woken once the listener is back, to read what was announced meanwhile.
 */
export interface ConversationHub {
  subscribe(conversationId: string, wake: () => void): () => void;
  /** False while the listener is down or reconnecting: notifications are not coming, so poll. */
  readonly listening: boolean;
  close(): Promise<void>;
}

export async function createConversationHub(pool: pg.Pool, log: FastifyBaseLogger): Promise<ConversationHub> {
  const readers = new Map<string, Set<() => void>>();
  const wakeAll = () => {
    for (const set of readers.values()) for (const wake of set) wake();
  };
  const listener = await listenToChannels(pool, log, {
    channels: [EVENTS_CHANNEL],
    what: 'conversation events',
    onNotification: (_channel, payload) => {
      for (const conversationId of payload.split(',')) {
        for (const wake of readers.get(conversationId) ?? []) wake();
      }
    },
    // Back after a gap: whatever was announced meanwhile is in the database.
    onStateChange: (listening) => {
      if (listening) wakeAll();
    },
  });
  return {
    subscribe(conversationId, wake) {
      const set = readers.get(conversationId) ?? new Set();
      readers.set(conversationId, set);
      set.add(wake);
      return () => {
        set.delete(wake);
        if (set.size === 0) readers.delete(conversationId);
      };
    },
    get listening() {
      return listener.listening;
    },
    close: () => listener.close(),
  };
}
