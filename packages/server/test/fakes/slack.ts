import { createHmac } from 'node:crypto';
import { type FakePlatform, type ScriptedFailure, startFakePlatform } from './http.js';

/** A message the fake posted (a failed or refused call is in `requests` only). */
export interface SlackPost {
  channel: string;
  text: string;
  thread_ts?: string;
  /** The `ts` the fake gave the message. */
  ts: string;
}

/** `error` replaces the default error code; with no `status`, Slack's usual HTTP 200 `ok: false`. */
export interface SlackFailure extends ScriptedFailure {
  error?: string;
}

export interface FakeSlack extends FakePlatform<SlackFailure> {
  posts: SlackPost[];
  botUserId: string;
  botId: string;
  teamId: string;
}

let sequence = 100;

/** A unique Slack timestamp (`1700000000.000101`), as Slack gives messages. */
export function slackTs(): string {
  sequence += 1;
  return `${Math.floor(Date.now() / 1000)}.${String(sequence).padStart(6, '0')}`;
}

/**
 * The Slack Web API on 127.0.0.1: `POST /api/chat.postMessage` (JSON or form; the bot token as
 * `Authorization: Bearer` or a `token` field) and `POST /api/auth.test`. Errors are Slack's: HTTP
 * 200 `{ok: false, error}` (`not_authed`, `invalid_auth`, `channel_not_found`, `no_text`,
 * `msg_too_long`); a rate limit is HTTP 429 `ratelimited` with `Retry-After`.
 */
