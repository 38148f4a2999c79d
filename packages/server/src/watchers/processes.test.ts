import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import { createTestDatabase, startTestServer, type TestServer } from '../../test/harness.js';
import { spawnSvc } from '../../test/spawn-svc.js';

/**
 * Two real `svc worker` processes on one database, a watcher on a one-minute cron, and `kill -9`
 * of the process running its window's turn: the window is made once, its turn is taken up by the
 * other process, and it completes once.
 */

const key = randomBytes(32);
let fake: FakeChatCompletions;
let server: TestServer;
let databaseUrl: string;
const workers: (ChildProcess & { output(): string })[] = [];

function startWorker() {
  const child = spawnSvc(['worker', '--concurrency', '2'], {
    DATABASE_URL: databaseUrl,
    SVC_ENCRYPTION_KEY: key.toString('hex'),
    SVC_PROVIDER_OPENAI_BASE_URL: fake.url,
    SVC_TURN_LEASE_MS: '1500',
    SVC_WATCHER_SETTLE_MS: '1000',
    SVC_RUN_CONCURRENCY: '0',
    SVC_EGRESS_ALLOW: '127.0.0.1',
    SVC_LOG_LEVEL: 'warn',
  });
  workers.push(child);
  return child;
}

async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, ms = 90_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what}; the workers said:\n${workers.map((w) => w.output()).join('\n')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  databaseUrl = await createTestDatabase();
  server = await startTestServer({ databaseUrl, encryptionKey: key });
  await server.call('PUT', '/api/default/secrets/OPENAI_API_KEY', { body: { value: 'sk-watchers' } });
  await server.call('POST', '/api/default/agents', {
    body: { agentId: 'ops', name: 'Ops', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  startWorker();
  startWorker();
}, 60_000);

afterAll(async () => {
  for (const child of workers) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('a watcher across two worker processes', () => {
  it('runs each window once, and a window whose worker is killed completes once on the other', async () => {
    let calls = 0;
    fake.answer = () =>
      ++calls === 1 ? { text: 'never sent', delayMs: 60_000 } : { text: 'The minute in brief.' };
    const made = await server.call('POST', '/api/default/operations/manage_entity_schema', {
      body: {
        action: 'upsert',
        kind: 'watcher',
        item: {
          slug: 'minutely',
          name: 'Minutely',
          schedule: '* * * * *',
          prompt: 'Brief me.',
          agent: 'ops',
        },
      },
    });
    expect(made.status).toBe(201);
    await server.pool.query(
      `INSERT INTO events (org_id, origin_id, origin_type, payload_text, title, occurred_at)
       SELECT id, 'e1', 'fixture', 'the body', 'Something happened', now() - interval '3 days' FROM orgs WHERE slug = 'default'`,
    );
    // The first window closes at the next minute (and a second after): held by one worker's turn.
    const window = await until('the first window to start', async () => {
      const { rows } = await server.pool.query(
        `SELECT w.id, w.window_start, w.message_id, m.claimed_by FROM watcher_windows w
           JOIN messages m ON m.id = w.message_id WHERE w.watcher_slug = 'minutely' AND m.status = 'running'`,
      );
      return rows[0]?.claimed_by && calls === 1 ? rows[0] : null;
    });
    const pid = Number(String(window.claimed_by).split(':')[1]);
    const victim = workers.find((w) => w.pid === pid && w.exitCode === null);
    expect(victim, `no live worker has pid ${pid}`).toBeDefined();
    victim?.kill('SIGKILL');
    await new Promise((resolve) => victim?.once('exit', resolve));
    startWorker();
    const done = await until('the window to complete', async () => {
      const { rows } = await server.pool.query(
        `SELECT status, reply, attempts, event_count FROM watcher_windows WHERE id = $1 AND status <> 'running'`,
        [window.id],
      );
      return rows[0];
    });
    expect(done).toMatchObject({
      status: 'completed',
      reply: 'The minute in brief.',
      attempts: 1,
      event_count: 1,
    });
    const message = await server.pool.query(`SELECT status, attempts FROM messages WHERE id = $1`, [
      window.message_id,
    ]);
    expect(message.rows[0]).toEqual({ status: 'completed', attempts: 2 });
    const completions = await server.pool.query(
      `SELECT count(*)::int AS n FROM conversation_events WHERE message_id = $1 AND type = 'reply.completed'`,
      [window.message_id],
    );
    expect(completions.rows[0].n).toBe(1);
    // One window for that minute, one run of it, one summary: whatever the two processes did.
    const counts = await server.pool.query(
      `SELECT (SELECT count(*)::int FROM watcher_windows WHERE watcher_slug = 'minutely' AND window_start = $1) AS windows,
              (SELECT count(*)::int FROM runs WHERE watcher_window_id = $2) AS runs,
              (SELECT count(*)::int FROM events WHERE origin_type = 'watcher') AS summaries`,
      [window.window_start, window.id],
    );
    expect(counts.rows[0]).toEqual({ windows: 1, runs: 1, summaries: 1 });
  }, 150_000);
});
