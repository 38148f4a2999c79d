import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import { ADMIN_PASSWORD, createDataDir, createTestDatabase } from '../../test/harness.js';
import { spawnSvc } from '../../test/spawn-svc.js';
import { until as waitUntil } from '../../test/until.js';

/**
 * The deployment of the docs, for real: two `svc server` processes (A with its own workers, B
 * with none) and two `svc worker` processes on one database. Every message is answered exactly
 * once and in order within its conversation; a stream read from B shows turns that other
 * processes ran; a client that reconnects to the other replica with `Last-Event-ID` misses nothing
 * and gets nothing twice.
 */

const key = randomBytes(32).toString('hex');
let fake: FakeChatCompletions;
let databaseUrl: string;
let pool: pg.Pool;
const processes: ReturnType<typeof spawnSvc>[] = [];
let a: string;
let b: string;

const said = () => processes.map((p) => p.output()).join('\n');

const until = <T>(what: string, check: () => Promise<T | null | undefined | false>, ms = 60_000) =>
  waitUntil(what, check, { ms, said });

async function start(args: string[]): Promise<ReturnType<typeof spawnSvc>> {
  const child = spawnSvc(args, {
    DATABASE_URL: databaseUrl,
    SVC_DATA_DIR: await createDataDir(),
    SVC_ADMIN_PASSWORD: ADMIN_PASSWORD,
    SVC_ENCRYPTION_KEY: key,
    SVC_PROVIDER_OPENAI_BASE_URL: fake.url,
    SVC_EGRESS_ALLOW: '127.0.0.1',
    SVC_MESSAGES_RATE_LIMIT: 'off',
    SVC_LOG_LEVEL: 'warn',
  });
  processes.push(child);
  return child;
}

async function startServer(args: string[]): Promise<string> {
  const child = await start(['server', '--port', '0', '--host', '127.0.0.1', ...args]);
  return until(
    `svc server ${args.join(' ')}`,
    async () => /listening on (http:\/\/\S+)/.exec(child.output())?.[1],
  );
}

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_PASSWORD}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  fake.answer = (request) => ({ text: `re: ${String(request.body.messages.at(-1)?.content)}` });
  databaseUrl = await createTestDatabase();
  pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // A first, alone: it brings the schema up.
  a = await startServer(['--concurrency', '2']);
  [b] = await Promise.all([
    startServer(['--no-workers']),
    start(['worker', '--concurrency', '2', '--metrics-port', '0']),
    start(['worker', '--concurrency', '2', '--metrics-port', '0']),
  ]);
  expect((await call(a, 'PUT', '/api/default/secrets/OPENAI_API_KEY', { value: 'sk-replicas' })).status).toBe(
    201,
  );
  const agent = await call(a, 'POST', '/api/default/agents', {
    agentId: 'many',
    name: 'Many',
    providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
  });
  expect(agent.status).toBe(201);
}, 120_000);

afterAll(async () => {
  for (const child of processes) if (child.exitCode === null) child.kill('SIGKILL');
  await pool?.end();
});

