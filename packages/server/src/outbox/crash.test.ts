import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import {
  type FakeSlack,
  slackEventCallback,
  slackHeaders,
  slackMessage,
  startFakeSlack,
} from '../../test/fakes/slack.js';
import { createTestDatabase, startTestServer, type TestServer } from '../../test/harness.js';
import { spawnSvc } from '../../test/spawn-svc.js';

/**
 * `kill -9` of the `svc worker` that is sending a reply, after Slack received it and before the
 * worker could mark it delivered. No platform API takes an idempotency key for a post, so what
 * happens is the documented trade: the delivery's lease lapses, another worker sends it again, and
 * the reply arrives twice (at most once more per crash) rather than never.
 */

const key = randomBytes(32);
const SIGNING_SECRET = 'crash-signing-secret';
const BOT_TOKEN = 'xoxb-crash-bot-token';
let model: FakeChatCompletions;
let slack: FakeSlack;
let server: TestServer;
let databaseUrl: string;
const workers: ReturnType<typeof spawnSvc>[] = [];

function startWorker() {
  const child = spawnSvc(['worker', '--concurrency', '2'], {
    DATABASE_URL: databaseUrl,
    SVC_ENCRYPTION_KEY: key.toString('hex'),
    SVC_PROVIDER_OPENAI_BASE_URL: model.url,
    SVC_TEAM_CHAT_API_URL: slack.url,
    SVC_DELIVERY_LEASE_MS: '1500',
    SVC_LOG_LEVEL: 'warn',
  });
  workers.push(child);
  return child;
}

beforeAll(async () => {
  model = await startFakeChatCompletions();
  model.answer = () => ({ text: 'the reply' });
  slack = await startFakeSlack({ botToken: BOT_TOKEN });
  databaseUrl = await createTestDatabase();
  server = await startTestServer({ databaseUrl, encryptionKey: key });
  for (const [name, value] of [
    ['OPENAI_API_KEY', 'sk-crash'],
    ['SLACK_SIGNING_SECRET', SIGNING_SECRET],
    ['SLACK_BOT_TOKEN', BOT_TOKEN],
  ]) {
    await server.call('PUT', `/api/default/secrets/${name}`, { body: { value } });
  }
  await server.call('POST', '/api/default/agents', {
    body: { agentId: 'crash', name: 'Crash', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  await server.call('PUT', '/api/default/agents/crash/platforms/by-stable-id/crash-team-chat', {
    body: {
      type: 'team_chat',
      config: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN' },
    },
  });
}, 60_000);

afterAll(() => {
  for (const child of workers)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('kill -9 of the worker between sending a reply and marking it delivered', () => {
  it('sends it again from another worker: the reply arrives twice, never zero times, and is marked delivered', async () => {
    const victim = startWorker();
    const held = slack.holdNext();
    const payload = JSON.stringify(
      slackEventCallback({ eventId: 'Ev-crash', event: slackMessage({ channel: 'C0CRASH', text: 'hello' }) }),
    );
    const res = await server.call('POST', '/api/v1/webhooks/crash-team-chat', {
      raw: payload,
      headers: slackHeaders(SIGNING_SECRET, payload),
    });
    expect(res.body).toMatchObject({ queued: 1 });
    await held.received;
    victim.kill('SIGKILL');
    await new Promise((resolve) => victim.once('exit', resolve));
    // Slack had it: it answers the dead worker's request, and the post stands.
    held.release();
    startWorker();
    const deadline = Date.now() + 20_000;
    let row: { delivery: string; attempts: number } | undefined;
    while (Date.now() < deadline) {
      const { rows } = await server.pool.query<{ delivery: string; attempts: number }>(
        "SELECT m.delivery, o.attempts FROM messages m JOIN outbox o ON o.message_id = m.id WHERE m.content = 'hello'",
      );
      row = rows[0];
      if (row?.delivery === 'delivered') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(row, workers.map((w) => w.output()).join('\n')).toEqual({ delivery: 'delivered', attempts: 2 });
    expect(slack.posts.filter((p) => p.channel === 'C0CRASH').map((p) => p.text)).toEqual([
      'the reply',
      'the reply',
    ]);
  }, 60_000);
});
