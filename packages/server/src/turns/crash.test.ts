import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import { type FakeMcpHttp, startFakeMcpHttp } from '../../test/fakes/mcp-http.js';
import {
  ADMIN_PASSWORD,
  createDataDir,
  createTestDatabase,
  startTestServer,
  type TestServer,
} from '../../test/harness.js';
import { spawnSvc } from '../../test/spawn-svc.js';

/**
 * `kill -9` of a real `svc worker` process in the middle of a turn, at three points: while the
 * model has not answered yet, while the reply streams, and after the reply is stored. Each time
 * the message is answered exactly once, and no event is written twice.
 */

const key = randomBytes(32);
const LEASE_MS = 1500;
let fake: FakeChatCompletions;
let server: TestServer;
let databaseUrl: string;
const workers: ChildProcess[] = [];

function startWorker(): ChildProcess {
  const child = spawnSvc(['worker', '--concurrency', '2'], {
    DATABASE_URL: databaseUrl,
    SVC_ENCRYPTION_KEY: key.toString('hex'),
    SVC_PROVIDER_OPENAI_BASE_URL: fake.url,
    SVC_TURN_LEASE_MS: String(LEASE_MS),
    SVC_EGRESS_ALLOW: '127.0.0.1',
    SVC_LOG_LEVEL: 'warn',
  });
  workers.push(child);
  return child;
}

/** What the workers printed, for a failing test's message. */
const stderr = () => workers.map((w) => (w as ReturnType<typeof spawnSvc>).output()).join('\n');

