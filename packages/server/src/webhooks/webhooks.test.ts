import { beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import {
  type FakeSlack,
  slackAppMention,
  slackBotMessage,
  slackEventCallback,
  slackHeaders,
  slackMessage,
  slackMessageChanged,
  slackUrlVerification,
  startFakeSlack,
} from '../../test/fakes/slack.js';
import {
  type FakeTelegram,
  startFakeTelegram,
  telegramHeaders,
  telegramUpdate,
} from '../../test/fakes/telegram.js';
import {
  type FakeWhatsApp,
  startFakeWhatsApp,
  whatsappHeaders,
  whatsappMessage,
  whatsappStatus,
  whatsappSubscribeQuery,
} from '../../test/fakes/whatsapp.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { putChatPlatforms } from '../../test/platform-configs.js';

/**
 * Chat platforms end to end: a webhook call signed the platform's way becomes one message, one
 * turn and one reply delivered through the platform's API (fakes on 127.0.0.1); a call that is not
 * the platform's, or is one it already made, queues nothing and starts no turn.
 */

const SECRETS = {
  SLACK_SIGNING_SECRET: 'slack-signing-secret-value',
  SLACK_BOT_TOKEN: 'xoxb-slack-bot-token-value',
  TG_BOT_TOKEN: '123456:telegram-bot-token-value',
  TG_SECRET_TOKEN: 'telegram-secret-token-value',
  WA_ACCESS_TOKEN: 'whatsapp-access-token-value',
  WA_APP_SECRET: 'whatsapp-app-secret-value',
  WA_VERIFY_TOKEN: 'whatsapp-verify-token-value',
};
const PHONE_NUMBER_ID = '1098765432';

let model: FakeChatCompletions;
let slack: FakeSlack;
let telegram: FakeTelegram;
let whatsapp: FakeWhatsApp;
let server: TestServer;

beforeAll(async () => {
  model = await startFakeChatCompletions();
  model.answer = (request) => ({ text: `re: ${String(request.body.messages.at(-1)?.content)}` });
  slack = await startFakeSlack({ botToken: SECRETS.SLACK_BOT_TOKEN });
  telegram = await startFakeTelegram({ botToken: SECRETS.TG_BOT_TOKEN });
  whatsapp = await startFakeWhatsApp({
    accessToken: SECRETS.WA_ACCESS_TOKEN,
    phoneNumberId: PHONE_NUMBER_ID,
  });
  server = await startTestServer({
    secretEnv: {
      SVC_PROVIDER_OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-webhooks',
      SVC_TEAM_CHAT_API_URL: slack.url,
      SVC_MESSENGER_API_URL: telegram.url,
      SVC_WHATSAPP_API_URL: whatsapp.url,
    },
    workers: { deliveries: { backoffMs: 100, pollMs: 50 } },
  });
  await server.call('POST', '/api/default/agents', {
    body: { agentId: 'chat', name: 'Chat', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  await putChatPlatforms(server, 'chat', SECRETS, PHONE_NUMBER_ID);
});

/** Posts `payload` to a webhook as the platform would, with `headers(raw)` for its signature. */
async function hook(stableId: string, payload: unknown, headers: (raw: string) => Record<string, string>) {
  const raw = JSON.stringify(payload);
  return server.call('POST', `/api/v1/webhooks/${stableId}`, { raw, headers: headers(raw) });
}
const fromSlack = (payload: unknown, extra: Record<string, string> = {}) =>
  hook('chat-team-chat', payload, (raw) => ({
    ...slackHeaders(SECRETS.SLACK_SIGNING_SECRET, raw),
    ...extra,
  }));

async function until<T>(what: string, check: () => T | Promise<T>, ms = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Long enough for a second turn or delivery, were there one, to have happened. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 600));

async function messageCount(): Promise<number> {
  const { rows } = await server.pool.query<{ n: string }>('SELECT count(*) AS n FROM messages');
  return Number(rows[0]?.n);
}

describe('team_chat: the Slack Events API', () => {
  it('refuses a signed body that is not a JSON object, queueing nothing', async () => {
    const res = await hook('chat-team-chat', [1, 2], (raw) =>
      slackHeaders(SECRETS.SLACK_SIGNING_SECRET, raw),
    );
    expect(res).toMatchObject({ status: 400, body: { code: 'malformed_request' } });
  });

  it('escapes a reply as Slack asks, so that it cannot ping a channel or disguise a link', async () => {
    model.answer = () => ({ text: '<!channel> see <https://evil.example|your bank> & more' });
    try {
      const posts = slack.posts.length;
      const event = slackMessage({ channel: 'C0ESCAPE', text: 'a &lt;b&gt; &amp; c' });
      await fromSlack(slackEventCallback({ eventId: 'Ev-escape', event }));
      const post = await until('the reply', () => slack.posts[posts]);
      expect(post.text).toBe('&lt;!channel&gt; see &lt;https://evil.example|your bank&gt; &amp; more');
      // What the person typed reached the model unescaped.
      expect(model.requests.at(-1)?.body.messages.at(-1)?.content).toBe('a <b> & c');
    } finally {
      model.answer = (request) => ({ text: `re: ${String(request.body.messages.at(-1)?.content)}` });
    }
  });

  it('checks nothing and takes nothing when its config has no signing secret', async () => {
    await server.pool.query(
      `INSERT INTO platforms (stable_id, type, config, org_id, agent_id)
       SELECT 'chat-team-chat-bare', 'team_chat', '{"bot_token": "$SLACK_BOT_TOKEN"}', org_id, agent_id
         FROM agents WHERE agent_id = 'chat'`,
    );
    const payload = slackEventCallback({
      eventId: 'Ev-bare',
      event: slackMessage({ channel: 'C0', text: 'x' }),
    });
    // Signed with an empty key, as anyone could.
    const res = await hook('chat-team-chat-bare', payload, (raw) => slackHeaders('', raw));
    expect(res).toMatchObject({ status: 503, body: { code: 'secret_missing' } });
    expect(res.body.detail).toMatch(/no signing_secret/);
  });

  it('answers url_verification with its challenge', async () => {
    const res = await fromSlack(slackUrlVerification('the-challenge'));
    expect(res).toMatchObject({ status: 200, body: { challenge: 'the-challenge' } });
  });

  it('answers a message once, in its thread, through chat.postMessage with the bot token', async () => {
    const posts = slack.posts.length;
    const event = slackMessage({ channel: 'C0GENERAL', text: 'hello svc' });
    const res = await fromSlack(slackEventCallback({ eventId: 'Ev-hello', event }));
    expect(res).toMatchObject({ status: 200, body: { ok: true, queued: 1 } });
    const post = await until('the reply', () => slack.posts[posts]);
    expect(post).toMatchObject({ channel: 'C0GENERAL', thread_ts: event.ts, text: 're: hello svc' });
    const request = slack.requests.find((r) => r.body?.text === 're: hello svc');
    expect(request?.headers.authorization).toBe(`Bearer ${SECRETS.SLACK_BOT_TOKEN}`);
    await settle();
    expect(slack.posts.length - posts).toBe(1);
    const { rows } = await server.pool.query("SELECT delivery FROM messages WHERE content = 'hello svc'");
    expect(rows).toEqual([{ delivery: 'delivered' }]);
  });

  it("refuses a call that is not Slack's, queueing nothing and starting no turn", async () => {
    const before = await messageCount();
    const asked = model.requests.length;
    const payload = slackEventCallback({
      eventId: 'Ev-forged',
      event: slackMessage({ channel: 'C0GENERAL', text: 'forged' }),
    });
    const raw = JSON.stringify(payload);
    const good = slackHeaders(SECRETS.SLACK_SIGNING_SECRET, raw);
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    const attempts: [string, Record<string, string>, string, string][] = [
      ['wrong signature', slackHeaders('another-secret', raw), raw, 'webhook_signature_invalid'],
      [
        '6 minutes old',
        slackHeaders(SECRETS.SLACK_SIGNING_SECRET, raw, sixMinutesAgo),
        raw,
        'webhook_signature_stale',
      ],
      ['no signature', { 'content-type': 'application/json' }, raw, 'webhook_signature_missing'],
      ['one byte changed', good, raw.replace('forged', 'forgeD'), 'webhook_signature_invalid'],
    ];
    for (const [what, headers, body, code] of attempts) {
      const res = await server.call('POST', '/api/v1/webhooks/chat-team-chat', { raw: body, headers });
      expect(res.status, what).toBe(401);
      expect(res.headers.get('content-type'), what).toContain('application/problem+json');
      expect(res.body.code, what).toBe(code);
    }
    await settle();
    expect(await messageCount()).toBe(before);
    expect(model.requests.length).toBe(asked);
  });

  it('takes a retry storm (the same event 4 times, the last while the turn runs) as one turn and one reply', async () => {
    model.answer = (request) => ({
      text: `slow re: ${String(request.body.messages.at(-1)?.content)}`,
      delayMs: 400,
    });
    try {
      const posts = slack.posts.length;
      const asked = model.requests.length;
      const payload = slackEventCallback({
        eventId: 'Ev-storm',
        event: slackMessage({ channel: 'C0STORM', text: 'storm' }),
      });
      const first = await fromSlack(payload);
      expect(first.body).toMatchObject({ queued: 1, duplicates: 0 });
      await until('the turn to start', () => model.requests.length > asked);
      for (const retry of ['1', '2', '3']) {
        const res = await fromSlack(payload, {
          'x-slack-retry-num': retry,
          'x-slack-retry-reason': 'http_timeout',
        });
        expect(res).toMatchObject({ status: 200, body: { queued: 0, duplicates: 1 } });
      }
      await until('the reply', () => slack.posts.length > posts);
      await settle();
      expect(slack.posts.length - posts).toBe(1);
      expect(model.requests.length - asked).toBe(1);
    } finally {
      model.answer = (request) => ({ text: `re: ${String(request.body.messages.at(-1)?.content)}` });
    }
  });

  it('answers a mention once, though Slack sends it as both message and app_mention', async () => {
    const posts = slack.posts.length;
    const message = slackMessage({ channel: 'C0MENTION', text: `<@${slack.botUserId}> what time is it?` });
    const mention = slackAppMention({ channel: 'C0MENTION', text: message.text, ts: message.ts });
    await fromSlack(slackEventCallback({ eventId: 'Ev-m1', event: message }));
    await fromSlack(slackEventCallback({ eventId: 'Ev-m2', event: mention }));
    const post = await until('the reply', () => slack.posts[posts]);
    expect(post.text).toBe('re: what time is it?');
    await settle();
    expect(slack.posts.length - posts).toBe(1);
  });

  it("ignores the bot's own messages, other bots' and edits", async () => {
    const before = await messageCount();
    for (const [eventId, event] of [
      [
        'Ev-own',
        slackBotMessage({ channel: 'C0GENERAL', text: 'mine', user: slack.botUserId, botId: slack.botId }),
      ],
      ['Ev-bot', slackBotMessage({ channel: 'C0GENERAL', text: 'a bot', botId: 'B0OTHER' })],
      ['Ev-edit', slackMessageChanged({ channel: 'C0GENERAL', text: 'edited', ts: '1700000000.000001' })],
    ] as const) {
      const res = await fromSlack(slackEventCallback({ eventId, event }));
      expect(res.body, eventId).toMatchObject({ ok: true, queued: 0, ignored: 1 });
    }
    expect(await messageCount()).toBe(before);
  });
});

describe('messenger: the Telegram Bot API', () => {
  const fromTelegram = (update: unknown, token = SECRETS.TG_SECRET_TOKEN) =>
    hook('chat-messenger-tg', update, () => telegramHeaders(token));

  it('answers a message in its chat through sendMessage, once, whatever Telegram sends again', async () => {
    const sent = telegram.sent.length;
    const update = telegramUpdate({ updateId: 9001, chatId: 5551234, text: 'hi from telegram' });
    expect((await fromTelegram(update)).body).toMatchObject({ queued: 1 });
    expect((await fromTelegram(update)).body).toMatchObject({ queued: 0, duplicates: 1 });
    const reply = await until('the reply', () => telegram.sent[sent]);
    expect(reply).toMatchObject({ chat_id: '5551234', text: 're: hi from telegram' });
    // The chat's conversation is this bot's: another bot of the agent talking to the same person has its own.
    const { rows } = await server.pool.query(
      "SELECT channel FROM conversations WHERE platform = 'messenger'",
    );
    expect(rows.map((r) => r.channel)).toContain('chat-messenger-tg:5551234');
    await settle();
    expect(telegram.sent.length - sent).toBe(1);
  });

  it('refuses a wrong or missing secret token', async () => {
    const before = await messageCount();
    const update = telegramUpdate({ updateId: 9002, chatId: 5551234, text: 'forged' });
    expect((await fromTelegram(update, 'not-the-token')).body.code).toBe('webhook_signature_invalid');
    const bare = await server.call('POST', '/api/v1/webhooks/chat-messenger-tg', {
      raw: JSON.stringify(update),
      headers: { 'content-type': 'application/json' },
    });
    expect(bare).toMatchObject({ status: 401, body: { code: 'webhook_signature_missing' } });
    expect(await messageCount()).toBe(before);
  });

  it('splits a reply over 4,096 characters into parts sent in order', async () => {
    const long = `${'a'.repeat(3000)} ${'b'.repeat(3000)} end`;
    model.answer = () => ({ text: long });
    try {
      const sent = telegram.sent.length;
      await fromTelegram(telegramUpdate({ updateId: 9003, chatId: 5559999, text: 'long please' }));
      await until('both parts', () => telegram.sent.length - sent >= 2);
      const parts = telegram.sent.slice(sent).map((s) => s.text);
      expect(parts.every((part) => part.length <= 4096)).toBe(true);
      expect(parts.join(' ')).toBe(long);
    } finally {
      model.answer = (request) => ({ text: `re: ${String(request.body.messages.at(-1)?.content)}` });
    }
  });

  it('delivers once through 500, 429 with retry_after and a reset connection', async () => {
    telegram.failNext([{ status: 500 }, { status: 429, retryAfter: 1 }, { reset: true }]);
    const sent = telegram.sent.length;
    const tries = telegram.requests.length;
    await fromTelegram(telegramUpdate({ updateId: 9004, chatId: 5550000, text: 'through the storm' }));
    const reply = await until('the reply', () => telegram.sent[sent]);
    expect(reply.text).toBe('re: through the storm');
    await settle();
    expect(telegram.sent.length - sent).toBe(1);
    const attempts = telegram.requests.slice(tries).filter((r) => r.path.endsWith('/sendMessage'));
    expect(attempts).toHaveLength(4);
    // Telegram's retry_after was waited for: a second at least between the 429 and the next try.
    expect((attempts[2]?.receivedAt ?? 0) - (attempts[1]?.receivedAt ?? 0)).toBeGreaterThanOrEqual(950);
  });
});

describe('messenger with flavor "whatsapp": the WhatsApp Cloud API', () => {
  const fromWhatsApp = (payload: unknown, secret = SECRETS.WA_APP_SECRET) =>
    hook('chat-messenger-wa', payload, (raw) => whatsappHeaders(secret, raw));

  it('echoes hub.challenge for the verify token, and 403 for another', async () => {
    const ok = await fetch(
      `${server.url}/api/v1/webhooks/chat-messenger-wa?${whatsappSubscribeQuery(SECRETS.WA_VERIFY_TOKEN, '1158201444')}`,
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    const wrong = await fetch(
      `${server.url}/api/v1/webhooks/chat-messenger-wa?${whatsappSubscribeQuery('guess', '1158201444')}`,
    );
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('content-type')).toContain('application/problem+json');
    expect(await wrong.text()).not.toContain('1158201444');
  });

  it('answers a text message to its sender once; statuses and replays are not answered', async () => {
    const sent = whatsapp.sent.length;
    const message = whatsappMessage({
      messageId: 'wamid.HBgL1',
      from: '15551230000',
      text: 'hola',
      phoneNumberId: PHONE_NUMBER_ID,
    });
    expect((await fromWhatsApp(message)).body).toMatchObject({ queued: 1 });
    expect((await fromWhatsApp(message)).body).toMatchObject({ queued: 0, duplicates: 1 });
    const status = whatsappStatus({
      messageId: 'wamid.OUT1',
      recipientId: '15551230000',
      phoneNumberId: PHONE_NUMBER_ID,
    });
    expect((await fromWhatsApp(status)).body).toMatchObject({ queued: 0, ignored: 1 });
    const reply = await until('the reply', () => whatsapp.sent[sent]);
    expect(reply).toMatchObject({ to: '15551230000', text: 're: hola', phone_number_id: PHONE_NUMBER_ID });
    await settle();
    expect(whatsapp.sent.length - sent).toBe(1);
  });

  it('refuses a body signed with another app secret', async () => {
    const message = whatsappMessage({
      messageId: 'wamid.F',
      from: '1555',
      text: 'x',
      phoneNumberId: PHONE_NUMBER_ID,
    });
    const res = await fromWhatsApp(message, 'another-app-secret');
    expect(res).toMatchObject({ status: 401, body: { code: 'webhook_signature_invalid' } });
  });
});

describe('secrets of a platform', () => {
  it('missing at webhook time: 503 secret_missing naming the reference, never a value', async () => {
    await server.call('DELETE', '/api/default/secrets/TG_SECRET_TOKEN');
    try {
      const update = telegramUpdate({ updateId: 9100, chatId: 1, text: 'x' });
      const res = await hook('chat-messenger-tg', update, () => telegramHeaders(SECRETS.TG_SECRET_TOKEN));
      expect(res).toMatchObject({ status: 503, body: { code: 'secret_missing' } });
      expect(res.body.detail).toContain('TG_SECRET_TOKEN');
      expect(JSON.stringify(res.body)).not.toContain(SECRETS.TG_BOT_TOKEN);
    } finally {
      await server.call('PUT', '/api/default/secrets/TG_SECRET_TOKEN', {
        body: { value: SECRETS.TG_SECRET_TOKEN },
      });
    }
  });

  it('changed: the next call is checked with the new one', async () => {
    await server.call('PUT', '/api/default/secrets/TG_SECRET_TOKEN', { body: { value: 'rotated-token' } });
    try {
      const update = telegramUpdate({ updateId: 9101, chatId: 1, text: 'after rotation' });
      const old = await hook('chat-messenger-tg', update, () => telegramHeaders(SECRETS.TG_SECRET_TOKEN));
      expect(old.status).toBe(401);
      const rotated = await hook('chat-messenger-tg', update, () => telegramHeaders('rotated-token'));
      expect(rotated).toMatchObject({ status: 200, body: { queued: 1 } });
    } finally {
      await server.call('PUT', '/api/default/secrets/TG_SECRET_TOKEN', {
        body: { value: SECRETS.TG_SECRET_TOKEN },
      });
    }
  });

  it('a platform that refuses the delivery for good: the message says delivery failed, with its error', async () => {
    slack.failNext([{ error: 'channel_not_found' }]);
    const event = slackMessage({ channel: 'C0GONE', text: 'nobody there' });
    const res = await fromSlack(slackEventCallback({ eventId: 'Ev-gone', event }));
    expect(res.body.queued).toBe(1);
    const row = await until('the failed delivery', async () => {
      const { rows } = await server.pool.query(
        "SELECT id, delivery, delivery_error FROM messages WHERE content = 'nobody there' AND delivery = 'failed'",
      );
      return rows[0];
    });
    const message = await server.call('GET', `/api/v1/agents/chat/messages/${row.id}`);
    expect(message.body).toMatchObject({
      status: 'completed',
      delivery: 'failed',
      deliveryError: { code: 'delivery_failed', detail: 'Slack answered channel_not_found' },
    });
  });
});
