import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import { ADMIN_PASSWORD, createDataDir, createTestDatabase } from '../../test/harness.js';
import { spawnSvc } from '../../test/spawn-svc.js';
import { until as waitUntil } from '../../test/until.js';

/**
 * A turn waits on its model for seconds: one process with default settings must hold hundreds of
 * them at once, with its database pool at its default size. `svc server` as an operator starts it
 * (no --concurrency, no SVC_DB_POOL_SIZE); a model that answers nothing until the test releases
 * it; 200 conversations. Not a timing test: the deadline only bounds how long a failure takes.
 */

const CONVERSATIONS = 200;
let fake: FakeChatCompletions;
let databaseUrl: string;
let pool: pg.Pool;
let server: ReturnType<typeof spawnSvc>;
let url: string;
let release: () => void;

const until = <T>(
  what: string,
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
) => waitUntil(what, check, { ms: 90_000, everyMs: 100, said: () => server.output() });

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_PASSWORD}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  fake.answer = (request) => {
    const last = request.body.messages.at(-1);
    return { text: `answer to ${String(last?.content)}`, hold: held };
  };
  databaseUrl = await createTestDatabase();
  pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  server = spawnSvc(['server', '--port', '0', '--host', '127.0.0.1'], {
    DATABASE_URL: databaseUrl,
    SVC_DATA_DIR: await createDataDir(),
    SVC_ADMIN_PASSWORD: ADMIN_PASSWORD,
    SVC_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SVC_PROVIDER_OPENAI_BASE_URL: fake.url,
    SVC_EGRESS_ALLOW: '127.0.0.1',
    OPENAI_API_KEY: 'sk-test',
    SVC_SECRETS_FROM_ENV: 'OPENAI_API_KEY',
    SVC_MESSAGES_RATE_LIMIT: 'off',
    SVC_LOG_LEVEL: 'warn',
    // The defaults under test: whatever the environment running the suite says, they are unset.
    SVC_TURN_CONCURRENCY: undefined,
    SVC_DB_POOL_SIZE: undefined,
  });
  url = await until('svc server to listen', () => /listening on (http:\/\/\S+)/.exec(server.output())?.[1]);
  const agent = await call('POST', '/api/default/agents', {
    agentId: 'busy',
    name: 'Busy',
    providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
  });
  expect(agent.status).toBe(201);
}, 120_000);

afterAll(async () => {
  release?.();
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await pool?.end();
});

describe('one svc server with default settings', () => {
  it(`runs ${CONVERSATIONS} conversations' turns at once while their model thinks, and completes every one when it answers`, async () => {
    const accepted = await Promise.all(
      Array.from({ length: CONVERSATIONS }, (_, i) =>
        call('POST', '/api/v1/agents/busy/messages', {
          platform: 'api',
          channel: `room-${i}`,
          content: `question ${i}`,
        }),
      ),
    );
    expect(accepted.map((a) => a.status)).toEqual(Array(CONVERSATIONS).fill(202));
    expect(new Set(accepted.map((a) => a.body.conversationId)).size).toBe(CONVERSATIONS);

    // Every turn is running: its model call is open, and the message says so.
    await until(
      `${CONVERSATIONS} model calls at once (${fake.active} so far)`,
      () => fake.active === CONVERSATIONS,
    );
    const { rows: running } = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM messages WHERE status = 'running'",
    );
    expect(running[0]?.n).toBe(CONVERSATIONS);
    // Waiting on the model, the turns hold no database connection (200 of them run on a pool of
    // 20): the server's connections are idle but for its reapers' short statements now and then.
    const inUse: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`,
      );
      inUse.push(rows[0]?.n ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(Math.min(...inUse)).toBeLessThanOrEqual(1);

    release();
    await until('every reply completed', async () => {
      const { rows } = await pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM messages WHERE status = 'completed'",
      );
      return rows[0]?.n === CONVERSATIONS;
    });
    // Each conversation got its own answer, once, and its stream says so once.
    const { rows: replies } = await pool.query<{ content: string; reply: string; completions: number }>(
      `SELECT m.content, m.reply,
              (SELECT count(*)::int FROM conversation_events e
                WHERE e.conversation_id = m.conversation_id AND e.type = 'reply.completed') AS completions
         FROM messages m`,
    );
    expect(replies).toHaveLength(CONVERSATIONS);
    for (const row of replies) {
      expect(row.reply).toBe(`answer to ${row.content}`);
      expect(row.completions).toBe(1);
    }
    expect(fake.requests).toHaveLength(CONVERSATIONS);
  }, 180_000);
});
