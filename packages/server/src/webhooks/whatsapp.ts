import {
  header,
  hmacHex,
  type Inbound,
  type InboundMessage,
  sameSecret,
  WebhookRefusedError,
} from './inbound.js';

/** `X-Hub-Signature-256`: `sha256=` and the HMAC-SHA256 of the raw body under the app secret. */
export function verifyWhatsApp(
  headers: Record<string, string | string[] | undefined>,
  raw: Buffer,
  appSecret: string,
): void {
  const signature = header(headers, 'x-hub-signature-256');
  if (!signature)
    throw new WebhookRefusedError('webhook_signature_missing', 'X-Hub-Signature-256 is required');
  if (!sameSecret(signature, `sha256=${hmacHex(appSecret, raw)}`)) {
    throw new WebhookRefusedError(
      'webhook_signature_invalid',
      "X-Hub-Signature-256 does not match the body under the platform's app_secret",
    );
  }
}

/** The subscription check: the challenge echoed when the verify token is ours, else null (403). */
export function whatsAppChallenge(query: Record<string, unknown>, verifyToken: string): string | null {
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (query['hub.mode'] !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string')
    return null;
  return sameSecret(token, verifyToken) ? challenge : null;
}

interface WhatsAppValue {
  metadata?: { phone_number_id?: unknown };
  statuses?: unknown[];
  messages?: { id?: unknown; from?: unknown; type?: unknown; text?: { body?: unknown } }[];
}

/** A Cloud API notification, as far as it is read; every field is checked before use. */
export interface WhatsAppPayload {
  entry?: { changes?: { field?: unknown; value?: WhatsAppValue }[] }[];
}

/**
 * A Cloud API notification: each text message to this platform's number becomes a message of the
 * sender's conversation, known again by its message id; status updates (sent, delivered, read)
 * and messages to other numbers of the same app are not answered.
 */
export function inboundWhatsApp(payload: WhatsAppPayload, phoneNumberId: string): Inbound {
  const messages: InboundMessage[] = [];
  let ignored = 0;
  for (const entry of Array.isArray(payload.entry) ? payload.entry : []) {
    for (const change of Array.isArray(entry?.changes) ? entry.changes : []) {
      const value = change?.value ?? {};
      ignored += Array.isArray(value.statuses) ? value.statuses.length : 0;
      for (const message of Array.isArray(value.messages) ? value.messages : []) {
        const text = message?.text?.body;
        if (
          change?.field !== 'messages' ||
          String(value.metadata?.phone_number_id) !== phoneNumberId ||
          message.type !== 'text' ||
          typeof text !== 'string' ||
          text.trim() === '' ||
          typeof message.id !== 'string' ||
          typeof message.from !== 'string'
        ) {
          ignored++;
          continue;
        }
        messages.push({
          dedupKey: message.id,
          body: { platform: 'messenger', content: text, messenger: { chat: message.from } },
          replyTo: { kind: 'whatsapp', to: { to: message.from } },
        });
      }
    }
  }
  return { kind: 'messages', messages, ignored };
}
