import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { MessageSend } from '@svc/core';
import type { ReplyTarget } from '../outbox/queue.js';

/** A message a webhook call carries: what to queue, how to know it again, where to answer it. */
export interface InboundMessage {
  /** The platform's own id of the message: the same one delivered again is dropped. */
  dedupKey: string;
  body: MessageSend;
  replyTo: Omit<ReplyTarget, 'stableId'>;
}

/** What a verified webhook call asks for. */
export type Inbound =
  /** An answer the platform expects at once (Slack's url_verification). */
  | { kind: 'answer'; body: { challenge: string } }
  | { kind: 'messages'; messages: InboundMessage[]; ignored: number };

/** Why a call is refused before anything is read from it: 401 (403 for a verify token), and nothing queued. */
export class WebhookRefusedError extends Error {
  constructor(
    readonly code:
      | 'webhook_signature_missing'
      | 'webhook_signature_invalid'
      | 'webhook_signature_stale'
      | 'webhook_verify_token_invalid',
    detail: string,
  ) {
    super(detail);
    this.name = 'WebhookRefusedError';
  }
}

/**
 * Constant-time equality of two strings of any lengths: both are hashed first, so neither the
 * position of the first difference nor a difference of length shows in the time taken.
 */
export function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}

export const hmacHex = (secret: string, data: Buffer | string) =>
  createHmac('sha256', secret).update(data).digest('hex');

/** The header's one value (a repeated header is refused: a signature has one value). */
export function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' && value.length > 0 ? value : null;
}
