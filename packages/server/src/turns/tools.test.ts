import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeChatCompletions,
  type RecordedRequest,
  startFakeChatCompletions,
} from '../../test/fakes/chat-completions.js';
import { type FakeMcpHttp, startFakeMcpHttp } from '../../test/fakes/mcp-http.js';
import { startTestServer, type TestServer } from '../../test/harness.js';

const stdioServer = fileURLToPath(new URL('../../test/fakes/mcp-stdio-server.mjs', import.meta.url));
let fake: FakeChatCompletions;
let mcp: FakeMcpHttp;
let server: TestServer;

/** The tools offered, but the memory tools every agent has (tools/memory.test.ts checks those). */
const offered = (request: RecordedRequest | undefined) =>
  (request?.body.tools ?? [])
    .map((t) => t.function.name)
    .filter((name) => !name.startsWith('memory_'))
    .sort();
const lastMessage = (request: RecordedRequest) => request.body.messages.at(-1);

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  mcp = await startFakeMcpHttp();
  server = await startTestServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-tools' },
    mcpCommands: 'node',
    workers: {},
  });
  for (const [name, value] of [
    ['MCP_TOKEN', 'mcp-secret-value'],
    ['STDIO_TOKEN', 'stdio-secret-value'],
  ]) {
    expect((await server.call('PUT', `/api/default/secrets/${name}`, { body: { value } })).status).toBe(201);
  }
});

