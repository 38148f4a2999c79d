import { header, type Inbound, sameSecret, WebhookRefusedError } from './inbound.js';

/** `X-Telegram-Bot-Api-Secret-Token`: the `secret_token` given to `setWebhook`, sent back as is. */
export function verifyTelegram(
  headers: Record<string, string | string[] | undefined>,
  secretToken: string,
): void {
  const sent = header(headers, 'x-telegram-bot-api-secret-token');
  if (!sent) {
    throw new WebhookRefusedError(
      'webhook_signature_missing',
      'X-Telegram-Bot-Api-Secret-Token is required: call setWebhook with the secret_token',
    );
  }
  if (!sameSecret(sent, secretToken)) {
    throw new WebhookRefusedError(
      'webhook_signature_invalid',
      "X-Telegram-Bot-Api-Secret-Token does not match the platform's secret_token",
    );
  }
}

interface TelegramMessage {
  text?: unknown;
  chat?: { id?: unknown };
  from?: { is_bot?: boolean };
}

/** An Update, as far as it is read; every field is checked before use. */
export interface TelegramUpdate {
  update_id?: unknown;
  message?: TelegramMessage;
  edited_message?: TelegramMessage;
}

/**
 * An Update: the text of a `message` or an `edited_message` (answered as a new message) from a
 * person becomes a message of the chat's conversation. Known again by its update_id.
 */
export function inboundTelegram(update: TelegramUpdate): Inbound {
  const message = update.message ?? update.edited_message;
  const chat = message?.chat?.id;
  const text = message?.text;
  if (
    !Number.isSafeInteger(update.update_id) ||
    typeof text !== 'string' ||
    text.trim() === '' ||
    (typeof chat !== 'number' && typeof chat !== 'string') ||
    message?.from?.is_bot
  ) {
    return { kind: 'messages', messages: [], ignored: 1 };
  }
  return {
    kind: 'messages',
    ignored: 0,
    messages: [
      {
        dedupKey: `update:${update.update_id}`,
        body: { platform: 'messenger', content: text, messenger: { chat: String(chat) } },
        replyTo: { kind: 'messenger', to: { chat_id: String(chat) } },
      },
    ],
  };
}
