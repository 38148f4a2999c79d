import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  slackAppMention,
  slackBotMessage,
  slackEventCallback,
  slackHeaders,
  slackMessage,
  slackMessageChanged,
  slackSignature,
  slackUrlVerification,
  startFakeSlack,
} from '../../test/fakes/slack.js';
import { startFakeTelegram, telegramHeaders, telegramUpdate } from '../../test/fakes/telegram.js';
import {
  startFakeWhatsApp,
  whatsappMessage,
  whatsappSignature,
  whatsappStatus,
  whatsappSubscribeQuery,
} from '../../test/fakes/whatsapp.js';

// The fakes of the chat platforms the webhook tests deliver replies to: each must answer as its
// platform does, or those tests prove nothing.

/** The answer's JSON, loosely typed for assertions. */
const read = async (response: Response | Promise<Response>): Promise<any> => (await response).json();

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

describe('fake Slack Web API', () => {
  it('posts with the bot token, refuses others as Slack does, and gives each message its own ts', async () => {
    const slack = await startFakeSlack({ botToken: 'xoxb-right' });
    const post = (body: unknown, token?: string) =>
      fetch(
        `${slack.url}/api/chat.postMessage`,
        json(body, token ? { authorization: `Bearer ${token}` } : {}),
      );

    const first = await post({ channel: 'C1', text: 'hello', thread_ts: '1700000000.000001' }, 'xoxb-right');
    expect(first.status).toBe(200);
    const answer = await read(first);
    expect(answer).toMatchObject({
      ok: true,
      channel: 'C1',
      message: { text: 'hello', bot_id: slack.botId },
    });
    expect(answer.ts).toMatch(/^\d{10}\.\d{6}$/);
    const form = await fetch(`${slack.url}/api/chat.postMessage`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'xoxb-right', channel: 'C2', text: 'by form' }),
    });
    expect((await read(form)).ts).not.toBe(answer.ts);

    expect(await read(post({ channel: 'C1', text: 'x' }, 'xoxb-wrong'))).toEqual({
      ok: false,
      error: 'invalid_auth',
    });
    expect(await read(post({ channel: 'C1', text: 'x' }))).toEqual({
      ok: false,
      error: 'not_authed',
    });
    expect(await read(post({ text: 'x' }, 'xoxb-right'))).toEqual({
      ok: false,
      error: 'channel_not_found',
    });
    expect(slack.posts).toEqual([
      { channel: 'C1', text: 'hello', thread_ts: '1700000000.000001', ts: answer.ts },
      { channel: 'C2', text: 'by form', ts: expect.any(String) },
    ]);
    expect(slack.requests).toHaveLength(5);
  });

  it('fails the next sends as scripted: 500, 429 with Retry-After, a reset connection, then posts', async () => {
    const slack = await startFakeSlack({ botToken: 'xoxb-right' });
    slack.failNext([
      { status: 500 },
      { status: 429, retryAfter: 3 },
      { reset: true },
      { error: 'not_in_channel' },
    ]);
    const post = () =>
      fetch(
        `${slack.url}/api/chat.postMessage`,
        json({ channel: 'C1', text: 'hi' }, { authorization: 'Bearer xoxb-right' }),
      );

    expect((await post()).status).toBe(500);
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(await read(limited)).toEqual({ ok: false, error: 'ratelimited' });
    await expect(post()).rejects.toThrow();
    expect(await read(post())).toEqual({ ok: false, error: 'not_in_channel' });
    expect((await read(post())).ok).toBe(true);
    expect(slack.requests).toHaveLength(5);
    expect(slack.posts).toHaveLength(1);
  });

  it('holds a send it received until released, and posts it even if the client went away', async () => {
    const slack = await startFakeSlack({ botToken: 'xoxb-right' });
    const held = slack.holdNext();
    const aborted = new AbortController();
    const sending = fetch(`${slack.url}/api/chat.postMessage`, {
      ...json({ channel: 'C1', text: 'in flight' }, { authorization: 'Bearer xoxb-right' }),
      signal: aborted.signal,
    });
    expect((await held.received).body).toMatchObject({ text: 'in flight' });
    expect(slack.posts).toEqual([]);
    aborted.abort();
    await expect(sending).rejects.toThrow();
    held.release();
    await expect.poll(() => slack.posts.length).toBe(1);
  });

  it('builds signed Events API deliveries', () => {
    const body = JSON.stringify(slackUrlVerification('chal'));
    expect(slackSignature('secret', 1700000000, body)).toBe(
      `v0=${createHmac('sha256', 'secret').update(`v0:1700000000:${body}`).digest('hex')}`,
    );
    expect(slackHeaders('secret', body, 1700000000)['x-slack-signature']).toBe(
      slackSignature('secret', '1700000000', body),
    );
    const message = slackMessage({ channel: 'C1', text: 'hi', threadTs: '1.2' });
    expect(slackEventCallback({ eventId: 'Ev1', event: message })).toMatchObject({
      type: 'event_callback',
      event_id: 'Ev1',
      team_id: 'T0FAKETEAM',
      authorizations: [{ user_id: 'U0FAKEBOT', is_bot: true }],
      event: {
        type: 'message',
        channel: 'C1',
        user: 'U0HUMAN',
        text: 'hi',
        thread_ts: '1.2',
        channel_type: 'channel',
      },
    });
    expect(slackAppMention({ channel: 'C1', text: '<@U0FAKEBOT> hi' })).not.toHaveProperty('channel_type');
    expect(slackBotMessage({ channel: 'C1', text: 'beep', botId: 'B9' })).toMatchObject({
      subtype: 'bot_message',
    });
    expect(
      slackBotMessage({ channel: 'C1', text: 'me', botId: 'B0FAKEBOT', user: 'U0FAKEBOT' }),
    ).not.toHaveProperty('subtype');
    expect(slackMessageChanged({ channel: 'C1', text: 'new', ts: '1.1' })).toMatchObject({
      subtype: 'message_changed',
      message: { text: 'new', ts: '1.1' },
    });
  });
});

