import { beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { createOutputGuard, redactPii } from './guardrails.js';

describe('redactPii', () => {
  it('masks e-mail addresses and phone numbers, and leaves short numbers alone', () => {
    expect(redactPii('write to ada.lovelace+work@example.co.uk today')).toBe('write to [email] today');
    expect(redactPii('call +1 (555) 123-4567 or 0044 20 7946 0958')).toBe('call [phone] or [phone]');
    expect(redactPii('order 1234, 2 items, year 2026')).toBe('order 1234, 2 items, year 2026');
  });
});

describe('the output guard', () => {
  it('never lets part of an e-mail address out before it is whole, whatever the chunks', () => {
    const guard = createOutputGuard({ redactPii: true });
    const text = `${'Hello there, this is a long enough reply. '.repeat(3)}Mail ada@example.com now.`;
    let sent = '';
    for (const chunk of text.match(/.{1,3}/gs) ?? []) sent += guard.push(chunk);
    expect(sent).not.toContain('ada@');
    const end = guard.finish();
    if (!('reply' in end)) throw new Error('withheld');
    expect(sent + end.rest).toBe(end.reply);
    expect(end.reply).toContain('Mail [email] now.');
  });

  it('cuts the reply at maxOutputChars and says when the model may stop', () => {
    const guard = createOutputGuard({ maxOutputChars: 10 });
    expect(guard.push('0123456')).toBe('0123456');
    expect(guard.full).toBe(false);
    expect(guard.push('789abcdef')).toBe('789');
    expect(guard.full).toBe(true);
    expect(guard.finish()).toEqual({ rest: '', reply: '0123456789' });
  });

  it('withholds a reply that holds a blocked term, having sent none of the term', () => {
    const guard = createOutputGuard({ blockedTerms: ['Project Nightingale'] });
    let sent = '';
    for (const word of `${'fine words '.repeat(10)}about project nightingale here`.split(/(?= )/)) {
      sent += guard.push(word);
    }
    expect(sent.toLowerCase()).not.toContain('nightingale');
    expect(guard.finish()).toEqual({ withheld: expect.objectContaining({ code: 'guardrail_blocked' }) });
  });
});

let fake: FakeChatCompletions;
let server: TestServer;

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  server = await startTestServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-guard' },
    workers: {},
  });
});

async function guardedAgent(agentId: string, guardrails: Record<string, unknown>) {
  await server.call('POST', '/api/default/agents', {
    body: { agentId, name: agentId, providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  const res = await server.call('PATCH', `/api/default/agents/${agentId}/config`, { body: { guardrails } });
  expect(res.status).toBe(200);
}

const send = (agentId: string, content: string) =>
  server.call('POST', `/api/v1/agents/${agentId}/messages`, {
    body: { platform: 'api', content },
    headers: { prefer: 'wait=10' },
  });

async function messageCount(agentId: string): Promise<number> {
  const { rows } = await server.pool.query('SELECT 1 FROM messages WHERE agent_id = $1', [agentId]);
  return rows.length;
}

describe('guardrails of an agent', () => {
  it('maxInputChars and blockedTerms refuse the message with 422 guardrail_blocked, storing nothing', async () => {
    await guardedAgent('strict', { maxInputChars: 20, blockedTerms: ['password'] });
    const long = await send('strict', 'x'.repeat(21));
    expect(long.status).toBe(422);
    expect(long.body).toMatchObject({ code: 'guardrail_blocked', errors: [{ path: '/body/content' }] });
    expect(long.body.detail).toContain('at most 20');
    const term = await send('strict', 'my PASSWORD is');
    expect(term.status).toBe(422);
    expect(term.body.code).toBe('guardrail_blocked');
    expect(await messageCount('strict')).toBe(0);
    expect((await send('strict', 'short and fine')).body.status).toBe('completed');
  });

  it('redactPii masks the message before it is stored or sent, and the reply before it is streamed', async () => {
    await guardedAgent('private', { redactPii: true });
    fake.answer = () => ({
      text: `${'Sure, I can help you with that request right away. '.repeat(2)}Reach bob@example.org or +44 20 7946 0958.`,
      chunks: undefined,
    });
    try {
      const before = fake.requests.length;
      const res = await send('private', 'I am ada@example.com, phone +1 555 123 4567');
      expect(res.body.status).toBe('completed');
      expect(res.body.content).toBe('I am [email], phone [phone]');
      expect(fake.requests[before]?.body.messages.at(-1)?.content).toBe('I am [email], phone [phone]');
      expect(res.body.reply).toContain('Reach [email] or [phone].');
      const { rows } = await server.pool.query<{ data: { text?: string; reply?: string } }>(
        'SELECT data FROM conversation_events WHERE message_id = $1',
        [res.body.id],
      );
      const everything = JSON.stringify(rows);
      for (const pii of ['ada@example.com', 'bob@example.org', '555 123', '7946'])
        expect(everything).not.toContain(pii);
      const deltas = rows.map((r) => r.data.text ?? '').join('');
      expect(deltas).toBe(res.body.reply);
    } finally {
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });

  it('maxOutputChars cuts the reply; a blocked term in the reply withholds it', async () => {
    await guardedAgent('short', { maxOutputChars: 12 });
    fake.answer = () => ({ text: 'This reply goes on and on and on' });
    try {
      expect((await send('short', 'talk')).body).toMatchObject({
        status: 'completed',
        reply: 'This reply g',
      });
      await guardedAgent('discreet', { blockedTerms: ['on and on'] });
      const withheld = await send('discreet', 'talk');
      expect(withheld.body.status).toBe('failed');
      expect(withheld.body.error.code).toBe('guardrail_blocked');
      expect(withheld.body.reply).toBeNull();
    } finally {
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });
});