async function agentWithTools(agentId: string, config: Record<string, unknown>) {
  await server.call('POST', '/api/default/agents', {
    body: { agentId, name: agentId, providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  const res = await server.call('PATCH', `/api/default/agents/${agentId}/config`, { body: config });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const kit = () => ({ kit: { url: mcp.url, headers: { authorization: 'Bearer ${MCP_TOKEN}' } } });

const send = (agentId: string, content: string) =>
  server.call('POST', `/api/v1/agents/${agentId}/messages`, {
    body: { platform: 'api', content },
    headers: { prefer: 'wait=15' },
  });

async function eventsOf(messageId: string) {
  const { rows } = await server.pool.query<{ type: string; data: any }>(
    'SELECT type, data FROM conversation_events WHERE message_id = $1 ORDER BY seq',
    [messageId],
  );
  return rows;
}

describe('MCP tools over streamable HTTP', () => {
  it('are offered to the model, called with the org secret in their headers, and streamed as events', async () => {
    await agentWithTools('calculator', { mcpServers: kit() });
    fake.answer = (request) =>
      lastMessage(request)?.role === 'tool'
        ? { text: `The sum is ${String(lastMessage(request)?.content)}` }
        : { toolCalls: [{ name: 'kit__add', arguments: { a: 2, b: 3 } }] };
    try {
      const before = fake.requests.length;
      const res = await send('calculator', 'What is 2 + 3?');
      expect(res.body).toMatchObject({ status: 'completed', reply: expect.stringContaining('The sum is') });
      expect(res.body.reply).toContain('5');
      // Every tool is offered; the destructive one pauses the turn when called (below).
      expect(offered(fake.requests[before])).toEqual(['kit__add', 'kit__lookup', 'kit__wipe']);
      const call = mcp.calls.at(-1);
      expect(call).toMatchObject({ tool: 'add', input: { a: 2, b: 3 } });
      expect(call?.headers.authorization).toBe('Bearer mcp-secret-value');
      const events = await eventsOf(res.body.id);
      const toolEvents = events.filter((e) => e.type.startsWith('tool.'));
      expect(toolEvents).toEqual([
        { type: 'tool.call', data: expect.objectContaining({ tool: 'kit.add', input: { a: 2, b: 3 } }) },
        { type: 'tool.result', data: expect.objectContaining({ tool: 'kit.add' }) },
      ]);
      expect(JSON.stringify(events)).not.toContain('mcp-secret-value');
    } finally {
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });

  it('stay in the history: the next turn sees the call and its result, told as text once the tool is gone', async () => {
    await agentWithTools('recaller', { mcpServers: kit() });
    fake.answer = (request) =>
      lastMessage(request)?.role === 'tool'
        ? { text: 'It is 5.' }
        : lastMessage(request)?.content === 'What is 2 + 3?'
          ? { toolCalls: [{ name: 'kit__add', arguments: { a: 2, b: 3 } }] }
          : { text: 'noted' };
    try {
      expect((await send('recaller', 'What is 2 + 3?')).body.status).toBe('completed');
      const before = fake.requests.length;
      expect((await send('recaller', 'And how did you get it?')).body.status).toBe('completed');
      const messages = fake.requests[before]?.body.messages ?? [];
      const roles = messages.map((m) => m.role);
      expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
      const call = (messages[2] as any).tool_calls?.[0];
      expect(call).toMatchObject({ function: { name: 'kit__add' } });
      expect(JSON.parse(call.function.arguments)).toEqual({ a: 2, b: 3 });
      expect(messages[3]).toMatchObject({ tool_call_id: call.id });
      expect(String(messages[3]?.content)).toContain('5');
      expect(messages[4]).toMatchObject({ content: 'It is 5.' });

      // Without the MCP server, the call is told as text: a provider refuses calls to unknown tools.
      await server.call('PATCH', '/api/default/agents/recaller/config', { body: { mcpServers: {} } });
      const later = fake.requests.length;
      expect((await send('recaller', 'Still there?')).body.status).toBe('completed');
      const plain = fake.requests[later]?.body.messages ?? [];
      expect(plain.some((m) => m.role === 'tool' || (m as any).tool_calls)).toBe(false);
      expect(plain.map((m) => String(m.content)).join('\n')).toMatch(
        /\[tool kit__add was called earlier and answered: .*5/,
      );
    } finally {
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });

  it('follow toolsConfig allowed and denied', async () => {
    await agentWithTools('picky', {
      mcpServers: kit(),
      toolsConfig: { allowed: ['kit.*'], denied: ['kit.lookup'] },
      preApprovedTools: ['kit.wipe'],
    });
    const before = fake.requests.length;
    await send('picky', 'hello');
    expect(offered(fake.requests[before])).toEqual(['kit__add', 'kit__wipe']);
  });

  it('stop a tool loop at maxCallsPerTurn: the model is then asked to answer without tools', async () => {
    await agentWithTools('looper', { mcpServers: kit(), toolsConfig: { maxCallsPerTurn: 2 } });
    fake.answer = (request) =>
      (request.body.tools ?? []).length > 0
        ? { toolCalls: [{ name: 'kit__lookup', arguments: { word: `w${fake.requests.length}` } }] }
        : { text: 'giving up on lookups' };
    try {
      const calls = mcp.calls.length;
      const res = await send('looper', 'look everything up');
      expect(res.body).toMatchObject({ status: 'completed', reply: 'giving up on lookups' });
      expect(mcp.calls.length - calls).toBe(2);
    } finally {
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });

  it("are not reached outside the agent's networkConfig", async () => {
    await agentWithTools('fenced', { mcpServers: kit(), networkConfig: { allowedDomains: ['example.com'] } });
    const before = fake.requests.length;
    expect((await send('fenced', 'hello')).body.status).toBe('completed');
    expect(offered(fake.requests[before])).toEqual([]);
  });
});

describe('MCP tools over stdio', () => {
  it('run the command with the env secrets resolved, and none of the server environment', async () => {
    process.env.SVC_PROBE_SECRET = 'must-not-reach-the-tool';
    await agentWithTools('local', {
      mcpServers: { local: { command: 'node', args: [stdioServer], env: { TOOL_TOKEN: '${STDIO_TOKEN}' } } },
    });
    fake.answer = (request) =>
      lastMessage(request)?.role === 'tool'
        ? { text: String(lastMessage(request)?.content) }
        : { toolCalls: [{ name: 'local__whoami', arguments: {} }] };
    try {
      const res = await send('local', 'who are you?');
      expect(res.body.status).toBe('completed');
      expect(res.body.reply).toContain('stdio-secret-value');
      // The tool's JSON, inside the text the fake model echoed: no SVC_* variable reached it.
      expect(res.body.reply).toMatch(/leaked\\*":\[\]/);
    } finally {
      delete process.env.SVC_PROBE_SECRET;
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });
});

describe('MCP tools behind OAuth', () => {
  it('get a client_credentials token with the org secret, reuse it, and never show the secret', async () => {
    const secured = await startFakeMcpHttp({
      oauth: { clientId: 'svc-client', clientSecret: 'oauth-secret-value' },
    });
    expect(
      (
        await server.call('PUT', '/api/default/secrets/MCP_CLIENT_SECRET', {
          body: { value: 'oauth-secret-value' },
        })
      ).status,
    ).toBe(201);
    await agentWithTools('guarded', {
      mcpServers: {
        secured: {
          url: secured.url,
          oauth: { client_id: 'svc-client', client_secret: '${MCP_CLIENT_SECRET}', scopes: ['tools:read'] },
        },
      },
    });
    fake.answer = (request) =>
      lastMessage(request)?.role === 'tool'
        ? { text: `Got ${String(lastMessage(request)?.content)}` }
        : { toolCalls: [{ name: 'secured__add', arguments: { a: 20, b: 22 } }] };
    try {
      const first = await send('guarded', 'add please');
      expect(first.body).toMatchObject({ status: 'completed', reply: expect.stringContaining('42') });
      expect(secured.tokenRequests).toEqual([
        { grantType: 'client_credentials', scope: 'tools:read', clientId: 'svc-client' },
      ]);
      expect(secured.calls.at(-1)?.headers.authorization).toBe('Bearer fake-mcp-access-token');
      // The next turn reuses the token.
      expect((await send('guarded', 'again')).body.status).toBe('completed');
      expect(secured.tokenRequests).toHaveLength(1);
      expect(secured.calls).toHaveLength(2);
      const events = await eventsOf(first.body.id);
      expect(JSON.stringify([events, first.body])).not.toContain('oauth-secret-value');
    } finally {
      fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
    }
  });

  it('leave the server out of the turn when the client is refused, and the turn still answers', async () => {
    const secured = await startFakeMcpHttp({
      oauth: { clientId: 'svc-client', clientSecret: 'the-right-one' },
    });
    await agentWithTools('refused', {
      mcpServers: {
        secured: { url: secured.url, oauth: { client_id: 'svc-client', client_secret: 'wrong' } },
      },
    });
    const before = fake.requests.length;
    const res = await send('refused', 'hello');
    expect(res.body.status).toBe('completed');
    expect(offered(fake.requests[before])).toEqual([]);
    expect(secured.tokenRequests).toHaveLength(1);
    expect(secured.calls).toHaveLength(0);
  });

  it('send the credentials to no authorization server but the issuer (by default the MCP server origin)', async () => {
    const secured = await startFakeMcpHttp({ oauth: { clientId: 'svc-client', clientSecret: 's3cret' } });
    await agentWithTools('elsewhere', {
      mcpServers: {
        secured: {
          url: secured.url,
          oauth: { client_id: 'svc-client', client_secret: 's3cret', issuer: 'https://auth.example.com' },
        },
      },
    });
    expect((await send('elsewhere', 'hello')).body.status).toBe('completed');
    expect(secured.tokenRequests).toHaveLength(0);
  });
});