describe('fake Telegram Bot API', () => {
  it('sends with the bot token and refuses what Telegram refuses', async () => {
    const telegram = await startFakeTelegram({ botToken: '123:right' });
    const send = (body: unknown, token = '123:right') =>
      fetch(`${telegram.url}/bot${token}/sendMessage`, json(body));

    const answer = await read(send({ chat_id: 42, text: 'hello', reply_parameters: { message_id: 7 } }));
    expect(answer).toMatchObject({
      ok: true,
      result: { chat: { id: 42 }, text: 'hello', from: { id: 123 } },
    });
    const wrong = await send({ chat_id: 42, text: 'x' }, '123:wrong');
    expect(wrong.status).toBe(401);
    expect(await read(wrong)).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    const long = await send({ chat_id: 42, text: 'x'.repeat(4097) });
    expect(long.status).toBe(400);
    expect(await read(long)).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: message is too long',
    });
    expect((await send({ chat_id: -5, text: 'x'.repeat(4096), reply_to_message_id: 3 })).status).toBe(200);
    expect(telegram.sent).toEqual([
      { chat_id: '42', text: 'hello', reply_to_message_id: 7, message_id: answer.result.message_id },
      { chat_id: '-5', text: 'x'.repeat(4096), reply_to_message_id: 3, message_id: expect.any(Number) },
    ]);
  });

  it('fails the next sends as scripted, 429 with parameters.retry_after', async () => {
    const telegram = await startFakeTelegram({ botToken: '123:right' });
    telegram.failNext([{ status: 500 }, { status: 429, retryAfter: 2 }, { reset: true }]);
    const send = () => fetch(`${telegram.url}/bot123:right/sendMessage`, json({ chat_id: 1, text: 'hi' }));

    expect((await send()).status).toBe(500);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(await read(limited)).toEqual({
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 2',
      parameters: { retry_after: 2 },
    });
    await expect(send()).rejects.toThrow();
    expect((await send()).status).toBe(200);
    expect(telegram.requests).toHaveLength(4);
    expect(telegram.sent).toHaveLength(1);
  });

  it('builds updates', () => {
    expect(telegramUpdate({ updateId: 9, chatId: 42, text: 'hi' })).toMatchObject({
      update_id: 9,
      message: { chat: { id: 42, type: 'private' }, from: { id: 42 }, text: 'hi' },
    });
    expect(telegramUpdate({ updateId: 10, chatId: -5, text: 'hi', edited: true, fromId: 8 })).toMatchObject({
      edited_message: { chat: { id: -5, type: 'group' }, from: { id: 8 } },
    });
    expect(telegramHeaders('s3')).toMatchObject({ 'x-telegram-bot-api-secret-token': 's3' });
  });
});

