import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeChatCompletions,
  type RecordedRequest,
  startFakeChatCompletions,
} from '../../test/fakes/chat-completions.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { startTestRunWorkers } from '../../test/runtime.js';
import type { RunWorkers } from '../runs/worker.js';

/**
 * Connector actions as agent tools, end to end: the model calls `helpdesk__open_ticket`, the turn
 * pauses for a person, the approval resumes it, the action runs once on a run worker (in the
 * connector's sandbox), and the model gets the connector's ActionResult.
 */

let fake: FakeChatCompletions;
let server: TestServer;
let workers: RunWorkers;
let deskId: string;

const helpdesk = `
import { defineConnector, log } from '@svc/connector-sdk';
export default defineConnector({
  key: 'helpdesk', name: 'Helpdesk', version: '1.0.0',
  actions: {
    open_ticket: {
      key: 'open_ticket', name: 'Open ticket', requiresApproval: true, description: 'Opens a ticket for the support team',
      inputSchema: { type: 'object', required: ['title'], properties: { title: { type: 'string', minLength: 1 } } },
      async execute(ctx) {
        log.info('opening ticket', { title: ctx.input.title });
        return { success: true, output: { ticket: 'T-' + ctx.input.title.length } };
      },
    },
    ping: {
      key: 'ping', name: 'Ping', requiresApproval: false,
      async execute(ctx) {
        if (ctx.input.fail) return { success: false, error: 'the desk is closed', output: { closedUntil: '09:00' } };
        return { success: true, output: { pong: true } };
      },
    },
  },
});`;

const lastMessage = (request: RecordedRequest) => request.body.messages.at(-1);
/** The tools offered, but the memory tools every agent has (tools/memory.test.ts checks those). */
const offered = (request: RecordedRequest | undefined) =>
  (request?.body.tools ?? [])
    .map((t) => t.function.name)
    .filter((name) => !name.startsWith('memory_'))
    .sort();
type OfferedTool = { function: { name: string; description?: string; parameters?: any } };
const offeredTool = (request: RecordedRequest | undefined, name: string) =>
  ((request?.body.tools ?? []) as OfferedTool[]).find((t) => t.function.name === name);
/** The tool result the model got last, as the JSON it was sent as. */
const toolResultOf = (request: RecordedRequest | undefined) =>
  JSON.parse(String(request?.body.messages.filter((m) => m.role === 'tool').at(-1)?.content));

/** Calls `tool` with `args` once, then answers with what the tool said. */
function calling(tool: string, args: Record<string, unknown>) {
  fake.answer = (request) =>
    lastMessage(request)?.role === 'tool'
      ? { text: `done: ${String(lastMessage(request)?.content)}` }
      : { toolCalls: [{ name: tool, arguments: args }] };
}

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  server = await startTestServer({
    connectorSourceInstalls: true,
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-actions' },
    workers: { approvalTtlMs: 60_000 },
  });
  const installed = await server.call('POST', '/api/default/connectors', { body: { source: helpdesk } });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  const connected = await server.call('POST', '/api/default/connections', {
    body: { connectorKey: 'helpdesk', displayName: 'Support desk' },
  });
  expect(connected.status).toBe(201);
  deskId = String(connected.body.connection.id);
  workers = await startTestRunWorkers(server, {
    leaseMs: 10_000,
    limits: { timeoutMs: 20_000, memoryMb: 128 },
  });
}, 60_000);

afterAll(() => workers?.close(1000));

