import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { claimTurn, completeTurn, extendLeases, reapLapsedTurns } from './queue.js';
import { type ClaimedTurn, LeaseLostError } from './turn.js';

/**
 * The queue's rules, one statement at a time and with no workers running: a lapsed lease fences
 * its worker out, the reaper hands the turn to the next, and a turn whose workers keep dying is
 * given up after its attempts.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await server.call('POST', '/api/default/agents', { body: { agentId: 'q', name: 'Q' } });
});

async function queue(content: string): Promise<string> {
  const res = await server.call('POST', '/api/v1/agents/q/messages', {
    body: { platform: 'api', content, channel: content },
  });
  return res.body.id;
}

async function claim(messageId: string, leaseMs: number): Promise<ClaimedTurn> {
  for (let i = 0; i < 50; i++) {
    const turn = await claimTurn(server.pool, 'test-worker', leaseMs);
    if (turn && turn !== 'contended' && turn.id === messageId) return turn;
    if (turn && turn !== 'contended') throw new Error(`claimed another message: ${turn.id}`);
  }
  throw new Error(`message ${messageId} was not claimed`);
}

/** Lets every running lease lapse: the test's stand-in for a worker that stopped answering. */
const lapse = () =>
  server.pool.query(
    "UPDATE messages SET lease_expires_at = now() - interval '1 second' WHERE status = 'running'",
  );

const row = async (id: string) =>
  (
    await server.pool.query(
      'SELECT status, attempts, lease_token, reply, error FROM messages WHERE id = $1',
      [id],
    )
  ).rows[0];

describe('the turn queue', () => {
  it('fences a worker whose lease lapsed: its heartbeat and its reply are refused after the next claim', async () => {
    const id = await queue('fenced');
    const stale = await claim(id, 60_000);
    await lapse();
    expect(await reapLapsedTurns(server.pool, 3)).toEqual({ requeued: 1, failed: 0 });
    const fresh = await claim(id, 60_000);
    expect(fresh.leaseToken).toBe(stale.leaseToken + 1);
    expect(await extendLeases(server.pool, [stale, fresh], 60_000)).toEqual(new Set([fresh.id]));
    await expect(
      completeTurn(server.pool, stale, {
        reply: 'stale',
        model: 'm/x',
        usage: {},
        firstTokenAt: null,
        toolItems: [],
      }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    await completeTurn(server.pool, fresh, {
      reply: 'fresh',
      model: 'm/x',
      usage: {},
      firstTokenAt: null,
      toolItems: [],
    });
    expect(await row(id)).toMatchObject({ status: 'completed', reply: 'fresh', attempts: 2 });
    const completed = await server.pool.query(
      "SELECT 1 FROM conversation_events WHERE message_id = $1 AND type = 'reply.completed'",
      [id],
    );
    expect(completed.rowCount).toBe(1);
  });

  it('gives a turn up as turn_abandoned after its attempts, with a reply.failed event', async () => {
    const id = await queue('doomed');
    for (let attempt = 1; attempt <= 3; attempt++) {
      await claim(id, 60_000);
      await lapse();
      const reaped = await reapLapsedTurns(server.pool, 3);
      expect(reaped).toEqual(attempt < 3 ? { requeued: 1, failed: 0 } : { requeued: 0, failed: 1 });
    }
    const message = await row(id);
    expect(message).toMatchObject({ status: 'failed', attempts: 3 });
    expect(message.error).toMatchObject({ code: 'turn_abandoned' });
    expect(message.error.detail).toContain('started 3 times');
    const failed = await server.pool.query(
      "SELECT data FROM conversation_events WHERE message_id = $1 AND type = 'reply.failed'",
      [id],
    );
    expect(failed.rows).toHaveLength(1);
    // Nothing claims it again.
    expect(await claimTurn(server.pool, 'test-worker', 60_000)).toBeNull();
  });

  it('takes a conversation one message at a time, oldest first', async () => {
    const first = await server.call('POST', '/api/v1/agents/q/messages', {
      body: { platform: 'api', content: 'one', channel: 'serial' },
    });
    const second = await server.call('POST', '/api/v1/agents/q/messages', {
      body: { platform: 'api', content: 'two', channel: 'serial' },
    });
    const taken = await claim(first.body.id, 60_000);
    // The second waits while the first runs, even for another worker.
    expect(await claimTurn(server.pool, 'other-worker', 60_000)).toBeNull();
    await completeTurn(server.pool, taken, {
      reply: 'ok',
      model: 'm/x',
      usage: {},
      firstTokenAt: null,
      toolItems: [],
    });
    expect((await claim(second.body.id, 60_000)).id).toBe(second.body.id);
  });
});
