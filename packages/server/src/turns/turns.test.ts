import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeAnthropicMessages,
  startFakeAnthropicMessages,
} from '../../test/fakes/anthropic-messages.js';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';

const KEY = `sk-canary-${randomBytes(8).toString('hex')}`;
const ANTHROPIC_KEY = `sk-ant-canary-${randomBytes(8).toString('hex')}`;
let fake: FakeChatCompletions;
let anthropic: FakeAnthropicMessages;
let server: TestServer;
let closedPort: number;

/** A port nothing listens on: connections to it are refused. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  anthropic = await startFakeAnthropicMessages();
  closedPort = await freePort();
  server = await startTestServer({
    secretEnv: {
      SVC_PROVIDER_OPENAI_BASE_URL: fake.url,
      SVC_PROVIDER_LOCAL_BASE_URL: `http://127.0.0.1:${closedPort}/v1`,
      SVC_PROVIDER_ANTHROPIC_BASE_URL: anthropic.url,
      // From the server's environment, which SVC_SECRETS_FROM_ENV lets this org use.
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    },
    workers: { concurrency: 4 },
  });
  expect(
    (await server.call('PUT', '/api/default/secrets/OPENAI_API_KEY', { body: { value: KEY } })).status,
  ).toBe(201);
});

async function agent(agentId: string, config: Record<string, unknown> = {}, providers?: unknown[]) {
  const created = await server.call('POST', '/api/default/agents', {
    body: {
      agentId,
      name: `Agent ${agentId}`,
      description: 'Answers questions',
      providers: providers ?? [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  if (Object.keys(config).length > 0) {
    const patched = await server.call('PATCH', `/api/default/agents/${agentId}/config`, { body: config });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  }
}

const send = (agentId: string, content: string, extra: { channel?: string; wait?: number } = {}) =>
  server.call('POST', `/api/v1/agents/${agentId}/messages`, {
    body: { platform: 'api', content, ...(extra.channel ? { channel: extra.channel } : {}) },
    headers: extra.wait === undefined ? {} : { prefer: `wait=${extra.wait}` },
  });

interface SseEvent {
  id: number;
  event: string;
  data: any;
}

/** Reads an SSE stream until `until` holds for an event (or `timeoutMs` passes), then stops. */
async function readEvents(
  path: string,
  until: (event: SseEvent) => boolean,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<{ events: SseEvent[]; raw: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${server.options.adminPassword}`, ...headers },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: SseEvent[] = [];
  let raw = '';
  let buffer = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true });
      raw += text;
      buffer += text;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((line) => !line.startsWith(':') && line.includes(': '))
            .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
        );
        if (fields.id === undefined) continue;
        const event = {
          id: Number(fields.id),
          event: String(fields.event),
          data: JSON.parse(String(fields.data)),
        };
        events.push(event);
        if (until(event)) return { events, raw };
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { events, raw };
}

describe('a turn', () => {
  it('answers through the provider, with the identity files in the system prompt and the org key', async () => {
    await agent('helper', {
      'IDENTITY.md': 'You are the helper of ACME.',
      'SOUL.md': 'Be brief and kind.',
      'USER.md': 'The user is an engineer.',
    });
    const before = fake.requests.length;
    const res = await send('helper', 'What is 2 + 2?', { wait: 10 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      status: 'completed',
      reply: 'Hello from gpt-4.1-mini',
      model: 'openai/gpt-4.1-mini',
      usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
      error: null,
      attempts: 1,
    });
    expect(res.body.startedAt).not.toBeNull();
    expect(res.body.firstTokenAt).not.toBeNull();
    expect(res.headers.get('preference-applied')).toBe('wait=10');

    const request = fake.requests[before];
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    const system = request?.body.messages[0];
    expect(system?.role).toBe('system');
    for (const part of ['Agent helper', 'Answers questions', 'ACME', 'Be brief and kind.', 'an engineer']) {
      expect(system?.content).toContain(part);
    }
    expect(request?.body.messages.at(-1)).toEqual({ role: 'user', content: 'What is 2 + 2?' });
    // The key reaches the provider and nothing else.
    expect(JSON.stringify(res.body)).not.toContain(KEY);
    const message = await server.call('GET', `/api/v1/agents/helper/messages/${res.body.id}`);
    expect(message.body).toMatchObject({ status: 'completed', reply: 'Hello from gpt-4.1-mini' });
  });

  it('streams over SSE: queued, started, coalesced deltas, completed; Last-Event-ID resumes after it', async () => {
    await agent('streamer');
    fake.answer = () => ({ text: 'one two three four five', delayMs: 20 });
    try {
      const accepted = await send('streamer', 'count to five', { channel: 'sse' });
      expect(accepted.status).toBe(202);
      const events = accepted.body.links.events as string;
      expect(events).toBe(`/api/v1/agents/streamer/conversations/${accepted.body.conversationId}/events`);
      const { events: all, raw } = await readEvents(events, (e) => e.event === 'reply.completed');
      expect(all.map((e) => e.event)).toEqual([
        'message.queued',
        'message.started',
        ...all.filter((e) => e.event === 'reply.delta').map(() => 'reply.delta'),
        'reply.completed',
      ]);
      expect(all.map((e) => e.id)).toEqual(all.map((_, i) => i + 1));
      const text = all
        .filter((e) => e.event === 'reply.delta')
        .map((e) => e.data.text)
        .join('');
      expect(text).toBe('one two three four five');
      expect(all.at(-1)?.data).toMatchObject({
        reply: 'one two three four five',
        model: 'openai/gpt-4.1-mini',
      });
      expect(raw).not.toContain(KEY);

      // A client that had everything up to message.started gets each later event once.
      const resumed = await readEvents(events, (e) => e.event === 'reply.completed', {
        'last-event-id': '2',
      });
      expect(resumed.events.map((e) => e.id)).toEqual(all.slice(2).map((e) => e.id));
    } finally {
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });

  it('keeps the conversation: the next message sees the earlier exchange', async () => {
    await agent('memory');
    await send('memory', 'My name is Ada.', { channel: 'c1', wait: 10 });
    const before = fake.requests.length;
    const second = await send('memory', 'What is my name?', { channel: 'c1', wait: 10 });
    expect(second.body.status).toBe('completed');
    const messages = fake.requests[before]?.body.messages.slice(1);
    expect(messages).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Hello from gpt-4.1-mini' },
      { role: 'user', content: 'What is my name?' },
    ]);
    // Another channel is another conversation.
    const other = fake.requests.length;
    await send('memory', 'Hello?', { channel: 'c2', wait: 10 });
    expect(fake.requests[other]?.body.messages.slice(1)).toEqual([{ role: 'user', content: 'Hello?' }]);
  });
});

describe('models', () => {
  it('honours a pinned model, its temperature and maxOutputTokens', async () => {
    await agent('pinned', {
      modelSelection: { mode: 'pinned', model: 'openai/gpt-pinned' },
      providerModelPreferences: { openai: { model: 'ignored', temperature: 0.3, maxOutputTokens: 77 } },
    });
    const before = fake.requests.length;
    const res = await send('pinned', 'hi', { wait: 10 });
    expect(res.body).toMatchObject({ status: 'completed', model: 'openai/gpt-pinned' });
    expect(fake.requests[before]?.body).toMatchObject({
      model: 'gpt-pinned',
      temperature: 0.3,
      max_tokens: 77,
    });
  });

  it('fails over to a fallback model when the first answers 503, and records which answered', async () => {
    await agent('failover', {
      providerModelPreferences: { openai: { model: 'flaky', fallbackModels: ['steady'] } },
    });
    fake.answer = (request) =>
      request.body.model === 'flaky' ? { status: 503 } : { text: `Hello from ${request.body.model}` };
    try {
      const res = await send('failover', 'hi', { wait: 10 });
      expect(res.body).toMatchObject({
        status: 'completed',
        model: 'openai/steady',
        reply: 'Hello from steady',
      });
    } finally {
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });

  it('fails over to the next provider when the first refuses connections (auto selection)', async () => {
    await agent(
      'auto-local-pref',
      {
        providerModelPreferences: { local: { model: 'tiny' } },
        modelSelection: { mode: 'auto', providers: ['local', 'openai'] },
      },
      [
        { key: 'local', secret_ref: '$OPENAI_API_KEY' },
        { key: 'openai', secret_ref: '$OPENAI_API_KEY' },
      ],
    );
    const res = await send('auto-local-pref', 'hi', { wait: 10 });
    expect(res.body).toMatchObject({ status: 'completed', model: 'openai/gpt-4.1-mini' });
  });
});

describe('the Anthropic Messages API', () => {
  it('answers through it, with the key from the server environment, the system prompt apart', async () => {
    await agent(
      'claude',
      { modelSelection: { mode: 'pinned', model: 'anthropic/claude-test' }, 'SOUL.md': 'Speak French.' },
      [{ key: 'anthropic', secret_ref: '$ANTHROPIC_API_KEY' }],
    );
    const res = await send('claude', 'Hello', { wait: 10 });
    expect(res.body).toMatchObject({
      status: 'completed',
      model: 'anthropic/claude-test',
      reply: 'Bonjour from claude-test',
      usage: { inputTokens: 21, outputTokens: 3 },
    });
    const request = anthropic.requests.at(-1);
    expect(request?.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(JSON.stringify(request?.body.system)).toContain('Speak French.');
    expect(request?.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }]);
    expect(JSON.stringify(res.body)).not.toContain(ANTHROPIC_KEY);
  });

  it('takes over when the Chat Completions provider before it is down (auto selection)', async () => {
    await agent('both', { modelSelection: { mode: 'auto', providers: ['openai', 'anthropic'] } }, [
      { key: 'openai', secret_ref: '$OPENAI_API_KEY' },
      { key: 'anthropic', secret_ref: '$ANTHROPIC_API_KEY' },
    ]);
    fake.answer = () => ({ status: 503 });
    try {
      const res = await send('both', 'anyone there?', { wait: 10 });
      expect(res.body).toMatchObject({ status: 'completed', model: 'anthropic/claude-sonnet-4-5' });
    } finally {
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });
});

describe('a turn that cannot run', () => {
  it('fails at once with no_provider, saying what to set', async () => {
    await agent('mute', {}, []);
    const res = await send('mute', 'hello?', { wait: 10 });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error.code).toBe('no_provider');
    expect(res.body.error.detail).toContain('svc secrets set OPENAI_API_KEY');
  });

  it('fails with secret_missing when the key resolves nowhere, naming it and no value', async () => {
    await agent('keyless', {}, [{ key: 'openai', secret_ref: '$NOT_STORED_ANYWHERE' }]);
    const res = await send('keyless', 'hello?', { wait: 10 });
    expect(res.body.status).toBe('failed');
    expect(res.body.error).toMatchObject({ code: 'secret_missing' });
    expect(res.body.error.detail).toContain('NOT_STORED_ANYWHERE');
  });

  it('fails with model_unavailable when every model fails', async () => {
    await agent('doomed', {
      providerModelPreferences: { openai: { model: 'down', fallbackModels: ['also-down'] } },
    });
    fake.answer = () => ({ status: 500 });
    try {
      const res = await send('doomed', 'hello?', { wait: 10 });
      expect(res.body.status).toBe('failed');
      expect(res.body.error.code).toBe('model_unavailable');
      expect(res.body.error.detail).toContain('openai/down: HTTP 500');
      expect(res.body.error.detail).toContain('openai/also-down: HTTP 500');
      expect(JSON.stringify(res.body)).not.toContain(KEY);
    } finally {
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });
});

describe('order', () => {
  it('answers the messages of one conversation one at a time, in order, while others run alongside', async () => {
    await agent('serial');
    fake.answer = (request) => ({
      text: `re: ${String(request.body.messages.at(-1)?.content)}`,
      delayMs: 15,
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await send('serial', `m${i}`, { channel: 'one' })).body.id);
      for (let i = 0; i < 3; i++) await send('serial', `other ${i}`, { channel: `other-${i}` });
      const done = await Promise.all(
        ids.map(async (id) => {
          for (let tries = 0; tries < 200; tries++) {
            const res = await server.call('GET', `/api/v1/agents/serial/messages/${id}`);
            if (res.body.status === 'completed') return res.body;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          throw new Error(`message ${id} not answered`);
        }),
      );
      for (let i = 1; i < done.length; i++) {
        expect(done[i].startedAt >= done[i - 1].completedAt, `m${i} started after m${i - 1} ended`).toBe(
          true,
        );
        expect(done[i].reply).toBe(`re: m${i}`);
      }
    } finally {
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });
});

describe('metrics', () => {
  it('count turns by outcome, their latency, time to first token, tokens by model and the queue', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const value = (line: RegExp) => Number(text.match(line)?.[1] ?? Number.NaN);
    expect(value(/^svc_turns_total\{outcome="completed"\} (\d+)/m)).toBeGreaterThanOrEqual(8);
    expect(value(/^svc_turns_total\{outcome="failed"\} (\d+)/m)).toBeGreaterThanOrEqual(3);
    expect(value(/^svc_turn_duration_seconds_count\{outcome="completed"\} (\d+)/m)).toBeGreaterThanOrEqual(8);
    expect(
      value(/^svc_turn_first_token_seconds_count\{model="openai\/gpt-4.1-mini"\} (\d+)/m),
    ).toBeGreaterThan(0);
    expect(
      value(/^svc_model_tokens_total\{model="anthropic\/claude-test",direction="input"\} (\d+)/m),
    ).toBeGreaterThanOrEqual(21);
    expect(value(/^svc_turn_queue\{status="queued"\} (\d+)/m)).toBe(0);
    expect(value(/^svc_turn_queue\{status="running"\} (\d+)/m)).toBe(0);
  });
});

describe('conversations and history', () => {
  it('lists conversations newest first and their messages oldest first, a page at a time', async () => {
    await agent('lister');
    for (const channel of ['a', 'b', 'c']) {
      for (let i = 0; i < 3; i++) await send('lister', `${channel}${i}`, { channel, wait: 10 });
    }
    const first = await server.call('GET', '/api/v1/agents/lister/conversations?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.conversations.map((c: any) => c.channel)).toEqual(['c', 'b']);
    expect(first.body.conversations[0]).toMatchObject({ platform: 'api', thread: null, agentId: 'lister' });
    const second = await server.call(
      'GET',
      `/api/v1/agents/lister/conversations?limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.conversations.map((c: any) => c.channel)).toEqual(['a']);
    expect(second.body.nextCursor).toBeNull();

    const id = second.body.conversations[0].id;
    const page1 = await server.call('GET', `/api/v1/agents/lister/conversations/${id}/messages?limit=2`);
    expect(page1.body.messages.map((m: any) => [m.content, m.reply])).toEqual([
      ['a0', 'Hello from gpt-4.1-mini'],
      ['a1', 'Hello from gpt-4.1-mini'],
    ]);
    const page2 = await server.call(
      'GET',
      `/api/v1/agents/lister/conversations/${id}/messages?limit=2&cursor=${page1.body.nextCursor}`,
    );
    expect(page2.body.messages.map((m: any) => m.content)).toEqual(['a2']);
    expect(page2.body.nextCursor).toBeNull();

    const bad = await server.call('GET', '/api/v1/agents/lister/conversations?cursor=nonsense');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/querystring/cursor');
    // Another org's token sees no such conversation.
    expect((await server.call('POST', '/api/orgs', { body: { slug: 'elsewhere' } })).status).toBe(201);
    const foreign = await createToken(server, 'elsewhere', ['messages']);
    const hidden = await server.call('GET', `/api/v1/agents/lister/conversations/${id}/messages`, {
      token: foreign.secret,
    });
    expect(hidden.status).toBe(404);
  });
});
