import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeChatCompletions,
  startFakeChatCompletions,
} from '../../../server/test/fakes/chat-completions.js';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { exited, svc } from '../../test/run-svc.js';
import { agentsDelete, agentsList, agentsShow } from './agents.js';
import type { RuntimeIo } from './api.js';
import { approvalsDecide, approvalsList } from './approvals.js';
import { connectionDelete } from './connections.js';
import { conversationsList, conversationsShow } from './conversations.js';
import { eventsList, eventsShow, search } from './events.js';
import { tokensCreate, tokensList, tokensRevoke } from './tokens.js';

/** The everyday commands against a real server (turns answered by a fake model). */

let server: TestServer;
let model: FakeChatCompletions;
let admin: string;
let reader: string;
let dir: string;
let connectionId: number;
let feedId: number;
let eventId: number;
let conversationId: string;

beforeAll(async () => {
  model = await startFakeChatCompletions();
  model.answer = () => ({ text: 'The shop is open until six.' });
  server = await startTestServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-cli-everyday' },
    workers: { concurrency: 2, reapMs: 200 },
  });
  admin = (await createToken(server, 'default', ['admin'])).secret;
  reader = (await createToken(server, 'default', ['read'])).secret;
  dir = await mkdtemp(join(tmpdir(), 'svc-everyday-'));
  await server.call('POST', '/api/default/agents', {
    body: { agentId: 'shop', name: 'Shop', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  await server.call('POST', '/api/default/agents', { body: { agentId: 'doomed', name: 'Doomed' } });
  await server.call('PUT', '/api/default/agents/shop/platforms/by-stable-id/shop-team-chat', {
    body: { type: 'team_chat', config: { signing_secret: '$SLACK_SIGNING', bot_token: '$SLACK_BOT' } },
  });
  const sent = await server.call('POST', '/api/v1/agents/shop/messages', {
    body: { platform: 'api', content: 'When do you close?', channel: 'front-desk' },
    headers: { prefer: 'wait=20' },
  });
  expect(sent.body.status, JSON.stringify(sent.body)).toBe('completed');
  conversationId = sent.body.conversationId;
  expect((await server.call('POST', '/api/default/connectors', { body: { package: 'rss' } })).status).toBe(
    201,
  );
  const made = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'rss' } });
  connectionId = made.body.connection.id;
  feedId = made.body.feeds[0].id;
  const { rows } = await server.pool.query<{ id: string }>(
    `INSERT INTO events (org_id, connection_id, feed_id, origin_id, origin_type, title, payload_text, occurred_at)
     SELECT org_id, connection_id, id, 'post-1', 'post', 'Invoice overdue', 'The invoice of March is overdue.', '2026-03-02T10:00:00Z'
       FROM feeds WHERE id = $1 RETURNING id`,
    [feedId],
  );
  eventId = Number(rows[0]?.id);
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type TestIo = RuntimeIo & { lines: string[]; errors: string[] };

function io(token = admin): TestIo {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    env: { SVC_URL: server.url, SVC_API_TOKEN: token, XDG_CONFIG_HOME: dir },
    out: (line) => lines.push(line),
    err: (line) => errors.push(line),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    pollMs: 100,
    lines,
    errors,
  };
}

async function failure(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the command to fail');
}

const env = () => ({ SVC_URL: server.url, SVC_API_TOKEN: admin, XDG_CONFIG_HOME: dir });

