import {
  header,
  hmacHex,
  type Inbound,
  type InboundMessage,
  sameSecret,
  WebhookRefusedError,
} from './inbound.js';

/** Slack's window for a request's timestamp: older (or newer) calls may be replays. */
const WINDOW_SECONDS = 5 * 60;

/**
 * `X-Slack-Signature`: `v0=` and the HMAC-SHA256, under the app's signing secret, of
 * `v0:{X-Slack-Request-Timestamp}:{raw body}`; the timestamp within five minutes of ours.
 */
export function verifySlack(
  headers: Record<string, string | string[] | undefined>,
  raw: Buffer,
  signingSecret: string,
  nowSeconds = Date.now() / 1000,
): void {
  const timestamp = header(headers, 'x-slack-request-timestamp');
  const signature = header(headers, 'x-slack-signature');
  if (!timestamp || !signature) {
    throw new WebhookRefusedError(
      'webhook_signature_missing',
      'X-Slack-Signature and X-Slack-Request-Timestamp are required',
    );
  }
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > WINDOW_SECONDS) {
    throw new WebhookRefusedError(
      'webhook_signature_stale',
      'X-Slack-Request-Timestamp is more than 5 minutes from now; check the clocks',
    );
  }
  const expected = `v0=${hmacHex(signingSecret, Buffer.concat([Buffer.from(`v0:${timestamp}:`), raw]))}`;
  if (!sameSecret(signature, expected)) {
    throw new WebhookRefusedError(
      'webhook_signature_invalid',
      "X-Slack-Signature does not match the body under the platform's signing_secret",
    );
  }
}

interface SlackEvent {
  type?: string;
  subtype?: string;
  bot_id?: string;
  user?: string;
  text?: string;
  channel?: string;
  ts?: string;
  thread_ts?: string;
}

/** An Events API call, as far as it is read; every field is checked before use. */
export interface SlackPayload {
  type?: unknown;
  challenge?: unknown;
  event?: SlackEvent;
  authorizations?: { user_id?: string; is_bot?: boolean }[];
}

/** Subtypes that are still a person writing; every other one (edits, joins, bots) is not answered. */
const PERSON_SUBTYPES = new Set(['thread_broadcast', 'file_share']);

/**
 * An Events API call: `url_verification` is answered with its challenge; a `message` or
 * `app_mention` written by a person becomes a message of the conversation (channel, thread). The
 * same message arrives as both event types when the bot is mentioned, and again on each retry: it
 * is known by (channel, ts), whatever the event_id.
 */
export function inboundSlack(payload: SlackPayload): Inbound {
  if (payload.type === 'url_verification')
    return { kind: 'answer', body: { challenge: String(payload.challenge ?? '') } };
  const event: SlackEvent = payload.event ?? {};
  const botUsers = new Set(
    (payload.authorizations ?? [])
      .filter((a: { is_bot?: boolean }) => a.is_bot)
      .map((a: { user_id?: string }) => a.user_id),
  );
  const answerable =
    payload.type === 'event_callback' &&
    (event.type === 'message' || event.type === 'app_mention') &&
    !event.bot_id &&
    (!event.subtype || PERSON_SUBTYPES.has(event.subtype)) &&
    !botUsers.has(event.user) &&
    typeof event.text === 'string' &&
    event.text.trim() !== '' &&
    typeof event.channel === 'string' &&
    typeof event.ts === 'string';
  if (!answerable) return { kind: 'messages', messages: [], ignored: 1 };
  const channel = event.channel as string;
  const thread = event.thread_ts ?? (event.ts as string);
  const message: InboundMessage = {
    dedupKey: `${channel}:${event.ts}`,
    // The mention that called the bot is not part of what was said to it.
    body: {
      platform: 'team_chat',
      content: slackUnescape(
        (event.text as string).replace(/^\s*<@[A-Z0-9]+>\s*/, '') || (event.text as string),
      ),
      team_chat: { channel, thread },
    },
    replyTo: { kind: 'team_chat', to: { channel, thread_ts: thread } },
  };
  return { kind: 'messages', messages: [message], ignored: 0 };
}

/** What the person typed: Slack escapes `&`, `<` and `>` in message text. */
const slackUnescape = (text: string) =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
