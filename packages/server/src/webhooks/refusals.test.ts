import { Writable } from 'node:stream';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { slackEventCallback, slackHeaders, slackMessage } from '../../test/fakes/slack.js';
import { telegramHeaders, telegramUpdate } from '../../test/fakes/telegram.js';
import { whatsappHeaders, whatsappMessage, whatsappSubscribeQuery } from '../../test/fakes/whatsapp.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { putChatPlatforms } from '../../test/platform-configs.js';

/**
 * What a webhook URL does with calls that are not the platform's, with what must not be logged,
 * and with text a platform sends that cannot be stored as written.
 */

const SECRETS = {
  SLACK_SIGNING_SECRET: 'refusals-slack-signing-secret',
  SLACK_BOT_TOKEN: 'xoxb-refusals',
  TG_BOT_TOKEN: '123456:refusals',
  TG_SECRET_TOKEN: 'refusals-telegram-secret',
  WA_ACCESS_TOKEN: 'refusals-wa-access',
  WA_APP_SECRET: 'refusals-wa-app-secret',
  WA_VERIFY_TOKEN: 'refusals-wa-verify-token-4f1d',
};
const PHONE_NUMBER_ID = '1098765432';
/** Failed calls a client may make to one platform in a minute. */
const BUDGET = 2;

const logLines: string[] = [];
let server: TestServer;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  server = await startTestServer({
    authFailuresPerMinute: BUDGET,
    // Each test speaks as its own clients, through X-Forwarded-For.
    trustProxy: ['127.0.0.1'],
    logger: pino({ level: 'trace' }, sink),
  });
  await server.call('POST', '/api/default/agents', { body: { agentId: 'doors', name: 'Doors' } });
  await putChatPlatforms(server, 'doors', SECRETS, PHONE_NUMBER_ID);
});

let updates = 5000;
let messages = 0;

/** A webhook call from `client`, its body `payload` signed by `headers`. */
async function post(
  client: string,
  stableId: string,
  payload: unknown,
  headers: (raw: string) => Record<string, string>,
) {
  const raw = JSON.stringify(payload);
  return server.call('POST', `/api/v1/webhooks/${stableId}`, {
    raw,
    token: null,
    headers: { ...headers(raw), 'x-forwarded-for': client },
  });
}
const telegram = (client: string, secret: string, text = 'hello') =>
  post(client, 'doors-messenger-tg', telegramUpdate({ updateId: ++updates, chatId: 42, text }), () =>
    telegramHeaders(secret),
  );
const slackPayload = (text: string) =>
  slackEventCallback({ eventId: `Ev-${++messages}`, event: slackMessage({ channel: 'C0DOORS', text }) });
const slack = (client: string, secret: string, text = 'hello') =>
  post(client, 'doors-team-chat', slackPayload(text), (raw) => slackHeaders(secret, raw));
const whatsApp = (client: string, secret: string) =>
  post(
    client,
    'doors-messenger-wa',
    whatsappMessage({
      messageId: `wamid.${++messages}`,
      from: '15550001',
      text: 'hi',
      phoneNumberId: PHONE_NUMBER_ID,
    }),
    (raw) => whatsappHeaders(secret, raw),
  );
const subscribe = (client: string, verifyToken: string) =>
  server.call('GET', `/api/v1/webhooks/doors-messenger-wa?${whatsappSubscribeQuery(verifyToken, 'ch-1')}`, {
    token: null,
    headers: { 'x-forwarded-for': client },
  });

