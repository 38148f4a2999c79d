import { beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import { ADMIN_PASSWORD, createToken, startTestServer, type TestServer } from '../../test/harness.js';
import { everyPage } from '../../test/runtime.js';

let fake: FakeChatCompletions;
let server: TestServer;
let alice: string;
let bob: string;
let reader: string;

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  server = await startTestServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-private' },
    workers: {},
    messageRateLimit: null,
  });
  const created = await server.call('POST', '/api/default/agents', {
    body: {
      agentId: 'support',
      name: 'Support',
      providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
    },
  });
  expect(created.status).toBe(201);
  alice = (await createToken(server, 'default', ['messages'])).secret;
  bob = (await createToken(server, 'default', ['messages'])).secret;
  reader = (await createToken(server, 'default', ['read', 'messages'])).secret;
});

/** Sends and waits for the reply: answers the message and the prompt the model was given. */
async function converse(token: string, body: Record<string, unknown>) {
  const before = fake.requests.length;
  const res = await server.call('POST', '/api/v1/agents/support/messages', {
    body: { platform: 'api', ...body },
    token,
    headers: { prefer: 'wait=20' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status).toBe('completed');
  const prompt = JSON.stringify(fake.requests.slice(before).map((r) => r.body.messages));
  return { message: res.body, prompt };
}

const get = (token: string, path: string) => server.call('GET', `/api/v1/agents/support${path}`, { token });

async function streamStatus(token: string, conversationId: string): Promise<number> {
  const controller = new AbortController();
  const res = await fetch(`${server.url}/api/v1/agents/support/conversations/${conversationId}/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  controller.abort();
  return res.status;
}

describe('private conversations on platform api', () => {
  let aliceMessage: any;

  it("give each token a conversation of its own: the model never sees another token's messages", async () => {
    const first = await converse(alice, { content: 'my locker code is 4711' });
    aliceMessage = first.message;
    const other = await converse(bob, { content: 'what do you know about lockers?' });
    expect(other.message.conversationId).not.toBe(first.message.conversationId);
    expect(other.prompt).toContain('what do you know about lockers?');
    expect(other.prompt).not.toContain('4711');
    // The same token goes on in its own conversation, history included.
    const again = await converse(alice, { content: 'and what was my code?' });
    expect(again.message.conversationId).toBe(first.message.conversationId);
    expect(again.prompt).toContain('4711');
    // The admin password is a caller of its own.
    const admin = await converse(ADMIN_PASSWORD, { content: 'admin here' });
    expect(admin.prompt).not.toContain('4711');
    expect(new Set([admin.message.conversationId, first.message.conversationId]).size).toBe(2);
  });

  it('answer 404 to another token for the conversation, its history, its stream and its messages', async () => {
    const conversationId = aliceMessage.conversationId;
    for (const path of [`/conversations/${conversationId}/messages`, `/messages/${aliceMessage.id}`]) {
      const hidden = await get(bob, path);
      expect(hidden.status, path).toBe(404);
      expect(hidden.body.code).toBe('not_found');
      expect((await get(alice, path)).status, path).toBe(200);
    }
    expect(await streamStatus(bob, conversationId)).toBe(404);
    expect(await streamStatus(alice, conversationId)).toBe(200);
    const listed = await get(bob, '/conversations');
    expect(listed.body.conversations.map((c: any) => c.id)).not.toContain(conversationId);
    const own = await get(alice, '/conversations');
    expect(own.body.conversations.find((c: any) => c.id === conversationId)).toMatchObject({
      platform: 'api',
      channel: null,
      private: true,
    });
    // Nor can it write into it.
    const intrude = await server.call('POST', '/api/v1/agents/support/messages', {
      body: { platform: 'api', content: 'let me in', conversationId },
      token: bob,
    });
    expect(intrude.status).toBe(404);
  });

  it('answer 404 to another token for a file of the message, and the file to its sender', async () => {
    const form = new FormData();
    form.set('platform', 'api');
    form.set('content', 'my notes');
    form.append('files', new Blob(['private notes'], { type: 'text/plain' }), 'notes.txt');
    const sent = await fetch(`${server.url}/api/v1/agents/support/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}` },
      body: form,
    });
    expect(sent.status).toBe(202);
    const { id } = (await sent.json()) as { id: string };
    const message = await get(alice, `/messages/${id}`);
    const download = (token: string) =>
      fetch(`${server.url}${message.body.files[0].url}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await download(bob)).status).toBe(404);
    expect(await (await download(alice)).text()).toBe('private notes');
    expect((await download(reader)).status).toBe(200);
  });

  it('let tokens with the read scope see every conversation of the org', async () => {
    const listed = await get(reader, '/conversations?limit=200');
    const ids = listed.body.conversations.map((c: any) => c.id);
    expect(ids).toContain(aliceMessage.conversationId);
    expect((await get(reader, `/conversations/${aliceMessage.conversationId}/messages`)).status).toBe(200);
    expect((await get(reader, `/messages/${aliceMessage.id}`)).status).toBe(200);
    expect(await streamStatus(reader, aliceMessage.conversationId)).toBe(200);
    expect(await streamStatus(ADMIN_PASSWORD, aliceMessage.conversationId)).toBe(200);
  });

  it('continue a conversation the caller may see with conversationId', async () => {
    const continued = await converse(alice, {
      content: 'one more thing',
      conversationId: aliceMessage.conversationId,
    });
    expect(continued.message.conversationId).toBe(aliceMessage.conversationId);
    expect(continued.prompt).toContain('4711');
    const both = await server.call('POST', '/api/v1/agents/support/messages', {
      body: { platform: 'api', content: 'x', channel: 'c', conversationId: aliceMessage.conversationId },
      token: alice,
    });
    expect(both.status).toBe(400);
    expect(both.body.errors).toContainEqual(expect.objectContaining({ path: '/body/conversationId' }));
  });

  it('share a conversation named by a channel, on purpose', async () => {
    const first = await converse(alice, { content: 'the release is on friday', channel: 'team' });
    const second = await converse(bob, { content: 'when is the release?', channel: 'team' });
    expect(second.message.conversationId).toBe(first.message.conversationId);
    expect(second.prompt).toContain('the release is on friday');
    const listed = await get(bob, '/conversations');
    expect(listed.body.conversations.find((c: any) => c.id === first.message.conversationId)).toMatchObject({
      channel: 'team',
      private: false,
    });
    expect((await get(bob, `/conversations/${first.message.conversationId}/messages`)).status).toBe(200);
  });

  it("never replay one token's message to another that reuses its Idempotency-Key", async () => {
    const body = { platform: 'api', content: 'same words' };
    const headers = { 'idempotency-key': 'shared-key' };
    const first = await server.call('POST', '/api/v1/agents/support/messages', {
      body,
      headers,
      token: alice,
    });
    expect(first.status).toBe(202);
    const second = await server.call('POST', '/api/v1/agents/support/messages', {
      body,
      headers: { ...headers, prefer: 'wait=5' },
      token: bob,
    });
    expect(second.status).toBe(422);
    expect(second.body.code).toBe('idempotency_key_reused');
    expect(JSON.stringify(second.body)).not.toContain(first.body.id);
  });

  it('keep a conversation from before private conversations shared, as channel "default"', async () => {
    const { rows } = await server.pool.query<{ id: string }>(
      `INSERT INTO conversations (org_id, agent_id, platform, channel, thread)
       SELECT id, 'support', 'api', 'default', '' FROM orgs WHERE slug = 'default' RETURNING id`,
    );
    const legacy = rows[0]?.id as string;
    expect((await get(bob, `/conversations/${legacy}/messages`)).status).toBe(200);
    const sent = await server.call('POST', '/api/v1/agents/support/messages', {
      body: { platform: 'api', content: 'still here?', channel: 'default' },
      token: alice,
    });
    expect(sent.body.conversationId).toBe(legacy);
  });
});