async function until<T>(
  what: string,
  check: () => Promise<T | null | undefined | false>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; the workers said:\n${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  databaseUrl = await createTestDatabase();
  // HTTP only: the turns run in the worker processes.
  server = await startTestServer({ databaseUrl, encryptionKey: key });
  await server.call('PUT', '/api/default/secrets/OPENAI_API_KEY', { body: { value: 'sk-crash-test' } });
  await server.call('POST', '/api/default/agents', {
    body: { agentId: 'crash', name: 'Crash', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  startWorker();
  startWorker();
}, 60_000);

afterAll(async () => {
  for (const child of workers) if (child.exitCode === null) child.kill('SIGKILL');
});

/** The worker process that holds the message now, from `claimed_by` (host:pid:nonce). */
async function holder(messageId: string): Promise<ChildProcess> {
  const pid = await until('a claim', async () => {
    const { rows } = await server.pool.query<{ claimed_by: string | null }>(
      "SELECT claimed_by FROM messages WHERE id = $1 AND status = 'running'",
      [messageId],
    );
    return rows[0]?.claimed_by ? Number(rows[0].claimed_by.split(':')[1]) : null;
  });
  const child = workers.find((w) => w.pid === pid && w.exitCode === null);
  if (!child) throw new Error(`no live worker has pid ${pid}`);
  return child;
}

async function killHard(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  startWorker(); // keep two alive
}

async function events(messageId: string) {
  const { rows } = await server.pool.query<{ seq: string; type: string; data: { attempt?: number } }>(
    'SELECT seq, type, data FROM conversation_events WHERE message_id = $1 ORDER BY seq',
    [messageId],
  );
  return rows;
}

async function finished(messageId: string) {
  return until('the answer', async () => {
    const res = await server.call('GET', `/api/v1/agents/crash/messages/${messageId}`);
    return res.body.status === 'completed' || res.body.status === 'failed' ? res.body : null;
  });
}

const send = async (content: string) =>
  (
    await server.call('POST', '/api/v1/agents/crash/messages', {
      body: { platform: 'api', content, channel: content },
    })
  ).body.id as string;

describe('kill -9 of the worker running a turn', () => {
  it('before the model answered: another worker runs it, and it is answered once', async () => {
    let calls = 0;
    fake.answer = () => (++calls === 1 ? { text: 'never sent', delayMs: 60_000 } : { text: 'answered' });
    const id = await send('before-model');
    const victim = await holder(id);
    await until('the model call', async () => calls === 1);
    await killHard(victim);
    const message = await finished(id);
    expect(message).toMatchObject({ status: 'completed', reply: 'answered', attempts: 2 });
    const types = (await events(id)).map((e) => e.type);
    expect(types.filter((t) => t === 'reply.completed')).toHaveLength(1);
    expect(types.filter((t) => t === 'message.started')).toHaveLength(2);
  }, 60_000);

  it('while the reply streams: the next attempt restarts it, and it completes once', async () => {
    let calls = 0;
    fake.answer = () =>
      ++calls === 1
        ? { chunks: ['first ', 'attempt ', 'streams ', 'slowly ', 'and ', 'dies'], delayMs: 400 }
        : { text: 'second attempt' };
    const id = await send('while-streaming');
    const victim = await holder(id);
    await until('a delta', async () => (await events(id)).some((e) => e.type === 'reply.delta'));
    await killHard(victim);
    const message = await finished(id);
    expect(message).toMatchObject({ status: 'completed', reply: 'second attempt', attempts: 2 });
    const all = await events(id);
    expect(all.filter((e) => e.type === 'reply.completed')).toHaveLength(1);
    // The client is told the reply restarts: a second message.started, with its attempt.
    expect(all.filter((e) => e.type === 'message.started').map((e) => e.data.attempt)).toEqual([1, 2]);
    expect(new Set(all.map((e) => e.seq)).size).toBe(all.length);
  }, 60_000);

  it('after the reply is stored: nothing runs it again', async () => {
    fake.answer = () => ({ text: 'done once' });
    const before = fake.requests.length;
    const id = await send('after-store');
    const message = await finished(id);
    expect(message).toMatchObject({ status: 'completed', reply: 'done once', attempts: 1 });
    const pid = Number(
      (
        await server.pool.query<{ claimed_by: string }>('SELECT claimed_by FROM messages WHERE id = $1', [id])
      ).rows[0]?.claimed_by.split(':')[1],
    );
    const victim = workers.find((w) => w.pid === pid && w.exitCode === null);
    if (victim) await killHard(victim);
    // Longer than a lease and a reaper round: a stored turn is never taken up again.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2));
    expect(fake.requests.length - before).toBe(1);
    expect((await events(id)).filter((e) => e.type === 'reply.completed')).toHaveLength(1);
  }, 60_000);
});

// Last in the file: it stops the in-process server the tests above share.
describe('kill -9 of every process while a turn waits for an approval', () => {
  it('keeps the paused turn: approved through a new server process, a new worker resumes it once', async () => {
    const mcp: FakeMcpHttp = await startFakeMcpHttp();
    await server.call('POST', '/api/default/agents', {
      body: { agentId: 'ops', name: 'Ops', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
    });
    await server.call('PATCH', '/api/default/agents/ops/config', {
      body: { mcpServers: { kit: { url: mcp.url } } },
    });
    fake.answer = (request) =>
      request.body.messages.at(-1)?.role === 'tool'
        ? { text: `done: ${JSON.stringify(request.body.messages.at(-1)?.content)}` }
        : { toolCalls: [{ name: 'kit__wipe', arguments: { target: 'staging' } }] };
    const id = (
      await server.call('POST', '/api/v1/agents/ops/messages', {
        body: { platform: 'api', content: 'wipe staging', channel: 'paused' },
      })
    ).body.id as string;
    const approvalId = await until('the approval request', async () => {
      const { rows } = await server.pool.query<{ data: { approvalId: string } }>(
        "SELECT data FROM conversation_events WHERE message_id = $1 AND type = 'approval.requested'",
        [id],
      );
      return rows[0]?.data.approvalId;
    });
    // Every worker process dies, and the server that took the message is gone too.
    const alive = workers.filter((w) => w.exitCode === null && w.signalCode === null);
    for (const child of alive) child.kill('SIGKILL');
    await Promise.all(alive.map((w) => new Promise((resolve) => w.once('exit', resolve))));
    await server.close();
    expect(mcp.calls).toHaveLength(0);

    // A new server process, on the same database, takes the decision.
    const replica = spawnSvc(['server', '--port', '0', '--no-workers'], {
      DATABASE_URL: databaseUrl,
      SVC_DATA_DIR: await createDataDir(),
      SVC_ADMIN_PASSWORD: ADMIN_PASSWORD,
      SVC_ENCRYPTION_KEY: key.toString('hex'),
      SVC_LOG_LEVEL: 'warn',
    });
    workers.push(replica);
    const url = await until(
      'the new server',
      async () => /listening on (http:\/\/\S+)/.exec(replica.output())?.[1],
    );
    const decide = () =>
      fetch(`${url}/api/v1/agents/ops/approvals/${approvalId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_PASSWORD}`, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      });
    expect((await decide()).status).toBe(200);
    expect((await decide()).status).toBe(409);
    startWorker();
    const message = await until('the resumed answer', async () => {
      const res = await fetch(`${url}/api/v1/agents/ops/messages/${id}`, {
        headers: { authorization: `Bearer ${ADMIN_PASSWORD}` },
      });
      const body = (await res.json()) as { status: string; reply: string };
      return body.status === 'completed' ? body : null;
    });
    expect(message.reply).toContain('wiped staging');
    expect(mcp.calls.map((c) => c.input)).toEqual([{ target: 'staging' }]);
  }, 60_000);
});
