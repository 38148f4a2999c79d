import { approvalListSchema } from '@svc/core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeChatCompletions,
  type RecordedRequest,
  startFakeChatCompletions,
} from '../../test/fakes/chat-completions.js';
import { type FakeMcpHttp, startFakeMcpHttp } from '../../test/fakes/mcp-http.js';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';
import { everyPage } from '../../test/runtime.js';
import { expireApprovals } from '../turns/approvals.js';

/**
 * The approvals inbox through the flows that fill it: a turn paused on a destructive MCP tool (the
 * fake model, the fake MCP server, this server's own workers) and an action run asked for through
 * the API, each decided at the route its item names. Rows are written with SQL only where a test
 * needs what time would do (an expiry, a tie of timestamps) or what an agent's run leaves.
 */

let fake: FakeChatCompletions;
let mcp: FakeMcpHttp;
let server: TestServer;
/** The `shop` connection of each org, whose `refund` action waits for approval. */
const shops: Record<string, string> = {};
/** A `messages` token of org `elsewhere`: the admin password speaks for `default` on the messages API. */
let elsewhereMessages: string;

const shop = `
import { defineConnector, z, configSchema } from '@svc/connector-sdk';
export default defineConnector({
  key: 'shop',
  name: 'Shop',
  version: '1.0.0',
  feeds: {},
  actions: {
    refund: { key: 'refund', name: 'Refund', requiresApproval: true,
      inputSchema: configSchema(z.object({ order: z.string() })), async execute() { return { success: true }; } },
  },
});`;

const lastMessage = (request: RecordedRequest) => request.body.messages.at(-1);

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  mcp = await startFakeMcpHttp();
  // The model calls `wipe` with the message's text as its target, then answers once told the outcome.
  fake.answer = (request) =>
    lastMessage(request)?.role === 'tool'
      ? { text: 'done' }
      : { toolCalls: [{ name: 'kit__wipe', arguments: { target: String(lastMessage(request)?.content) } }] };
  server = await startTestServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-inbox' },
    // No reaper pass while the tests run: an expiry is recorded only when a test calls for it.
    workers: { approvalTtlMs: 3_600_000, reapMs: 600_000 },
    connectorSourceInstalls: true,
    messageRateLimit: null,
  });
  expect((await server.call('POST', '/api/orgs', { body: { slug: 'elsewhere' } })).status).toBe(201);
  for (const org of ['default', 'elsewhere']) {
    const agent = await server.call('POST', `/api/${org}/agents`, {
      body: { agentId: 'ops', name: 'Ops', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    await server.call('PATCH', `/api/${org}/agents/ops/config`, {
      body: { mcpServers: { kit: { url: mcp.url } } },
    });
    const installed = await server.call('POST', `/api/${org}/connectors`, { body: { source: shop } });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    const connected = await server.call('POST', `/api/${org}/connections`, {
      body: { connectorKey: 'shop' },
    });
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);
    shops[org] = String(connected.body.connection.id);
  }
  // The org's secret: org `elsewhere` may not read the server's environment (embedded: `default` only).
  await server.call('PUT', '/api/elsewhere/secrets/OPENAI_API_KEY', { body: { value: 'sk-inbox' } });
  elsewhereMessages = (await createToken(server, 'elsewhere', ['messages'])).secret;
});

/** Sends a message that makes the model call `wipe`: answers once its turn has paused. */
async function pausedCall(target: string, token?: string) {
  const res = await server.call('POST', '/api/v1/agents/ops/messages', {
    body: { platform: 'api', content: target, channel: `inbox-${target}` },
    headers: { prefer: 'wait=20' },
    ...(token ? { token } : {}),
  });
  expect(res.body.status, JSON.stringify(res.body)).toBe('awaiting_approval');
  return res.body as { id: string; conversationId: string };
}