describe('svc tokens', () => {
  it('creates a token (its secret alone on stdout, the warning on stderr), lists it, revokes it', async () => {
    const made = io();
    await tokensCreate('ci bot', { scopes: 'read,write', expiresInDays: 30 }, made);
    expect(made.lines).toHaveLength(1);
    expect(made.lines[0]).toMatch(/^svc_/);
    expect(made.errors[0]).toMatch(/^created token \S+ "ci bot" \(read,write, expires \d{4}-/);
    expect(made.errors[1]).toContain('the only time the secret is shown');
    const list = io();
    await tokensList({}, list);
    expect(list.lines[0]).toMatch(/^ID\s+STATUS\s+SCOPES\s+CREATED\s+EXPIRES\s+LAST USED\s+NAME$/);
    const row = list.lines.find((line) => line.endsWith('ci bot')) as string;
    expect(row).toMatch(/^\S+\s+active\s+read,write\s+/);
    const id = row.split(/\s+/)[0] as string;
    const revoked = io();
    await tokensRevoke(id, {}, revoked);
    expect(revoked.lines[0]).toBe(`revoked token ${id} "ci bot": it stops working at once`);
    const again = io();
    await tokensRevoke(id, {}, again);
    expect(again.lines[0]).toContain('was revoked already');
    expect(await failure(() => tokensCreate('x', { scopes: 'read,sudo' }, io()))).toContain(
      'unknown scope "sudo": --scopes takes a comma-separated list of read, write, messages, admin',
    );
    expect(await failure(() => tokensRevoke('nope', {}, io()))).toContain('"svc tokens list" shows them');
    expect(await failure(() => tokensList({}, io(reader)))).toMatch(/admin/);
  });

  it('exits 0 with --json and 1 on a name taken', async () => {
    const first = svc(['tokens', 'create', 'twice', '--scopes', 'read', '--json'], env());
    expect(await exited(first), first.output()).toBe(0);
    const second = svc(['tokens', 'create', 'twice', '--scopes', 'read'], env());
    expect(await exited(second)).toBe(1);
    expect(second.output()).toContain('revoke it first');
  }, 60_000);
});

describe('svc agents', () => {
  it('lists agents and shows one with its platforms, webhook URLs and provider status', async () => {
    const list = io(reader);
    await agentsList({}, list);
    expect(list.lines[0]).toMatch(/^AGENT\s+PROVIDERS\s+PLATFORMS\s+UPDATED\s+NAME$/);
    expect(list.lines.find((line) => line.startsWith('shop'))).toMatch(/^shop\s+openai\s+1\s+/);
    const show = io(reader);
    await agentsShow('shop', {}, show);
    const text = show.lines.join('\n');
    expect(text).toContain('agent shop: Shop');
    expect(text).toMatch(/providers:\n {2}openai {2}\$OPENAI_API_KEY {2}ok/);
    expect(text).toMatch(
      /platforms:\n {2}shop-team-chat {2}team_chat {2}error\n {4}webhook \S*\/api\/v1\/webhooks\/shop-team-chat/,
    );
    expect(text).toContain('SLACK_SIGNING');
    expect(text).toContain('settings:');
    expect(await failure(() => agentsShow('nope', {}, io()))).toContain(
      'org default has no agent "nope": "svc agents list" shows them',
    );
  });

  it('deletes only with --yes when no terminal can ask, exit 1 saying so', async () => {
    expect(await failure(() => agentsDelete('doomed', {}, io()))).toContain('pass --yes');
    const asked = svc(['agents', 'delete', 'doomed'], env());
    expect(await exited(asked)).toBe(1);
    expect(asked.output()).toContain('no terminal to ask on; pass --yes');
    const gone = svc(['agents', 'delete', 'doomed', '--yes'], env());
    expect(await exited(gone), gone.output()).toBe(0);
    expect(gone.output()).toContain('deleted agent "doomed"');
    const declined = io();
    const message = await failure(() =>
      agentsDelete('shop', {}, { ...declined, confirm: async () => false }),
    );
    expect(message).toBe('agent "shop" was not deleted');
  }, 60_000);
});

describe('svc conversations', () => {
  it("lists an agent's conversations, searches them, and shows one with its replies", async () => {
    const list = io();
    await conversationsList('shop', {}, list);
    expect(list.lines[0]).toMatch(/^ID\s+PLATFORM\s+CHANNEL\s+LAST MESSAGE\s+CREATED$/);
    expect(list.lines[1]).toMatch(new RegExp(`^${conversationId}\\s+api\\s+front-desk\\s+`));
    const found = io();
    await conversationsList('shop', { search: 'CLOSE' }, found);
    expect(found.lines).toHaveLength(2);
    const none = io();
    await conversationsList('shop', { search: 'pineapple' }, none);
    expect(none.lines).toEqual(['No conversation of agent "shop" mentions "pineapple".']);
    const show = io();
    await conversationsShow('shop', conversationId, {}, show);
    expect(show.lines[0]).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] you: When do you close\?$/);
    expect(show.lines[1]).toMatch(/^ {2}shop \(openai\/.+\): The shop is open until six\.$/);
    expect(await failure(() => conversationsShow('shop', '42', {}, io()))).toContain('ids are uuids');
    const json = svc(['conversations', 'show', 'shop', conversationId, '--json'], env());
    expect(await exited(json), json.output()).toBe(0);
    expect(JSON.parse(json.output()).messages[0].reply).toBe('The shop is open until six.');
  }, 60_000);
});

