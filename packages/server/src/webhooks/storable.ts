import type { FastifyBaseLogger } from 'fastify';
import { UNSTORABLE } from '../http/json-body.js';
import type { InboundMessage } from './inbound.js';

/** U+FFFD, Unicode's mark for a character that could not be kept. */
const REPLACEMENT = '\uFFFD';
const EVERY_UNSTORABLE = new RegExp(UNSTORABLE.source, 'g');

const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : value !== null && typeof value === 'object'
      ? Object.values(value).flatMap(strings)
      : [];

/**
 * A chat message as it can be stored. PostgreSQL cannot store a NUL, and UTF-8 cannot carry half
 * a surrogate pair. The API refuses such text (its caller can fix it), but a chat platform
 * retries whatever it is refused and the person who wrote cannot fix it: so the text is kept
 * with U+FFFD in place of each such character, the mark the person's own chat app shows for it,
 * and the message is answered (`replaced` says how many). An id holding one (a channel, a chat,
 * the message's own) names nothing that can be stored or answered: null, and the message is
 * ignored.
 */
function storableMessage(message: InboundMessage): { message: InboundMessage; replaced: number } | null {
  const { content, ...ids } = message.body;
  if (strings([message.dedupKey, ids, message.replyTo]).some((text) => UNSTORABLE.test(text))) return null;
  let replaced = 0;
  const text = content.replace(EVERY_UNSTORABLE, () => {
    replaced++;
    return REPLACEMENT;
  });
  return {
    message: replaced === 0 ? message : { ...message, body: { ...message.body, content: text } },
    replaced,
  };
}

/** The messages of a call as they can be stored, and how many were ignored; logged without their text. */
export function storableMessages(
  received: InboundMessage[],
  log: FastifyBaseLogger,
  stableId: string,
): { messages: InboundMessage[]; ignored: number } {
  const messages: InboundMessage[] = [];
  for (const one of received) {
    const storable = storableMessage(one);
    if (!storable) {
      log.warn(
        { stableId },
        'ignored a chat message whose ids hold a NUL or half a surrogate pair, which cannot be stored',
      );
      continue;
    }
    if (storable.replaced > 0) {
      log.info(
        { stableId, platformMessage: one.dedupKey, replaced: storable.replaced },
        'a chat message held NULs or halves of surrogate pairs: each is kept as U+FFFD',
      );
    }
    messages.push(storable.message);
  }
  return { messages, ignored: received.length - messages.length };
}