async function agent(agentId: string, config: Record<string, unknown> = {}) {
  await server.call('POST', '/api/default/agents', {
    body: { agentId, name: agentId, providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  const res = await server.call('PATCH', `/api/default/agents/${agentId}/config`, { body: config });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const send = (agentId: string, content: string) =>
  server.call('POST', `/api/v1/agents/${agentId}/messages`, {
    body: { platform: 'api', content },
    headers: { prefer: 'wait=20' },
  });

async function until(agentId: string, messageId: string, statuses: string[], ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await server.call('GET', `/api/v1/agents/${agentId}/messages/${messageId}`);
    if (statuses.includes(res.body.status) || Date.now() > deadline) return res.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const actionRuns = async (actionKey: string) =>
  (
    await server.pool.query('SELECT * FROM runs WHERE run_type = $1 AND action_key = $2 ORDER BY id', [
      'action',
      actionKey,
    ])
  ).rows;

describe("an org's connector actions", () => {
  it('are offered to its agents as <connectorKey>.<actionKey>, with their input schema, filtered by toolsConfig', async () => {
    await agent('lister');
    const before = fake.requests.length;
    expect((await send('lister', 'hello')).body.status).toBe('completed');
    const request = fake.requests[before];
    expect(offered(request)).toEqual(['helpdesk__open_ticket', 'helpdesk__ping']);
    const open = offeredTool(request, 'helpdesk__open_ticket');
    expect(open?.function.description).toBe(
      'Open ticket (Helpdesk: Support desk). Opens a ticket for the support team',
    );
    expect(open?.function.parameters).toMatchObject({
      required: ['title'],
      properties: { title: { type: 'string' } },
    });

    await agent('picky', { toolsConfig: { denied: ['helpdesk.ping'] } });
    const later = fake.requests.length;
    await send('picky', 'hello');
    expect(offered(fake.requests[later])).toEqual(['helpdesk__open_ticket']);
  });

  it('that require approval pause the turn; approved, the action runs once and the model gets its result', async () => {
    await agent('clerk');
    calling('helpdesk__open_ticket', { title: 'Printer on fire' });
    const paused = await send('clerk', 'the printer is on fire, open a ticket');
    expect(paused.body.status).toBe('awaiting_approval');
    const { rows: requested } = await server.pool.query(
      `SELECT data FROM conversation_events WHERE message_id = $1 AND type = 'approval.requested'`,
      [paused.body.id],
    );
    expect(requested).toHaveLength(1);
    expect(requested[0].data).toMatchObject({
      tool: 'helpdesk.open_ticket',
      input: { title: 'Printer on fire' },
    });
    // Nothing runs before a person decides.
    expect(await actionRuns('open_ticket')).toEqual([]);

    const approved = await server.call(
      'POST',
      `/api/v1/agents/clerk/approvals/${requested[0].data.approvalId}`,
      {
        body: { decision: 'approve' },
      },
    );
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const done = await until('clerk', paused.body.id, ['completed', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('completed');

    const runs = await actionRuns('open_ticket');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      connection_id: deskId,
      approval_status: 'approved',
      status: 'completed',
      action_input: { title: 'Printer on fire' },
      action_output: { ticket: 'T-15' },
    });
    // The model got the connector's ActionResult, and with it the run that holds it.
    expect(toolResultOf(fake.requests.at(-1))).toEqual({
      success: true,
      output: { ticket: 'T-15' },
      runId: Number(runs[0].id),
    });
    expect(done.reply).toContain('T-15');
    // The connector ran once: one log line of it, after the line saying who asked.
    const { rows: lines } = await server.pool.query(
      'SELECT msg FROM run_logs WHERE run_id = $1 ORDER BY seq',
      [runs[0].id],
    );
    expect(lines.map((l) => l.msg)).toEqual([
      expect.stringMatching(/^action requested by agent clerk \(message /),
      'opening ticket',
    ]);
  }, 60_000);

  it('that need no approval run in the turn; a failed ActionResult reaches the model as it is', async () => {
    await agent('pinger');
    calling('helpdesk__ping', { fail: true });
    const res = await send('pinger', 'ping the desk');
    expect(res.body.status).toBe('completed');
    const [run] = await actionRuns('ping');
    expect(run).toMatchObject({
      approval_status: 'auto',
      status: 'failed',
      error_message: 'the desk is closed',
    });
    expect(toolResultOf(fake.requests.at(-1))).toEqual({
      success: false,
      error: 'the desk is closed',
      output: { closedUntil: '09:00' },
      runId: Number(run.id),
    });
  }, 60_000);

  it('that require approval run without a pause when the agent pre-approved them', async () => {
    await agent('trusted', { preApprovedTools: ['helpdesk.*'] });
    const before = (await actionRuns('open_ticket')).length;
    calling('helpdesk__open_ticket', { title: 'Toner' });
    const res = await send('trusted', 'toner is low');
    expect(res.body.status).toBe('completed');
    const runs = await actionRuns('open_ticket');
    expect(runs).toHaveLength(before + 1);
    expect(runs.at(-1)).toMatchObject({
      approval_status: 'approved',
      status: 'completed',
      action_output: { ticket: 'T-5' },
    });
  }, 60_000);

  it('tell the model what is wrong with its input, and run nothing', async () => {
    await agent('sloppy', { preApprovedTools: ['helpdesk.open_ticket'] });
    const before = (await actionRuns('open_ticket')).length;
    calling('helpdesk__open_ticket', { title: '' });
    expect((await send('sloppy', 'open an empty ticket')).body.status).toBe('completed');
    expect(await actionRuns('open_ticket')).toHaveLength(before);
    const result = toolResultOf(fake.requests.at(-1));
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/not what action "open_ticket" of connector "helpdesk" takes; \/title: /);
  }, 60_000);

  it('of a connector connected twice keep their names and take the connection to act on', async () => {
    const second = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'helpdesk', displayName: 'Sales desk' },
    });
    expect(second.status).toBe(201);
    const salesId = Number(second.body.connection.id);
    await agent('router', { preApprovedTools: ['helpdesk.open_ticket'] });
    calling('helpdesk__open_ticket', { title: 'Quote', connectionId: salesId });
    const before = fake.requests.length;
    expect((await send('router', 'ask sales for a quote')).body.status).toBe('completed');
    const tool = offeredTool(fake.requests[before], 'helpdesk__open_ticket');
    expect(tool?.function.parameters).toMatchObject({
      required: ['title', 'connectionId'],
      properties: { connectionId: { enum: [Number(deskId), salesId] } },
    });
    expect((await actionRuns('open_ticket')).at(-1)).toMatchObject({
      connection_id: String(salesId),
      action_input: { title: 'Quote' },
      status: 'completed',
    });
  }, 60_000);
});
