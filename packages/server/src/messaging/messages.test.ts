import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';

let server: TestServer;
let token: string;
beforeAll(async () => {
  server = await startTestServer({ basePath: '/svc' });
  await server.call('POST', '/api/default/agents', { body: { agentId: 'support', name: 'Support' } });
  token = (await createToken(server, 'default', ['messages'])).secret;
});

const send = (body: unknown, headers: Record<string, string> = {}) =>
  server.call('POST', '/api/v1/agents/support/messages', { body, token, headers });

describe('POST /api/v1/agents/{agentId}/messages', () => {
  it('queues a message and links to it under the mount prefix', async () => {
    const res = await send({ platform: 'api', content: 'hello' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: 'queued',
      links: { self: `/svc/api/v1/agents/support/messages/${res.body.id}` },
    });
    const got = await server.call('GET', `/api/v1/agents/support/messages/${res.body.id}`, { token });
    expect(got.body).toMatchObject({ id: res.body.id, status: 'queued', content: 'hello', reply: null });
  });

  it('keeps one conversation per (agent, platform, channel, thread)', async () => {
    const a = await send({ platform: 'api', content: 'one', channel: 'c1' });
    const b = await send({ platform: 'api', content: 'two', channel: 'c1' });
    const c = await send({
      platform: 'team_chat',
      content: 'three',
      team_chat: { channel: 'C1', thread: 't1' },
    });
    const d = await send({ platform: 'team_chat', content: 'four', team_chat: { channel: 'C1' } });
    expect(a.body.conversationId).toBe(b.body.conversationId);
    expect(new Set([a.body.conversationId, c.body.conversationId, d.body.conversationId]).size).toBe(3);
  });

  it('replays the first answer for a repeated Idempotency-Key, and refuses it with another body', async () => {
    const first = await send({ platform: 'api', content: 'once' }, { 'idempotency-key': 'k-1' });
    const again = await send({ platform: 'api', content: 'once' }, { 'idempotency-key': 'k-1' });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const { rows } = await server.pool.query(
      "SELECT count(*)::int AS n FROM messages WHERE content = 'once'",
    );
    expect(rows[0].n).toBe(1);
    const other = await send({ platform: 'api', content: 'different' }, { 'idempotency-key': 'k-1' });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
  });

  it('stores exactly one message when the same key arrives many times at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        send({ platform: 'api', content: 'race' }, { 'idempotency-key': 'k-race' }),
      ),
    );
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const { rows } = await server.pool.query(
      "SELECT count(*)::int AS n FROM messages WHERE content = 'race'",
    );
    expect(rows[0].n).toBe(1);
  });

  it('checks platform-aware routing fields', async () => {
    const missing = await send({ platform: 'team_chat', content: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toContainEqual(expect.objectContaining({ path: '/body/team_chat' }));
    const misplaced = await send({ platform: 'api', content: 'x', team_chat: { channel: 'C' } });
    expect(misplaced.body.errors).toContainEqual(expect.objectContaining({ path: '/body/team_chat' }));
    const unknown = await send({ platform: 'fax', content: 'x' });
    expect(unknown.body.errors).toContainEqual(expect.objectContaining({ path: '/body/platform' }));
  });

  it('keeps internal routes for admin tokens, and unknown agents 404', async () => {
    const internal = await send({ platform: 'internal.scheduler', content: 'tick' });
    expect(internal.status).toBe(403);
    const asAdmin = await server.call('POST', '/api/v1/agents/support/messages', {
      body: { platform: 'internal.scheduler', content: 'tick' },
    });
    expect(asAdmin.status).toBe(202);
    const missing = await server.call('POST', '/api/v1/agents/nobody/messages', {
      body: { platform: 'api', content: 'x' },
      token,
    });
    expect(missing.status).toBe(404);
  });

  it('refuses JSON content that cannot be stored as written, naming the field, and stores nothing', async () => {
    const count = async () =>
      (await server.pool.query('SELECT count(*)::int AS n FROM messages')).rows[0].n as number;
    const before = await count();
    for (const raw of [
      '{"platform": "api", "content": "a\\u0000b"}',
      '{"platform": "api", "content": "a\\ud800b"}',
    ]) {
      const res = await server.call('POST', '/api/v1/agents/support/messages', {
        raw,
        token,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, raw).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ path: '/body/content' }] });
    }
    // Bytes that are not UTF-8 are not JSON text at all (RFC 8259): refused whole, never repaired.
    const bytes = await fetch(`${server.url}/api/v1/agents/support/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: Buffer.concat([
        Buffer.from('{"platform": "api", "content": "a'),
        Buffer.from([0xff]),
        Buffer.from('"}'),
      ]),
    });
    expect(bytes.status).toBe(400);
    expect(((await bytes.json()) as any).code).toBe('malformed_json');
    expect(await count()).toBe(before);
  });
  it("checks each message against the agent's guardrails as they are when it is queued, not as the last one saw them", async () => {
    await server.call('POST', '/api/default/agents', { body: { agentId: 'changing', name: 'Changing' } });
    const to = (content: string) =>
      server.call('POST', '/api/v1/agents/changing/messages', {
        body: { platform: 'api', content },
        token,
      });
    const guardrails = async (value: Record<string, unknown>) => {
      const res = await server.call('PATCH', '/api/default/agents/changing/config', {
        body: { guardrails: value },
      });
      expect(res.status).toBe(200);
    };
    const stored = async (id: string) =>
      (await server.pool.query('SELECT content FROM messages WHERE id = $1', [id])).rows[0]?.content;
    expect((await to('the password is swordfish')).status).toBe(202);
    // The last message saw none: the statement that would queue this one finds a blocked term now.
    await guardrails({ blockedTerms: ['password'] });
    const refused = await to('my password is swordfish');
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('guardrail_blocked');
    expect(
      (await server.pool.query("SELECT 1 FROM messages WHERE content = 'my password is swordfish'")).rowCount,
    ).toBe(0);
    // The last one was refused by a term taken off since: read again, it is let in, masked now.
    await guardrails({ redactPii: true });
    const masked = await to('password: ada@example.com');
    expect(masked.status).toBe(202);
    expect(await stored(masked.body.id)).toBe('password: [email]');
    // Masking taken off since the last message: stored as written.
    await guardrails({ maxInputChars: 1000 });
    const plain = await to('ada@example.com');
    expect(plain.status).toBe(202);
    expect(await stored(plain.body.id)).toBe('ada@example.com');
    // Each queued message has its one message.queued event, numbered in order.
    const { rows } = await server.pool.query<{ seq: string }>(
      `SELECT e.seq FROM conversation_events e JOIN messages m ON m.id = e.message_id
        WHERE m.agent_id = 'changing' AND e.type = 'message.queued' ORDER BY e.seq`,
    );
    expect(rows.map((row) => Number(row.seq))).toEqual([1, 2, 3]);
    // Deleted since the last message: 404, nothing stored.
    expect((await server.call('DELETE', '/api/default/agents/changing')).status).toBeLessThan(300);
    expect((await to('anyone there?')).status).toBe(404);
  });
});
