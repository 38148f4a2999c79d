import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, createToken, startTestServer, type TestServer } from '../../test/harness.js';
import { parseRateLimit } from './rate-limit.js';

const send = (server: TestServer, token: string, content = 'hi') =>
  server.call('POST', '/api/v1/agents/bot/messages', { token, body: { platform: 'api', content } });

async function messageCount(server: TestServer): Promise<number> {
  const { rows } = await server.pool.query<{ n: string }>('SELECT count(*) AS n FROM messages');
  return Number(rows[0]?.n);
}

let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  // Two replicas on one database, five messages a minute per token.
  const databaseUrl = await createTestDatabase();
  a = await startTestServer({ databaseUrl, messageRateLimit: { count: 5, periodMs: 60_000 } });
  b = await startTestServer({ databaseUrl, messageRateLimit: { count: 5, periodMs: 60_000 } });
  expect(
    (await a.call('POST', '/api/default/agents', { body: { agentId: 'bot', name: 'Bot' } })).status,
  ).toBe(201);
});

describe('the message budget of a token', () => {
  it('is shared by every replica, and the message over it is a 429 problem that stores nothing', async () => {
    const { secret } = await createToken(a, 'default', ['messages']);
    const before = await messageCount(a);
    for (const server of [a, b, a, b, a]) expect((await send(server, secret)).status).toBe(202);
    const refused = await send(b, secret, 'one too many');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(refused.body.detail).toContain('5 messages per 60 s');
    // Five a minute is one every 12 s: that is how long the next one waits.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(9);
    expect(retryAfter).toBeLessThanOrEqual(12);
    expect(await messageCount(a)).toBe(before + 5);
  });

  it('is per token: another token of the org, and reading, are not slowed', async () => {
    const spent = await createToken(a, 'default', ['messages']);
    const own = await send(a, spent.secret);
    for (let i = 0; i < 4; i++) await send(a, spent.secret);
    expect((await send(a, spent.secret)).status).toBe(429);
    const fresh = await createToken(a, 'default', ['messages']);
    const accepted = await send(a, fresh.secret);
    expect(accepted.status).toBe(202);
    for (let i = 0; i < 10; i++) {
      // Its own message: another token's, in that token's private conversation, would be 404.
      const read = await a.call('GET', `/api/v1/agents/bot/messages/${own.body.id}`, {
        token: spent.secret,
      });
      expect(read.status).toBe(200);
    }
  });

  it('lets exactly the budget through when requests arrive at once', async () => {
    const { secret } = await createToken(a, 'default', ['messages']);
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => send(i % 2 ? a : b, secret, `burst ${i}`)),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(11);
    // Each refusal read the budget as the last granted request left it: the next one is ~12 s away.
    for (const refused of answers.filter((r) => r.status === 429)) {
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(9);
    }
  });

  it('is spent only on messages it queues: not on replays, unknown agents or refused requests', async () => {
    const { secret } = await createToken(a, 'default', ['messages']);
    const keyed = (key: string, content: string) =>
      a.call('POST', '/api/v1/agents/bot/messages', {
        token: secret,
        headers: { 'idempotency-key': key },
        body: { platform: 'api', content },
      });
    expect((await keyed('k1', 'once')).status).toBe(202);
    for (let i = 0; i < 6; i++) {
      const replay = await keyed('k1', 'once');
      expect(replay.status).toBe(202);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    }
    expect((await keyed('k1', 'another body')).body.code).toBe('idempotency_key_reused');
    for (let i = 0; i < 6; i++) {
      const missing = await a.call('POST', '/api/v1/agents/nobody/messages', {
        token: secret,
        body: { platform: 'api', content: 'hello?' },
      });
      expect(missing.status).toBe(404);
      const internal = await a.call('POST', '/api/v1/agents/bot/messages', {
        token: secret,
        body: { platform: 'internal.cron', content: 'x' },
      });
      expect(internal.status).toBe(403);
    }
    // One message queued so far: four more fit, the fifth does not.
    for (let i = 0; i < 4; i++) expect((await send(a, secret)).status).toBe(202);
    expect((await send(a, secret)).status).toBe(429);
    // A replay of a queued message is still answered once the budget is spent.
    expect((await keyed('k1', 'once')).status).toBe(202);
  });

  it('refills with time', async () => {
    const fast = await startTestServer({ messageRateLimit: { count: 4, periodMs: 4000 } });
    await fast.call('POST', '/api/default/agents', { body: { agentId: 'bot', name: 'Bot' } });
    const { secret } = await createToken(fast, 'default', ['messages']);
    for (let i = 0; i < 4; i++) expect((await send(fast, secret)).status).toBe(202);
    expect((await send(fast, secret)).status).toBe(429);
    // One step (1 s) later, one more fits; not two (that would take the test 900 ms more).
    await sleep(1100);
    expect((await send(fast, secret)).status).toBe(202);
    expect((await send(fast, secret)).status).toBe(429);
  });
});

describe('SVC_MESSAGES_RATE_LIMIT', () => {
  it('defaults to 60 a minute, takes n/s, n/min, n/h and off', () => {
    expect(parseRateLimit(undefined)).toEqual({ count: 60, periodMs: 60_000 });
    expect(parseRateLimit('5/s')).toEqual({ count: 5, periodMs: 1000 });
    expect(parseRateLimit(' 1000 / h ')).toEqual({ count: 1000, periodMs: 3_600_000 });
    expect(parseRateLimit('off')).toBeNull();
  });

  it('refuses anything else, saying what it takes', () => {
    for (const bad of ['60', '0/min', '-1/min', '60/day', 'lots']) {
      expect(() => parseRateLimit(bad), bad).toThrow(/must be like 60\/min, 5\/s or 1000\/h, or "off"/);
    }
  });
});
