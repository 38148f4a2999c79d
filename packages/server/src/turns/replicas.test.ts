import { beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import { createTestDatabase, startTestServer, type TestServer } from '../../test/harness.js';

/**
 * Two replicas on one database, each with its own workers: every message is answered exactly once
 * and in order within its conversation, and a stream read from one replica shows turns that the
 * other's workers ran.
 */

let fake: FakeChatCompletions;
let a: TestServer;
let b: TestServer;
/** A replica with no workers: whatever it streams, another process's worker ran. */
let c: TestServer;

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  fake.answer = (request) => ({ text: `re: ${String(request.body.messages.at(-1)?.content)}` });
  const databaseUrl = await createTestDatabase();
  const common = {
    databaseUrl,
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-replicas' },
    messageRateLimit: null,
    streamTimings: { pollMs: 200 },
  };
  a = await startTestServer({ ...common, workers: { concurrency: 4 } });
  b = await startTestServer({ ...common, workers: { concurrency: 4 } });
  c = await startTestServer(common);
  await a.call('POST', '/api/default/agents', {
    body: { agentId: 'many', name: 'Many', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
}, 60_000);

describe('two replicas', () => {
  it('answer 200 messages over 20 conversations exactly once each, in order within each', async () => {
    const sent: { id: string; channel: string; content: string }[] = [];
    // Sent through both replicas, interleaved across conversations.
    for (let i = 0; i < 10; i++) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, c) => {
          const channel = `c${c}`;
          const content = `${channel}-m${i}`;
          const res = await (c % 2 ? a : b).call('POST', '/api/v1/agents/many/messages', {
            body: { platform: 'api', content, channel },
          });
          expect(res.status).toBe(202);
          sent.push({ id: res.body.id, channel, content });
        }),
      );
    }
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await a.pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM messages WHERE agent_id = 'many' AND status = 'completed'",
      );
      if (Number(rows[0]?.n) === 200) break;
      if (Date.now() > deadline) throw new Error(`only ${rows[0]?.n} of 200 answered`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Exactly once: one model call and one reply.completed per message.
    const asked = fake.requests.map((r) => String(r.body.messages.at(-1)?.content));
    expect(asked).toHaveLength(200);
    expect(new Set(asked).size).toBe(200);
    const { rows: completed } = await a.pool.query<{ message_id: string }>(
      "SELECT message_id FROM conversation_events WHERE type = 'reply.completed'",
    );
    expect(completed).toHaveLength(200);
    // In order: within a conversation, each turn started after the one before it ended.
    const { rows } = await a.pool.query<{
      content: string;
      channel: string;
      started_at: Date;
      completed_at: Date;
    }>(
      `SELECT m.content, c.channel, m.started_at, m.completed_at FROM messages m
         JOIN conversations c ON c.id = m.conversation_id
        WHERE m.agent_id = 'many' ORDER BY c.channel, m.created_at, m.id`,
    );
    for (let i = 1; i < rows.length; i++) {
      const [previous, current] = [rows[i - 1], rows[i]];
      if (!previous || !current || previous.channel !== current.channel) continue;
      expect(
        current.started_at >= previous.completed_at,
        `${current.content} after ${previous.content}`,
      ).toBe(true);
    }
    // The model saw each conversation's history in order.
    const last = fake.requests.find((r) => r.body.messages.at(-1)?.content === 'c3-m9');
    const seen = last?.body.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => `c3-m${i}`));
  }, 90_000);

  it('stream from any replica: one without workers shows a turn that another one ran', async () => {
    const accepted = await c.call('POST', '/api/v1/agents/many/messages', {
      body: { platform: 'api', content: 'watched', channel: 'watched' },
    });
    const controller = new AbortController();
    const res = await fetch(`${c.url}${accepted.body.links.events}`, {
      headers: { authorization: `Bearer ${c.options.adminPassword}` },
      signal: controller.signal,
    });
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (text.includes('event: reply.completed')) break;
    }
    controller.abort();
    expect(text).toContain('event: message.started');
    expect(text).toContain('"reply":"re: watched"');
  });
});