/** Asks for a refund through the action route: a run that waits for approval. */
async function refund(order: string, org = 'default') {
  const res = await server.call('POST', `/api/${org}/connections/${shops[org]}/actions/refund`, {
    body: { input: { order } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body.run.approvalStatus).toBe('pending');
  return res.body.run as { id: number; connectionId: number };
}

async function inbox(query = '', org = 'default', token?: string) {
  const res = await server.call('GET', `/api/${org}/approvals${query}`, token ? { token } : {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  // The answer is what the core schema says, as a client parsing it with @svc/core would see.
  return approvalListSchema.parse(res.body);
}

const ids = (list: { approvals: { kind: string; id: string | number }[] }) =>
  list.approvals.map((item) => `${item.kind}:${item.id}`);

describe('GET /api/:org/approvals', () => {
  it('lists a paused tool call and an action run waiting for approval, newest first, with where to decide each', async () => {
    const message = await pausedCall('staging');
    const run = await refund('A-1');
    const { rows } = await server.pool.query<{ id: string }>(
      'SELECT id FROM approvals WHERE message_id = $1',
      [message.id],
    );
    const approvalId = rows[0]?.id as string;

    const pending = await inbox();
    expect(pending.nextCursor).toBeNull();
    expect(ids(pending)).toEqual([`action_run:${run.id}`, `tool_call:${approvalId}`]);
    const [action, call] = pending.approvals;
    expect(action).toEqual({
      kind: 'action_run',
      id: run.id,
      connectionId: Number(shops.default),
      connectorKey: 'shop',
      actionKey: 'refund',
      input: { order: 'A-1' },
      status: 'pending',
      createdAt: expect.any(String),
      decidedAt: null,
      decide: {
        method: 'POST',
        approvePath: `/api/default/runs/${run.id}/approve`,
        rejectPath: `/api/default/runs/${run.id}/reject`,
        scope: 'write',
      },
    });
    expect(call).toEqual({
      kind: 'tool_call',
      id: approvalId,
      agentId: 'ops',
      conversationId: message.conversationId,
      messageId: message.id,
      tool: 'kit.wipe',
      input: { target: 'staging' },
      status: 'pending',
      reason: null,
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      decidedAt: null,
      decide: { method: 'POST', path: `/api/v1/agents/ops/approvals/${approvalId}`, scope: 'messages' },
    });

    // The paths work as given, and a decided item leaves `pending`.
    if (call?.kind !== 'tool_call' || action?.kind !== 'action_run') throw new Error('kinds');
    expect(
      (await server.call(call.decide.method, call.decide.path, { body: { decision: 'approve' } })).status,
    ).toBe(200);
    expect((await server.call(action.decide.method, action.decide.approvePath)).status).toBe(200);
    expect((await inbox()).approvals).toEqual([]);
    const approved = await inbox('?status=approved');
    expect(ids(approved)).toEqual([`action_run:${run.id}`, `tool_call:${approvalId}`]);
    for (const item of approved.approvals) {
      expect(item.status).toBe('approved');
      expect(item.decidedAt).not.toBeNull();
    }
    // The approved turn went on.
    let done: any;
    for (let i = 0; i < 200; i++) {
      done = (await server.call('GET', `/api/v1/agents/ops/messages/${message.id}`)).body;
      if (done.status === 'completed' || done.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(done.status).toBe('completed');
  });

  it('says rejected for a rejection or a cancel, and expired for a call past its time, recorded or not', async () => {
    const rejected = await refund('B-1');
    const cancelled = await refund('B-2');
    const message = await pausedCall('forgotten');
    expect((await server.call('POST', `/api/default/runs/${rejected.id}/reject`)).status).toBe(200);
    expect((await server.call('POST', `/api/default/runs/${cancelled.id}/cancel`)).status).toBe(200);
    // Its time passes; the reaper has not run yet.
    await server.pool.query(
      "UPDATE approvals SET expires_at = now() - interval '1 second' WHERE message_id = $1",
      [message.id],
    );
    expect((await inbox()).approvals).toEqual([]);
    const [expired] = (await inbox('?status=expired')).approvals;
    expect(expired).toMatchObject({
      kind: 'tool_call',
      messageId: message.id,
      status: 'expired',
      decidedAt: null,
    });
    const rejections = await inbox('?status=rejected');
    expect(ids(rejections)).toEqual([`action_run:${cancelled.id}`, `action_run:${rejected.id}`]);
    for (const item of rejections.approvals) expect(item.decidedAt).not.toBeNull();

    // Once the reaper records it, it is the same item with the reaper's reason.
    expect(await expireApprovals(server.pool)).toBe(1);
    const [recorded] = (await inbox('?status=expired')).approvals;
    expect(recorded).toMatchObject({
      id: expired?.id,
      status: 'expired',
      reason: 'nobody decided in time (SVC_APPROVAL_TTL)',
      decidedAt: expect.any(String),
    });
  });

  it("lists an agent's action run as its tool call alone, and only tool calls with agentId", async () => {
    // What tools/connector-actions.ts leaves once a person approved the agent's call of the action.
    await server.pool.query(
      `INSERT INTO runs (org_id, run_type, connection_id, action_key, action_input, approval_status, connector_key)
       SELECT org_id, 'action', id, 'refund', '{"order": "agent"}', 'approved', 'shop' FROM connections WHERE id = $1`,
      [shops.default],
    );
    const all = await inbox('?status=all&limit=200');
    expect(all.approvals.some((item) => JSON.stringify(item.input).includes('agent'))).toBe(false);
    const waiting = await refund('C-1');
    const message = await pausedCall('agent-filter');
    const ofOps = await inbox('?agentId=ops');
    expect(ofOps.approvals.map((item) => item.kind)).toEqual(['tool_call']);
    expect(ofOps.approvals[0]).toMatchObject({ messageId: message.id });
    expect((await inbox('?agentId=nobody')).approvals).toEqual([]);
    expect(ids(await inbox())).toContain(`action_run:${waiting.id}`);
  });

  it("never lists another org's, and each org lists its own", async () => {
    const theirs = await pausedCall('their-staging', elsewhereMessages);
    const theirRun = await refund('D-1', 'elsewhere');
    const mine = await inbox('?status=all&limit=200');
    expect(mine.approvals.some((item) => item.kind === 'tool_call' && item.messageId === theirs.id)).toBe(
      false,
    );
    expect(ids(mine)).not.toContain(`action_run:${theirRun.id}`);
    const elsewhere = await inbox('', 'elsewhere');
    expect(elsewhere.approvals).toMatchObject([
      {
        kind: 'action_run',
        id: theirRun.id,
        decide: { approvePath: `/api/elsewhere/runs/${theirRun.id}/approve` },
      },
      { kind: 'tool_call', messageId: theirs.id },
    ]);
    // A token of org default does not see org elsewhere at all.
    const { secret } = await createToken(server, 'default', ['read']);
    const res = await server.call('GET', '/api/elsewhere/approvals', { token: secret });
    expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('is for tokens that read the org: a read token lists, a messages token is 403', async () => {
    const reader = await createToken(server, 'default', ['read']);
    const listed = await inbox('?status=all', 'default', reader.secret);
    expect(listed.approvals.length).toBeGreaterThan(0);
    const messages = await createToken(server, 'default', ['messages']);
    const refused = await server.call('GET', '/api/default/approvals', { token: messages.secret });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.code).toBe('forbidden');
  });

  it('pages through both kinds, ties of time included, giving each item once', async () => {
    // Both kinds at one instant, as a busy org makes them: the order must still be total.
    const tie = '2030-01-01T00:00:00.123456Z';
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const run = await refund(`tie-${i}`);
      await server.pool.query('UPDATE runs SET created_at = $2 WHERE id = $1', [run.id, tie]);
      made.push(`action_run:${run.id}`);
      const message = await pausedCall(`tie-${i}`);
      const { rows } = await server.pool.query<{ id: string }>(
        'UPDATE approvals SET created_at = $2 WHERE message_id = $1 RETURNING id',
        [message.id, tie],
      );
      made.push(`tool_call:${rows[0]?.id}`);
    }
    const whole = await inbox('?status=all&limit=200');
    expect(whole.nextCursor).toBeNull();
    // Newest first: the tie is in the future, so it leads, tool calls before runs.
    expect(ids(whole).slice(0, 6).sort()).toEqual([...made].sort());
    expect(whole.approvals.slice(0, 3).every((item) => item.kind === 'tool_call')).toBe(true);
    for (const limit of [1, 2, 4]) {
      const { items, pages } = await everyPage<{ kind: string; id: string }>(
        server,
        '/api/default/approvals',
        '&status=all',
        'approvals',
        limit,
      );
      expect(ids({ approvals: items }), `limit ${limit}`).toEqual(ids(whole));
      expect(pages).toBe(Math.ceil(whole.approvals.length / limit));
    }
    const pending = await everyPage<{ kind: string; id: string }>(
      server,
      '/api/default/approvals',
      '',
      'approvals',
      2,
    );
    expect(ids({ approvals: pending.items })).toEqual(ids(await inbox('?limit=200')));
  });

  it('refuses a cursor it did not give out, and a status it does not know', async () => {
    for (const cursor of [
      'garbage',
      Buffer.from(JSON.stringify(['1', 'tool_call:nope'])).toString('base64url'),
      Buffer.from(JSON.stringify(['999999999999999999', 'action_run:0000000000000000001'])).toString(
        'base64url',
      ),
    ]) {
      const res = await server.call('GET', `/api/default/approvals?cursor=${cursor}`);
      expect(res.status, cursor).toBe(400);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        errors: [{ path: '/querystring/cursor' }],
      });
    }
    const status = await server.call('GET', '/api/default/approvals?status=waiting');
    expect(status).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
  });
});