describe('two servers and two workers, each a process of its own', () => {
  it('answer 200 messages over 20 conversations exactly once each, in order within each', async () => {
    // Sent through both servers, interleaved across conversations.
    for (let i = 0; i < 10; i++) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, c) => {
          const res = await call(c % 2 ? a : b, 'POST', '/api/v1/agents/many/messages', {
            platform: 'api',
            content: `c${c}-m${i}`,
            channel: `c${c}`,
          });
          expect(res.status).toBe(202);
        }),
      );
    }
    await until('200 answers', async () => {
      const { rows } = await pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM messages WHERE agent_id = 'many' AND status = 'completed'",
      );
      return Number(rows[0]?.n) === 200;
    });
    // Exactly once: one model call and one reply.completed per message.
    const asked = fake.requests.map((r) => String(r.body.messages.at(-1)?.content));
    expect(asked).toHaveLength(200);
    expect(new Set(asked).size).toBe(200);
    const { rows: completed } = await pool.query(
      "SELECT message_id FROM conversation_events WHERE type = 'reply.completed'",
    );
    expect(completed).toHaveLength(200);
    // The turns were spread over the processes that run workers (A and the two workers).
    const { rows: holders } = await pool.query<{ pid: string }>(
      "SELECT DISTINCT split_part(claimed_by, ':', 2) AS pid FROM messages WHERE agent_id = 'many'",
    );
    expect(holders.length).toBeGreaterThanOrEqual(2);
    // Each process counts the turns it ran: together, every one of them.
    const scrapes = [`${a}/metrics`];
    for (const worker of processes.filter((p) => p.spawnargs.includes('worker'))) {
      scrapes.push(
        await until('worker metrics', async () => /metrics on (http:\S+)/.exec(worker.output())?.[1]),
      );
    }
    let counted = 0;
    for (const url of scrapes) {
      const text = await (await fetch(url)).text();
      counted += Number(/^svc_turns_total\{outcome="completed"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    }
    expect(counted).toBe(200);
    const elsewhere = await fetch(String(scrapes[1]).replace('/metrics', '/api/v1/agents'));
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers.get('content-type')).toBe('application/problem+json');
    // In order: within a conversation, each turn started after the one before it ended.
    const { rows } = await pool.query<{
      content: string;
      channel: string;
      started_at: Date;
      completed_at: Date;
    }>(
      `SELECT m.content, c.channel, m.started_at, m.completed_at FROM messages m
         JOIN conversations c ON c.id = m.conversation_id
        WHERE m.agent_id = 'many' ORDER BY c.channel, m.created_at, m.id`,
    );
    for (let i = 1; i < rows.length; i++) {
      const [previous, current] = [rows[i - 1], rows[i]];
      if (!previous || !current || previous.channel !== current.channel) continue;
      expect(
        current.started_at >= previous.completed_at,
        `${current.content} after ${previous.content}`,
      ).toBe(true);
    }
    // The model saw each conversation's history in order.
    const last = fake.requests.find((r) => r.body.messages.at(-1)?.content === 'c3-m9');
    const seen = last?.body.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => `c3-m${i}`));
  }, 120_000);

  it('stream from B, which runs no turns, then resume on A with Last-Event-ID: every event once', async () => {
    fake.answer = () => ({ chunks: ['one ', 'two ', 'three ', 'four ', 'five'], delayMs: 120 });
    try {
      const accepted = await call(b, 'POST', '/api/v1/agents/many/messages', {
        platform: 'api',
        content: 'watched',
        channel: 'watched',
      });
      expect(accepted.status).toBe(202);
      const path = accepted.body.links.events as string;
      // On B until the first delta, then the connection drops.
      const first = await readEvents(`${b}${path}`, {}, (events) =>
        events.some((e) => e.event === 'reply.delta'),
      );
      const lastId = first.at(-1)?.id as string;
      // On A from there, to the end.
      const rest = await readEvents(`${a}${path}`, { 'last-event-id': lastId }, (events) =>
        events.some((e) => e.event === 'reply.completed'),
      );
      const ids = [...first, ...rest].map((e) => Number(e.id));
      const { rows } = await pool.query<{ seq: string }>(
        'SELECT seq FROM conversation_events WHERE conversation_id = $1 ORDER BY seq',
        [accepted.body.conversationId],
      );
      expect(ids).toEqual(rows.map((r) => Number(r.seq)));
      const text = [...first, ...rest]
        .filter((e) => e.event === 'reply.delta')
        .map((e) => JSON.parse(e.data).text)
        .join('');
      expect(text).toBe('one two three four five');
      expect(rest.at(-1)?.data).toContain('"reply":"one two three four five"');
    } finally {
      fake.answer = (request) => ({ text: `re: ${String(request.body.messages.at(-1)?.content)}` });
    }
  }, 60_000);
});

interface SseEvent {
  id: string;
  event: string;
  data: string;
}

/** Reads an SSE stream until `enough` says so, then drops the connection. */
async function readEvents(
  url: string,
  headers: Record<string, string>,
  enough: (events: SseEvent[]) => boolean,
): Promise<SseEvent[]> {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${ADMIN_PASSWORD}`, ...headers },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const events: SseEvent[] = [];
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const field = (name: string) => fieldOf(block, name);
      if (field('id')) events.push({ id: field('id'), event: field('event'), data: field('data') });
      end = buffer.indexOf('\n\n');
    }
    if (enough(events)) break;
  }
  controller.abort();
  return events;
}

function fieldOf(block: string, name: string): string {
  return (
    block
      .split('\n')
      .find((line) => line.startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trimStart() ?? ''
  );
}