describe('svc approvals', () => {
  it('lists a pending action run and a pending tool call, and decides each by its id', async () => {
    const { rows: runs } = await server.pool.query<{ id: string }>(
      `INSERT INTO runs (org_id, run_type, connection_id, action_key, action_input, approval_status, connector_key)
       SELECT org_id, 'action', id, 'publish', '{"post":1}', 'pending', connector_key FROM connections WHERE id = $1
       RETURNING id`,
      [connectionId],
    );
    const runId = runs[0]?.id as string;
    const { rows: calls } = await server.pool.query<{ id: string }>(
      `INSERT INTO approvals (message_id, conversation_id, org_id, agent_id, sdk_approval_id, tool_call_id, tool, input, expires_at)
       SELECT m.id, m.conversation_id, m.org_id, m.agent_id, 'sdk', 'call-1', 'kit.wipe', '{"target":"staging"}', now() + interval '1 hour'
         FROM messages m WHERE m.conversation_id = $1 LIMIT 1
       RETURNING id`,
      [conversationId],
    );
    const approvalId = calls[0]?.id as string;
    const list = io(reader);
    await approvalsList({}, list);
    expect(list.lines[0]).toMatch(/^ID\s+KIND\s+WHAT\s+STATUS\s+CREATED\s+INPUT$/);
    const text = list.lines.join('\n');
    expect(text).toMatch(
      new RegExp(`${approvalId}\\s+tool_call\\s+shop: kit.wipe\\s+pending\\s+.*\\{"target":"staging"\\}`),
    );
    expect(text).toMatch(new RegExp(`\\n${runId}\\s+action_run\\s+rss.publish\\s+pending`));
    const rejected = io();
    await approvalsDecide('reject', approvalId, { reason: 'not today' }, rejected);
    expect(rejected.lines[0]).toBe(
      'rejected tool call kit.wipe of agent shop: the model is told it was refused',
    );
    const { rows } = await server.pool.query('SELECT status, reason FROM approvals WHERE id = $1', [
      approvalId,
    ]);
    expect(rows[0]).toMatchObject({ status: 'rejected', reason: 'not today' });
    const approved = io();
    await approvalsDecide('approve', runId, {}, approved);
    expect(approved.lines[0]).toBe(`approved action run ${runId} (rss.publish): it runs now`);
    expect(await failure(() => approvalsDecide('approve', runId, {}, io()))).toContain(
      'is approved already: it can be decided only once',
    );
    expect(await failure(() => approvalsDecide('approve', '999999', {}, io()))).toContain(
      'org default has no approval "999999"',
    );
    // With its agent named, a tool call is decided without the inbox: a messages-only token can.
    const { rows: more } = await server.pool.query<{ id: string }>(
      `INSERT INTO approvals (message_id, conversation_id, org_id, agent_id, sdk_approval_id, tool_call_id, tool, input, expires_at)
       SELECT m.id, m.conversation_id, m.org_id, m.agent_id, 'sdk', 'call-2', 'kit.wipe', '{}', now() + interval '1 hour'
         FROM messages m WHERE m.conversation_id = $1 LIMIT 1
       RETURNING id`,
      [conversationId],
    );
    const messenger = (await createToken(server, 'default', ['messages'])).secret;
    expect(await failure(() => approvalsDecide('approve', more[0]?.id as string, {}, io(messenger)))).toMatch(
      /read/,
    );
    const direct = io(messenger);
    await approvalsDecide('approve', more[0]?.id as string, { agent: 'shop' }, direct);
    expect(direct.lines[0]).toBe('approved tool call kit.wipe of agent shop: it runs now');
    const empty = svc(['approvals', 'list'], env());
    expect(await exited(empty)).toBe(0);
    expect(empty.output()).toContain('Nothing waits for approval in org default.');
    const all = svc(['approvals', 'list', '--status', 'all', '--json'], env());
    expect(await exited(all)).toBe(0);
    expect(
      JSON.parse(all.output())
        .approvals.map((a: { status: string }) => a.status)
        .sort(),
    ).toEqual(['approved', 'approved', 'rejected']);
  }, 60_000);
});