export async function startFakeSlack(options: {
  botToken: string;
  botUserId?: string;
  botId?: string;
  teamId?: string;
}): Promise<FakeSlack> {
  const identity = {
    botUserId: options.botUserId ?? 'U0FAKEBOT',
    botId: options.botId ?? 'B0FAKEBOT',
    teamId: options.teamId ?? 'T0FAKETEAM',
  };
  const posts: SlackPost[] = [];
  const refusal = (error: string, status = 200) => ({ status, body: { ok: false, error } });
  const platform = await startFakePlatform<SlackFailure>({
    isSend: (request) => request.method === 'POST' && request.path === '/api/chat.postMessage',
    fail: (failure) => {
      const status = failure.status ?? (failure.error ? 200 : 500);
      if (status === 429) {
        return {
          ...refusal('ratelimited', 429),
          headers: { 'retry-after': String(failure.retryAfter ?? 1) },
        };
      }
      return refusal(failure.error ?? (status >= 500 ? 'internal_error' : 'invalid_request'), status);
    },
    answer: (request) => {
      const method = request.path.replace(/^\/api\//, '');
      if (method !== 'chat.postMessage' && method !== 'auth.test') return refusal('unknown_method', 404);
      const form = request.headers['content-type']?.startsWith('application/x-www-form-urlencoded');
      // Slack reads a JSON body only under a JSON content type, and takes `token` only from a form.
      if (!request.body && request.headers['content-type']?.startsWith('application/json')) {
        return refusal('invalid_json');
      }
      const body = request.body ?? {};
      const bearer = request.headers.authorization?.replace(/^Bearer /, '');
      const token = bearer ?? (form ? body.token : undefined);
      if (!token) return refusal('not_authed');
      if (token !== options.botToken) return refusal('invalid_auth');
      if (method === 'auth.test') {
        const { botUserId: user_id, botId: bot_id, teamId: team_id } = identity;
        return {
          status: 200,
          body: { ok: true, team: 'Fake Team', user: 'fakebot', team_id, user_id, bot_id },
        };
      }
      const { channel, text, thread_ts, blocks, attachments } = body;
      if (typeof channel !== 'string' || channel === '') return refusal('channel_not_found');
      if ((typeof text !== 'string' || text === '') && !blocks && !attachments) return refusal('no_text');
      if (typeof text === 'string' && text.length > 40_000) return refusal('msg_too_long');
      const ts = slackTs();
      const post: SlackPost = { channel, text: String(text ?? ''), ts };
      if (typeof thread_ts === 'string' && thread_ts !== '') post.thread_ts = thread_ts;
      posts.push(post);
      const { botUserId: user, botId: bot_id, teamId: team } = identity;
      const message = {
        user,
        type: 'message',
        ts,
        bot_id,
        app_id: 'A0FAKEAPP',
        text: post.text,
        team,
        ...(post.thread_ts ? { thread_ts: post.thread_ts } : {}),
      };
      return { status: 200, body: { ok: true, channel, ts, message } };
    },
  });
  return Object.assign(platform, { posts }, identity);
}

/** `X-Slack-Signature` of a request: `v0=` HMAC-SHA256 of `v0:{timestamp}:{raw body}`. */
export function slackSignature(signingSecret: string, timestamp: number | string, rawBody: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

/** The headers Slack sends with `rawBody`, signed at `timestamp` (Unix seconds, default now). */
export function slackHeaders(
  signingSecret: string,
  rawBody: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': slackSignature(signingSecret, timestamp, rawBody),
  };
}

export function slackUrlVerification(challenge: string) {
  return { token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge, type: 'url_verification' };
}

/** The envelope of an Events API delivery; `botUserId` is the installation's bot user. */
export function slackEventCallback(options: {
  eventId: string;
  event: Record<string, unknown>;
  teamId?: string;
  botUserId?: string;
  eventTime?: number;
}) {
  const teamId = options.teamId ?? 'T0FAKETEAM';
  return {
    token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
    team_id: teamId,
    context_team_id: teamId,
    api_app_id: 'A0FAKEAPP',
    event: options.event,
    type: 'event_callback',
    event_id: options.eventId,
    event_time: options.eventTime ?? Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: teamId,
        user_id: options.botUserId ?? 'U0FAKEBOT',
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
}

interface SlackMessageOptions {
  channel: string;
  text: string;
  user?: string;
  ts?: string;
  threadTs?: string;
  channelType?: 'channel' | 'group' | 'im' | 'mpim';
}

function messageFields(options: SlackMessageOptions) {
  const ts = options.ts ?? slackTs();
  return {
    ...(options.user ? { user: options.user } : {}),
    text: options.text,
    ts,
    ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
    channel: options.channel,
    event_ts: ts,
  };
}

/** A person's `message` event (user default `U0HUMAN`). */
export function slackMessage(options: SlackMessageOptions) {
  const fields = messageFields({ user: 'U0HUMAN', ...options });
  return { type: 'message', ...fields, channel_type: options.channelType ?? 'channel' };
}

/** An `app_mention` event; Slack sends it with no `channel_type`. */
export function slackAppMention(options: Omit<SlackMessageOptions, 'channelType'>) {
  return { type: 'app_mention', ...messageFields({ user: 'U0HUMAN', ...options }) };
}

/**
 * A bot's message: with `user` (an app's bot user, e.g. our own bot's) as apps post today, with
 * `bot_id` and `app_id` and no subtype; without it, the legacy `subtype: "bot_message"`.
 */
export function slackBotMessage(options: SlackMessageOptions & { botId: string }) {
  const legacy = options.user ? {} : { subtype: 'bot_message', username: 'some-bot' };
  const app = options.user ? { app_id: 'A0OTHERAPP' } : {};
  const fields = messageFields(options);
  return {
    type: 'message',
    ...legacy,
    ...fields,
    bot_id: options.botId,
    ...app,
    channel_type: options.channelType ?? 'channel',
  };
}

/** An edit: `message_changed`, the new text in `message`, the old one in `previous_message`. */
export function slackMessageChanged(options: SlackMessageOptions & { ts: string; previousText?: string }) {
  const user = options.user ?? 'U0HUMAN';
  const eventTs = slackTs();
  const message = {
    type: 'message',
    user,
    text: options.text,
    ts: options.ts,
    edited: { user, ts: eventTs },
  };
  return {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    message,
    previous_message: { type: 'message', user, text: options.previousText ?? '', ts: options.ts },
    channel: options.channel,
    channel_type: options.channelType ?? 'channel',
    ts: eventTs,
    event_ts: eventTs,
  };
}
