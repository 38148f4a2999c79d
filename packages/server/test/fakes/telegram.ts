import { STATUS_CODES } from 'node:http';
import { type FakePlatform, type ReceivedRequest, startFakePlatform } from './http.js';

/** A message the fake sent (a failed or refused call is in `requests` only). */
export interface TelegramSent {
  /** As the client gave it, turned to a string. */
  chat_id: string;
  text: string;
  /** From `reply_to_message_id` or `reply_parameters.message_id`. */
  reply_to_message_id?: number;
  /** The `message_id` the fake gave the message. */
  message_id: number;
}

export interface FakeTelegram extends FakePlatform {
  sent: TelegramSent[];
  /** The bot's user id: the number before the token's colon. */
  botId: number;
}

/** Telegram's limit on a message's text, counted here in UTF-16 units (never more lenient than Telegram). */
export const TELEGRAM_MAX_TEXT = 4096;

let messageIds = 1000;

const refusal = (status: number, description: string) => ({
  status,
  body: { ok: false, error_code: status, description },
});

/** Telegram takes parameters from the query string, a form or JSON; the body wins. */
function parameters(request: ReceivedRequest): Record<string, unknown> | undefined {
  return request.body && { ...request.query, ...request.body };
}

/** The message replied to, from either parameter; null when `reply_parameters` is not JSON. */
function replyTo(params: Record<string, unknown>): number | undefined | null {
  let reply = params.reply_parameters;
  try {
    if (typeof reply === 'string') reply = JSON.parse(reply);
  } catch {
    return null;
  }
  const id = (reply as { message_id?: unknown } | undefined)?.message_id ?? params.reply_to_message_id;
  return id === undefined ? undefined : Number(id);
}

/**
 * The Telegram Bot API on 127.0.0.1: `POST /bot<token>/sendMessage` and `getMe`, answering
 * `{ok: true, result}` or `{ok: false, error_code, description}` (401 Unauthorized for another
 * token, 400 for a missing chat or text or a text over 4096 characters). A rate limit is 429 with
 * `parameters.retry_after`, and no `Retry-After` header, as Telegram answers it.
 */
export async function startFakeTelegram(options: { botToken: string }): Promise<FakeTelegram> {
  const botId = Number(options.botToken.split(':')[0]) || 4242;
  const bot = { id: botId, is_bot: true, first_name: 'Fake Bot', username: 'fake_bot' };
  const sent: TelegramSent[] = [];
  const route = (request: ReceivedRequest) => /^\/bot([^/]*)\/([A-Za-z]+)$/.exec(request.path);
  const platform = await startFakePlatform({
    isSend: (request) => route(request)?.[2]?.toLowerCase() === 'sendmessage',
    fail: (failure) => {
      const status = failure.status ?? 500;
      if (status === 429) {
        const retryAfter = failure.retryAfter ?? 1;
        const { body } = refusal(429, `Too Many Requests: retry after ${retryAfter}`);
        return { status, body: { ...body, parameters: { retry_after: retryAfter } } };
      }
      if (status === 403) return refusal(403, 'Forbidden: bot was blocked by the user');
      return refusal(status, status === 400 ? 'Bad Request' : (STATUS_CODES[status] ?? 'Error'));
    },
    answer: (request) => {
      const [, token, method = ''] = route(request) ?? [];
      if (token === undefined) return refusal(404, 'Not Found');
      if (token !== options.botToken) return refusal(401, 'Unauthorized');
      if (method.toLowerCase() === 'getme') return { status: 200, body: { ok: true, result: bot } };
      if (method.toLowerCase() !== 'sendmessage') return refusal(404, 'Not Found');
      const params = parameters(request);
      if (!params) return refusal(400, "Bad Request: can't parse JSON object");
      const chatId = params.chat_id;
      if (chatId === undefined || chatId === '') return refusal(400, 'Bad Request: chat_id is empty');
      const text = typeof params.text === 'string' ? params.text : '';
      if (text.trim() === '') return refusal(400, 'Bad Request: message text is empty');
      if (text.length > TELEGRAM_MAX_TEXT) return refusal(400, 'Bad Request: message is too long');
      const reply = replyTo(params);
      if (reply === null) return refusal(400, "Bad Request: can't parse reply parameters JSON object");
      messageIds += 1;
      const message: TelegramSent = { chat_id: String(chatId), text, message_id: messageIds };
      if (reply !== undefined) message.reply_to_message_id = reply;
      sent.push(message);
      const id = Number.isNaN(Number(chatId)) ? chatId : Number(chatId);
      const chat = { id, type: Number(id) < 0 ? 'group' : 'private' };
      const date = Math.floor(Date.now() / 1000);
      return {
        status: 200,
        body: { ok: true, result: { message_id: messageIds, from: bot, chat, date, text } },
      };
    },
  });
  return Object.assign(platform, { sent, botId });
}

/** The headers Telegram sends to a webhook set with `secret_token`. */
export function telegramHeaders(secretToken: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secretToken };
}

/**
 * An Update carrying a text `message` (or `edited_message`, with `edit_date`). A negative
 * `chatId` is a group (sender `fromId`, default 777); a positive one a private chat with that user.
 */
export function telegramUpdate(options: {
  updateId: number;
  chatId: number;
  text: string;
  edited?: boolean;
  fromId?: number;
  messageId?: number;
  date?: number;
}) {
  const date = options.date ?? Math.floor(Date.now() / 1000);
  const fromId = options.fromId ?? (options.chatId > 0 ? options.chatId : 777);
  const from = { id: fromId, is_bot: false, first_name: 'Ada', username: 'ada', language_code: 'en' };
  const chat =
    options.chatId > 0
      ? { id: options.chatId, first_name: 'Ada', username: 'ada', type: 'private' }
      : { id: options.chatId, title: 'Fake group', type: 'group' };
  const message = {
    message_id: options.messageId ?? options.updateId,
    from,
    chat,
    date,
    ...(options.edited ? { edit_date: date + 1 } : {}),
    text: options.text,
  };
  return options.edited
    ? { update_id: options.updateId, edited_message: message }
    : { update_id: options.updateId, message };
}