describe('searching conversations with q', () => {
  const found = async (token: string, q: string) => {
    const res = await get(token, `/conversations?limit=200&q=${encodeURIComponent(q)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.conversations.map((c: { id: string }) => c.id);
  };
  /** A conversation of its own (a channel), with one message and the model's reply. */
  const conversationOf = async (content: string, reply = 'noted') => {
    const answer = fake.answer;
    fake.answer = () => ({ text: reply });
    try {
      const { message } = await converse(reader, { content, channel: `search-${Math.random()}` });
      return message.conversationId as string;
    } finally {
      fake.answer = answer;
    }
  };

  it('finds the conversations whose messages or replies contain q, in any case, and no other', async () => {
    const invoice = await conversationOf('Where is the Invoice for ACME?');
    const parcel = await conversationOf('where is it?', 'Your PARCEL ships on Tuesday');
    const neither = await conversationOf('nothing to see here');
    expect(await found(reader, 'invoice for acme')).toEqual([invoice]);
    expect(await found(reader, 'parcel')).toEqual([parcel]);
    expect(await found(reader, 'WHERE IS')).toEqual([parcel, invoice]);
    expect(await found(reader, 'zebra')).toEqual([]);
    expect(await found(reader, 'nothing')).toEqual([neither]);
  });

  it('matches %, _ and \\ as written, never as wildcards', async () => {
    const percent = await conversationOf('I am 100% sure');
    await conversationOf('I am 100 percent sure, 1000 times');
    const underscore = await conversationOf('call it snake_case');
    await conversationOf('call it snakeXcase');
    const backslash = await conversationOf('saved in C:\\temp\\notes');
    await conversationOf('saved in C:temp, or C:/temp');
    expect(await found(reader, '100%')).toEqual([percent]);
    expect(await found(reader, '%')).toEqual([percent]);
    expect(await found(reader, 'snake_case')).toEqual([underscore]);
    expect(await found(reader, 'C:\\temp')).toEqual([backslash]);
  });

  it("keeps the visibility rules: another token's private conversation is never found", async () => {
    // Alice's own conversation, where she told the model her locker code.
    const own = (await get(alice, '/conversations?limit=200')).body.conversations.filter(
      (c: { private: boolean }) => c.private,
    );
    expect(own).toHaveLength(1);
    expect(await found(bob, '4711')).toEqual([]);
    expect(await found(alice, '4711')).toEqual([own[0].id]);
    expect(await found(reader, '4711')).toEqual([own[0].id]);
  });

  it('pages through what it finds, each conversation once', async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await conversationOf(`paging needle ${i}`));
    const { items, pages } = await everyPage<{ id: string }>(
      server,
      '/api/v1/agents/support/conversations',
      '&q=NEEDLE',
      'conversations',
      2,
    );
    expect(items.map((c) => c.id)).toEqual(made.reverse());
    expect(pages).toBe(3);
  });

  it('refuses an empty q, and one over 200 characters', async () => {
    for (const q of ['', 'x'.repeat(201)]) {
      const res = await get(reader, `/conversations?q=${q}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ path: '/querystring/q' }] });
    }
  });
});