function expectRateLimited(res: { status: number; headers: Headers; body: any }) {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe('rate_limited');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe('refused webhook calls are throttled per client address and platform', () => {
  it('Telegram: after the budget even the right secret token is 429 from that address, and 200 from another', async () => {
    const guesser = '198.51.100.10';
    for (let i = 0; i < BUDGET; i++) {
      expect((await telegram(guesser, `guess-${i}`)).body.code).toBe('webhook_signature_invalid');
    }
    expectRateLimited(await telegram(guesser, 'guess-more'));
    // Taken now, a right guess would be confirmed: the budget holds it back like a wrong one.
    expectRateLimited(await telegram(guesser, SECRETS.TG_SECRET_TOKEN));
    expect(await telegram('198.51.100.11', SECRETS.TG_SECRET_TOKEN)).toMatchObject({
      status: 200,
      body: { ok: true, queued: 1 },
    });
    // Another platform from the guessing address has a budget of its own.
    expect((await slack(guesser, 'forged')).status).toBe(401);
  });

  it('Slack: forged calls are 429 after the budget; a correctly signed call is taken from any address', async () => {
    const forger = '198.51.100.20';
    for (let i = 0; i < BUDGET; i++) expect((await slack(forger, 'forged')).status).toBe(401);
    expectRateLimited(await slack(forger, 'forged'));
    // A valid HMAC of the body is not guessed: Slack's own calls from a busy address still pass.
    expect((await slack(forger, SECRETS.SLACK_SIGNING_SECRET)).body).toMatchObject({ queued: 1 });
    expect((await slack('198.51.100.21', SECRETS.SLACK_SIGNING_SECRET)).body).toMatchObject({ queued: 1 });
  });

  it('WhatsApp: forged notifications and wrong verify tokens share the platform budget', async () => {
    const forger = '198.51.100.30';
    expect((await whatsApp(forger, 'forged')).status).toBe(401);
    expect(await subscribe(forger, 'wrong-verify-token')).toMatchObject({
      status: 403,
      body: { code: 'webhook_verify_token_invalid' },
    });
    expectRateLimited(await whatsApp(forger, 'forged'));
    expectRateLimited(await subscribe(forger, SECRETS.WA_VERIFY_TOKEN));
    expect((await whatsApp(forger, SECRETS.WA_APP_SECRET)).body).toMatchObject({ queued: 1 });
    const other = await subscribe('198.51.100.31', SECRETS.WA_VERIFY_TOKEN);
    expect(other).toMatchObject({ status: 200, body: 'ch-1' });
  });
});

describe('query strings never reach the log', () => {
  it('holds no verify token, for any webhook path, known or not, well-formed or not', async () => {
    const canary = 'verify-canary-8c2e61';
    const queries = [canary, SECRETS.WA_VERIFY_TOKEN].map((token) => whatsappSubscribeQuery(token, 'c'));
    const paths = [
      '/api/v1/webhooks/doors-messenger-wa', // the right token, and a wrong one
      '/api/v1/webhooks/no-such-platform', // 404 unknown stable id
      '/api/v1/webhooks/doors-team-chat', // 404 not a WhatsApp platform
      '/api/v1/webhooks/doors-messenger-wa/extra', // 404 no route
      '/api/v1/webhooks/', // 404 no route
      `/api/v1/webhooks/${'x'.repeat(201)}`, // 400 stable id too long
      '/api/v1/webhooks/%E0%A4%A', // 400 bad percent-encoding
    ];
    const statuses: number[] = [];
    for (const path of paths) {
      for (const query of queries) {
        for (const method of ['GET', 'POST', 'HEAD']) {
          const client = `203.0.113.${statuses.length % 250}`;
          const res = await server.call(method, `${path}?${query}`, {
            token: null,
            headers: { 'x-forwarded-for': client },
          });
          statuses.push(res.status);
        }
      }
    }
    // An oversized query value is a 400 from the route's schema, its value not echoed.
    const long = await server.call(
      'GET',
      `/api/v1/webhooks/doors-messenger-wa?hub.verify_token=${canary}&hub.challenge=${'c'.repeat(1001)}`,
      { token: null },
    );
    expect(long.status).toBe(400);
    expect(new Set(statuses)).toEqual(new Set([200, 400, 401, 403, 404]));
    const log = logLines.join('');
    // The requests were logged, by path.
    expect(log).toContain('"url":"/api/v1/webhooks/doors-messenger-wa/extra"');
    expect(log).toContain('"url":"/api/v1/webhooks/no-such-platform"');
    expect(log).not.toContain(canary);
    expect(log).not.toContain(SECRETS.WA_VERIFY_TOKEN);
    expect(log).not.toContain('verify_token');
  });
});

describe('text a chat platform sends that cannot be stored as written', () => {
  const contents = async (where: string, value: string) => {
    const { rows } = await server.pool.query(`SELECT content FROM messages WHERE ${where}`, [value]);
    return rows.map((row) => row.content as string);
  };

  it('is kept with U+FFFD in place of each NUL and half surrogate pair, answered 200, logged without its text', async () => {
    const client = '192.0.2.1';
    const res = await telegram(client, SECRETS.TG_SECRET_TOKEN, 'unstorable-tg a\u0000b\ud800c');
    expect(res).toMatchObject({ status: 200, body: { queued: 1, ignored: 0 } });
    expect(await contents('content LIKE $1', 'unstorable-tg%')).toEqual(['unstorable-tg a\uFFFDb\uFFFDc']);
    const slackRes = await slack(client, SECRETS.SLACK_SIGNING_SECRET, 'unstorable-slack \udc00\u0000');
    expect(slackRes).toMatchObject({ status: 200, body: { queued: 1 } });
    expect(await contents('content LIKE $1', 'unstorable-slack%')).toEqual(['unstorable-slack \uFFFD\uFFFD']);
    const notes = logLines.filter((line) => line.includes('U+FFFD'));
    expect(notes.length).toBe(2);
    expect(notes.join('')).not.toContain('unstorable');
  });

  it('in an id, ignores its message with 200 so that the platform does not retry it', async () => {
    const update = telegramUpdate({ updateId: ++updates, chatId: 42, text: 'unstorable-id' });
    const payload = { ...update, message: { ...update.message, chat: { id: 'chat\u0000' } } };
    const res = await post('192.0.2.2', 'doors-messenger-tg', payload, () =>
      telegramHeaders(SECRETS.TG_SECRET_TOKEN),
    );
    expect(res).toMatchObject({ status: 200, body: { ok: true, queued: 0, ignored: 1 } });
    expect(await contents('content = $1', 'unstorable-id')).toEqual([]);
  });
});