describe('svc events and svc search', () => {
  it('lists events with filters, shows one, and finds it by its words', async () => {
    const list = io(reader);
    await eventsList({ connection: String(connectionId), kind: 'post', since: '2026-03-01' }, list);
    expect(list.lines[0]).toMatch(/^ID\s+OCCURRED\s+KIND\s+CONNECTION\s+TITLE$/);
    expect(list.lines[1]).toMatch(
      new RegExp(`^${eventId}\\s+2026-03-02 10:00:00\\s+post\\s+${connectionId}\\s+Invoice overdue$`),
    );
    const byKey = io(reader);
    await eventsList({ feed: 'items' }, byKey);
    expect(byKey.lines).toHaveLength(2);
    const none = io(reader);
    await eventsList({ until: '2026-03-01' }, none);
    expect(none.lines).toEqual(['No events match: try fewer filters.']);
    expect(await failure(() => eventsList({ since: 'yesterday' }, io()))).toContain('ISO 8601');
    const show = io(reader);
    await eventsShow(String(eventId), {}, show);
    expect(show.lines.join('\n')).toMatch(/title: +Invoice overdue[\s\S]*The invoice of March is overdue\./);
    expect(await failure(() => eventsShow('12345678', {}, io()))).toContain(
      'org default has no event 12345678',
    );
    const found = io(reader);
    await search('invoice overdue', { kind: 'post' }, found);
    expect(found.lines[0]).toMatch(/^EVENT\s+OCCURRED\s+RANK\s+TITLE\s+SNIPPET$/);
    expect(found.lines[1]).toMatch(
      new RegExp(`^${eventId}\\s+2026-03-02 10:00:00\\s+[\\d.]+\\s+Invoice overdue\\s+.*«`),
    );
    const nothing = io(reader);
    await search('pineapple', {}, nothing);
    expect(nothing.lines).toEqual(['Nothing in org default matches "pineapple".']);
    const json = svc(['search', 'march', '--json', '--limit', '5'], env());
    expect(await exited(json), json.output()).toBe(0);
    expect(JSON.parse(json.output()).hits[0].eventId).toBe(eventId);
    const shown = svc(['events', 'show', String(eventId), '--json'], env());
    expect(await exited(shown)).toBe(0);
    expect(JSON.parse(shown.output()).event.title).toBe('Invoice overdue');
  }, 60_000);
});

describe('svc connection delete', () => {
  it('refuses a connection with events (revoke instead) and deletes one without', async () => {
    expect(await failure(() => connectionDelete(String(connectionId), {}, io()))).toContain(
      `to stop it and keep its events: svc connection revoke ${connectionId}`,
    );
    const spare = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'rss' } });
    const deleted = svc(['connection', 'delete', String(spare.body.connection.id)], env());
    expect(await exited(deleted), deleted.output()).toBe(0);
    expect(deleted.output()).toContain(`deleted connection ${spare.body.connection.id} with its feeds`);
    const again = svc(['connection', 'delete', String(spare.body.connection.id)], env());
    expect(await exited(again)).toBe(1);
    expect(again.output()).toContain('"svc connection list" shows them');
  }, 60_000);
});
