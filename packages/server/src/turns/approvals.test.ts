import { beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeChatCompletions,
  type RecordedRequest,
  startFakeChatCompletions,
} from '../../test/fakes/chat-completions.js';
import { type FakeMcpHttp, startFakeMcpHttp } from '../../test/fakes/mcp-http.js';
import { createTestDatabase, startTestServer, type TestServer } from '../../test/harness.js';

/**
 * Approvals, against what users of the AI SDK, Mastra and Letta report: a destructive call pauses
 * the turn (never skipped), a decision applies to its own call only, it is taken once, it can come
 * through another replica than the one whose worker paused, and an undecided one expires instead
 * of blocking the conversation forever.
 */

let fake: FakeChatCompletions;
let mcp: FakeMcpHttp;
let a: TestServer;
let b: TestServer;

const lastMessage = (request: RecordedRequest) => request.body.messages.at(-1);
/** Calls `wipe` for each target, then answers with what the tools said. */
function wiping(...targets: string[]) {
  fake.answer = (request) =>
    lastMessage(request)?.role === 'tool'
      ? {
          text: `done: ${request.body.messages
            .filter((m) => m.role === 'tool')
            .map((m) => JSON.stringify(m.content))
            .join(' | ')}`,
        }
      : { toolCalls: targets.map((target) => ({ name: 'kit__wipe', arguments: { target } })) };
}

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  mcp = await startFakeMcpHttp();
  const databaseUrl = await createTestDatabase();
  const common = {
    databaseUrl,
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-approvals' },
  };
  // A runs the turns; B only answers HTTP, as a second replica would.
  a = await startTestServer({ ...common, workers: { approvalTtlMs: 60_000, reapMs: 200 } });
  b = await startTestServer(common);
  await a.call('POST', '/api/default/agents', {
    body: { agentId: 'ops', name: 'Ops', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  await a.call('PATCH', '/api/default/agents/ops/config', {
    body: { mcpServers: { kit: { url: mcp.url } } },
  });
});

const send = (content: string, channel: string, wait = 10) =>
  a.call('POST', '/api/v1/agents/ops/messages', {
    body: { platform: 'api', content, channel },
    headers: wait > 0 ? { prefer: `wait=${wait}` } : {},
  });

async function approvalsOf(messageId: string) {
  const { rows } = await a.pool.query<{ type: string; data: any }>(
    "SELECT type, data FROM conversation_events WHERE message_id = $1 AND type = 'approval.requested' ORDER BY seq",
    [messageId],
  );
  return rows.map((r) => r.data);
}

async function status(messageId: string, until: string[], ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await a.call('GET', `/api/v1/agents/ops/messages/${messageId}`);
    if (until.includes(res.body.status) || Date.now() > deadline) return res.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const decide = (server: TestServer, approvalId: string, decision: 'approve' | 'reject', reason?: string) =>
  server.call('POST', `/api/v1/agents/ops/approvals/${approvalId}`, {
    body: { decision, ...(reason ? { reason } : {}) },
  });

describe('a destructive tool call', () => {
  it('pauses the turn; later messages wait; approving on another replica runs it once and resumes', async () => {
    wiping('staging');
    const wipes = mcp.calls.filter((c) => c.tool === 'wipe').length;
    const paused = await send('wipe staging', 'c1');
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('awaiting_approval');
    const [request] = await approvalsOf(paused.body.id);
    expect(request).toMatchObject({ tool: 'kit.wipe', input: { target: 'staging' } });
    expect(mcp.calls.filter((c) => c.tool === 'wipe').length).toBe(wipes);

    // A later message of the conversation waits behind the paused turn.
    fake.answer = (r) =>
      lastMessage(r)?.role === 'tool'
        ? { text: 'done' }
        : r.body.messages.at(-1)?.content === 'and then?'
          ? { text: 'next' }
          : { toolCalls: [{ name: 'kit__wipe', arguments: { target: 'staging' } }] };
    const later = await send('and then?', 'c1', 0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await status(later.body.id, ['queued'])).status).toBe('queued');

    const approved = await decide(b, request.approvalId, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.body.approval).toMatchObject({ status: 'approved', tool: 'kit.wipe' });
    const done = await status(paused.body.id, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    expect(mcp.calls.filter((c) => c.tool === 'wipe').map((c) => c.input)).toEqual([{ target: 'staging' }]);
    expect((await status(later.body.id, ['completed'])).reply).toBe('next');

    // Decided once: a second decision, either way, on either replica, is 409 and changes nothing.
    for (const [server, decision] of [
      [a, 'reject'],
      [b, 'approve'],
    ] as const) {
      const again = await decide(server, request.approvalId, decision);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('conflict');
    }
    expect(mcp.calls.filter((c) => c.tool === 'wipe').length).toBe(wipes + 1);
  });

  it('binds each decision to its own call: approve one of two, reject the other', async () => {
    wiping('alpha', 'beta');
    const before = mcp.calls.filter((c) => c.tool === 'wipe').length;
    const paused = await send('wipe both', 'c2');
    expect(paused.body.status).toBe('awaiting_approval');
    const requests = await approvalsOf(paused.body.id);
    expect(requests.map((r) => r.input.target).sort()).toEqual(['alpha', 'beta']);
    const alpha = requests.find((r) => r.input.target === 'alpha');
    const beta = requests.find((r) => r.input.target === 'beta');
    await decide(a, beta.approvalId, 'reject', 'beta is production');
    // One decision is not enough: the turn stays paused.
    expect((await status(paused.body.id, ['completed'], 300)).status).toBe('awaiting_approval');
    await decide(b, alpha.approvalId, 'approve');
    const done = await status(paused.body.id, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    expect(
      mcp.calls
        .filter((c) => c.tool === 'wipe')
        .slice(before)
        .map((c) => c.input),
    ).toEqual([{ target: 'alpha' }]);
    // The model was told which call was refused, and why.
    expect(done.reply).toContain('wiped alpha');
    expect(done.reply).toContain('beta is production');
  });

  it('does not pause when preApprovedTools names the tool', async () => {
    await a.call('POST', '/api/default/agents', {
      body: {
        agentId: 'trusted',
        name: 'Trusted',
        providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
      },
    });
    await a.call('PATCH', '/api/default/agents/trusted/config', {
      body: { mcpServers: { kit: { url: mcp.url } }, preApprovedTools: ['kit.wipe'] },
    });
    wiping('scratch');
    const res = await a.call('POST', '/api/v1/agents/trusted/messages', {
      body: { platform: 'api', content: 'wipe scratch' },
      headers: { prefer: 'wait=10' },
    });
    expect(res.body.status).toBe('completed');
    expect(mcp.calls.at(-1)).toMatchObject({ tool: 'wipe', input: { target: 'scratch' } });
  });
});

describe('an approved call', () => {
  it('runs once, even when the turn running it is handed back and taken up by another worker', async () => {
    const databaseUrl = await createTestDatabase();
    const common = {
      databaseUrl,
      secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-once' },
    };
    const first = await startTestServer({ ...common, workers: { reapMs: 200 } });
    await first.call('POST', '/api/default/agents', {
      body: { agentId: 'ops', name: 'Ops', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
    });
    await first.call('PATCH', '/api/default/agents/ops/config', {
      body: { mcpServers: { kit: { url: mcp.url } } },
    });
    // After the tool ran, the model takes long to answer: long enough to stop the worker meanwhile.
    let slow = true;
    fake.answer = (request) =>
      lastMessage(request)?.role === 'tool'
        ? slow
          ? { text: 'still thinking', delayMs: 30_000 }
          : { text: `after: ${JSON.stringify(lastMessage(request)?.content)}` }
        : { toolCalls: [{ name: 'kit__wipe', arguments: { target: 'once' } }] };
    const wipes = () =>
      mcp.calls.filter((c) => c.tool === 'wipe' && (c.input as any).target === 'once').length;
    const paused = await first.call('POST', '/api/v1/agents/ops/messages', {
      body: { platform: 'api', content: 'wipe once' },
      headers: { prefer: 'wait=10' },
    });
    expect(paused.body.status).toBe('awaiting_approval');
    const { rows } = await first.pool.query<{ id: string }>(
      'SELECT id FROM approvals WHERE message_id = $1',
      [paused.body.id],
    );
    expect((await decide(first, rows[0]?.id as string, 'approve')).status).toBe(200);
    for (let i = 0; i < 200 && wipes() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(wipes()).toBe(1);
    // A graceful stop: the running turn is handed back after the grace period.
    await first.close();
    slow = false;
    const second = await startTestServer({ ...common, workers: { reapMs: 200 } });
    let message: any;
    for (let i = 0; i < 200; i++) {
      message = (await second.call('GET', `/api/v1/agents/ops/messages/${paused.body.id}`)).body;
      if (message.status === 'completed' || message.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(message.status).toBe('completed');
    expect(wipes()).toBe(1);
    // The model was told the call's outcome is unknown rather than seeing it run again.
    expect(message.reply).toContain('not run again');
  }, 60_000);
});

describe('an undecided approval', () => {
  it('expires as rejected after SVC_APPROVAL_TTL, and the turn goes on', async () => {
    const short = await startTestServer({
      secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-approvals' },
      workers: { approvalTtlMs: 300, reapMs: 100 },
    });
    await short.call('POST', '/api/default/agents', {
      body: { agentId: 'ops', name: 'Ops', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
    });
    await short.call('PATCH', '/api/default/agents/ops/config', {
      body: { mcpServers: { kit: { url: mcp.url } } },
    });
    wiping('forgotten');
    const before = mcp.calls.filter((c) => c.tool === 'wipe').length;
    const sent = await short.call('POST', '/api/v1/agents/ops/messages', {
      body: { platform: 'api', content: 'wipe forgotten' },
    });
    const deadline = Date.now() + 10_000;
    let message = sent.body;
    while (message.status !== 'completed' && message.status !== 'failed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      message = (await short.call('GET', `/api/v1/agents/ops/messages/${sent.body.id}`)).body;
    }
    expect(message.status).toBe('completed');
    expect(message.reply).toContain('nobody decided in time');
    expect(mcp.calls.filter((c) => c.tool === 'wipe').length).toBe(before);
    const { rows } = await short.pool.query(
      "SELECT data FROM conversation_events WHERE type = 'approval.resolved'",
    );
    expect(rows.map((r) => r.data.decision)).toEqual(['expired']);
  });

  it('is refused once past expiresAt, before any reaper recorded it, and its turn goes on', async () => {
    // No reaper runs during this test: the decision alone must see that the call is past its time.
    const late = await startTestServer({
      secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-approvals' },
      workers: { approvalTtlMs: 60_000, reapMs: 3_600_000 },
    });
    await late.call('POST', '/api/default/agents', {
      body: { agentId: 'ops', name: 'Ops', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
    });
    await late.call('PATCH', '/api/default/agents/ops/config', {
      body: { mcpServers: { kit: { url: mcp.url } } },
    });
    wiping('too-late');
    const before = mcp.calls.filter((c) => c.tool === 'wipe').length;
    const paused = await late.call('POST', '/api/v1/agents/ops/messages', {
      body: { platform: 'api', content: 'wipe too-late' },
      headers: { prefer: 'wait=10' },
    });
    expect(paused.body.status).toBe('awaiting_approval');
    const { rows } = await late.pool.query<{ id: string; expires_at: Date }>(
      "UPDATE approvals SET expires_at = now() - interval '1 second' WHERE message_id = $1 RETURNING id, expires_at",
      [paused.body.id],
    );
    const approval = rows[0] as { id: string; expires_at: Date };
    const listed = await late.call('GET', '/api/default/approvals?status=expired');
    expect(listed.body.approvals.map((item: { id: string }) => item.id)).toEqual([approval.id]);

    const refused = await decide(late, approval.id, 'approve');
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('conflict');
    expect(refused.body.detail).toContain(`expired at ${approval.expires_at.toISOString()}`);
    // Recorded as the reaper would have: the conversation is told and the turn goes on, refused.
    const again = await decide(late, approval.id, 'reject');
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain('expired at');
    let message = paused.body;
    for (let i = 0; i < 100 && message.status !== 'completed' && message.status !== 'failed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      message = (await late.call('GET', `/api/v1/agents/ops/messages/${paused.body.id}`)).body;
    }
    expect(message.status).toBe('completed');
    expect(message.reply).toContain('nobody decided in time');
    expect(mcp.calls.filter((c) => c.tool === 'wipe').length).toBe(before);
    const events = await late.pool.query(
      "SELECT data FROM conversation_events WHERE type = 'approval.resolved' AND message_id = $1",
      [paused.body.id],
    );
    expect(events.rows.map((r) => r.data.decision)).toEqual(['expired']);
  });
});