describe('fake WhatsApp Cloud API', () => {
  it('sends with the access token and answers errors as the Graph API does', async () => {
    const whatsapp = await startFakeWhatsApp({ accessToken: 'EAAright', phoneNumberId: '1055' });
    const send = (body: unknown, token = 'EAAright', phone = '1055') =>
      fetch(`${whatsapp.url}/v21.0/${phone}/messages`, json(body, { authorization: `Bearer ${token}` }));
    const text = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '16505551234',
      type: 'text',
    };

    const ok = await send({ ...text, text: { body: 'hello' } });
    const answer = await read(ok);
    expect(answer).toEqual({
      messaging_product: 'whatsapp',
      contacts: [{ input: '16505551234', wa_id: '16505551234' }],
      messages: [{ id: expect.stringMatching(/^wamid\./) }],
    });
    const wrong = await send({ ...text, text: { body: 'x' } }, 'EAAwrong');
    expect(wrong.status).toBe(401);
    expect((await read(wrong)).error).toMatchObject({
      type: 'OAuthException',
      code: 190,
      fbtrace_id: expect.any(String),
    });
    const bad = await send({ ...text, messaging_product: undefined, text: { body: 'x' } });
    expect(bad.status).toBe(400);
    expect((await read(bad)).error.code).toBe(100);
    expect((await send({ ...text, text: { body: 'x' } }, 'EAAright', '999')).status).toBe(400);
    expect(whatsapp.sent).toEqual([
      { phone_number_id: '1055', to: '16505551234', text: 'hello', id: answer.messages[0].id },
    ]);
  });

  it('fails the next sends as scripted, 429 with code 130429', async () => {
    const whatsapp = await startFakeWhatsApp({ accessToken: 'EAAright', phoneNumberId: '1055' });
    whatsapp.failNext([{ status: 500 }, { status: 429 }, { reset: true }]);
    const send = () =>
      fetch(
        `${whatsapp.url}/v19.0/1055/messages`,
        json(
          { messaging_product: 'whatsapp', to: '1650', type: 'text', text: { body: 'hi' } },
          { authorization: 'Bearer EAAright' },
        ),
      );

    expect((await send()).status).toBe(500);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect((await read(limited)).error.code).toBe(130429);
    await expect(send()).rejects.toThrow();
    expect((await send()).status).toBe(200);
    expect(whatsapp.requests).toHaveLength(4);
    expect(whatsapp.sent).toHaveLength(1);
  });

  it('builds signed webhook deliveries', () => {
    const body = JSON.stringify(
      whatsappMessage({ messageId: 'wamid.in1', from: '1650', text: 'hi', phoneNumberId: '1055' }),
    );
    expect(whatsappSignature('app', body)).toBe(
      `sha256=${createHmac('sha256', 'app').update(body).digest('hex')}`,
    );
    expect(JSON.parse(body)).toMatchObject({
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: '1055' },
                messages: [{ from: '1650', id: 'wamid.in1', type: 'text', text: { body: 'hi' } }],
              },
            },
          ],
        },
      ],
    });
    const status = whatsappStatus({ messageId: 'wamid.out', recipientId: '1650', phoneNumberId: '1055' });
    expect(status.entry[0]?.changes[0]?.value).toMatchObject({
      statuses: [{ id: 'wamid.out', status: 'delivered' }],
    });
    expect(new URLSearchParams(whatsappSubscribeQuery('v', 'c')).get('hub.challenge')).toBe('c');
  });
});
