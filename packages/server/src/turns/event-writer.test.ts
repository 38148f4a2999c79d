import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { createEventWriter, type EventWriter } from './event-writer.js';
import { claimTurns, reapLapsedTurns } from './queue.js';
import { type ClaimedTurn, LeaseLostError } from './turn.js';

/**
 * The events of many running turns go to the database together: each turn's in the order it
 * handed them over, numbered without gaps in its conversation, and only while its lease holds. A
 * turn that lost its lease writes nothing and is told; the turns beside it in the batch are not
 * held back by it.
 */

let server: TestServer;
let writer: EventWriter;
const lost: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  await server.call('POST', '/api/default/agents', { body: { agentId: 'w', name: 'W' } });
  writer = createEventWriter({
    pool: server.pool,
    log: server.app.log,
    intervalMs: 30,
    onLost: (turn) => lost.push(turn.id),
  });
});

afterAll(() => writer.close());

async function claimAll(channels: string[]): Promise<Map<string, ClaimedTurn>> {
  for (const channel of channels) {
    const res = await server.call('POST', '/api/v1/agents/w/messages', {
      body: { platform: 'api', content: channel, channel },
    });
    expect(res.status).toBe(202);
  }
  const claimed = await claimTurns(server.pool, 'test-worker', 60_000, 100);
  if (claimed === 'contended') throw new Error('contended with no other worker');
  return new Map(claimed.map((turn) => [turn.content, turn]));
}

const eventsOf = async (turn: ClaimedTurn) =>
  (
    await server.pool.query<{ seq: string; type: string; data: { text?: string } }>(
      'SELECT seq, type, data FROM conversation_events WHERE conversation_id = $1 ORDER BY seq',
      [turn.conversationId],
    )
  ).rows.map((row) => ({ seq: Number(row.seq), type: row.type, text: row.data.text }));

describe('the event writer', () => {
  it("writes many turns' events together, each turn's in order and coalesced, and fences out a turn whose lease lapsed", async () => {
    const turns = await claimAll(['kept-1', 'kept-2', 'stale']);
    const [kept1, kept2, stale] = ['kept-1', 'kept-2', 'stale'].map((c) => turns.get(c) as ClaimedTurn);
    // `stale`'s lease lapses and another worker takes it up: its token is no longer this one's.
    await server.pool.query(
      "UPDATE messages SET lease_expires_at = now() - interval '1 second' WHERE id = $1",
      [stale?.id],
    );
    await reapLapsedTurns(server.pool, 3);
    const retaken = await claimTurns(server.pool, 'other-worker', 60_000, 10);
    expect(retaken !== 'contended' && retaken.map((t) => t.id)).toEqual([stale?.id]);

    for (const turn of [kept1, kept2, stale] as ClaimedTurn[]) {
      await writer.append(turn, 'message.started', { messageId: turn.id }).catch(() => {});
      writer.delta(turn, 'Hel');
      writer.delta(turn, 'lo');
    }
    // A tool event after the deltas: the deltas go before it, as one.
    const kept1Tool = writer.append(kept1 as ClaimedTurn, 'tool.call', { messageId: kept1?.id });
    writer.delta(kept1 as ClaimedTurn, ' world');
    await kept1Tool;
    await writer.settle(kept1 as ClaimedTurn);
    await writer.settle(kept2 as ClaimedTurn);
    await expect(writer.settle(stale as ClaimedTurn)).rejects.toBeInstanceOf(LeaseLostError);
    expect(lost).toEqual([stale?.id]);

    expect(await eventsOf(kept1 as ClaimedTurn)).toEqual([
      { seq: 1, type: 'message.queued', text: undefined },
      { seq: 2, type: 'message.started', text: undefined },
      { seq: 3, type: 'reply.delta', text: 'Hello' },
      { seq: 4, type: 'tool.call', text: undefined },
      { seq: 5, type: 'reply.delta', text: ' world' },
    ]);
    expect(await eventsOf(kept2 as ClaimedTurn)).toEqual([
      { seq: 1, type: 'message.queued', text: undefined },
      { seq: 2, type: 'message.started', text: undefined },
      { seq: 3, type: 'reply.delta', text: 'Hello' },
    ]);
    // The stale worker wrote nothing after the conversation's requeue.
    expect((await eventsOf(stale as ClaimedTurn)).map((e) => e.type)).toEqual(['message.queued']);
    // And whatever it hands over later is refused at once.
    await expect(writer.append(stale as ClaimedTurn, 'reply.delta', {})).rejects.toBeInstanceOf(
      LeaseLostError,
    );
  });

  it("keeps one turn's unstorable text or busy conversation from holding back the others", async () => {
    const turns = await claimAll(['nul', 'emoji', 'busy', 'plain']);
    const [nul, emoji, busy, plain] = ['nul', 'emoji', 'busy', 'plain'].map(
      (c) => turns.get(c) as ClaimedTurn,
    );
    // A message being queued in `busy`'s conversation holds its row (its files still uploading).
    const holder = await server.pool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE', [busy?.conversationId]);
    try {
      writer.delta(nul as ClaimedTurn, 'a\u0000b');
      // Half an emoji now, the other half after the next write: it is written whole, once.
      writer.delta(emoji as ClaimedTurn, 'smile \ud83d');
      writer.delta(busy as ClaimedTurn, 'waiting');
      writer.delta(plain as ClaimedTurn, 'plain');
      await new Promise((resolve) => setTimeout(resolve, 100));
      writer.delta(emoji as ClaimedTurn, '\ude00!');
      await writer.settle(nul as ClaimedTurn);
      await writer.settle(emoji as ClaimedTurn);
      await writer.settle(plain as ClaimedTurn);
      expect((await eventsOf(nul as ClaimedTurn)).map((e) => e.text)).toEqual([undefined, 'a\ufffdb']);
      expect((await eventsOf(emoji as ClaimedTurn)).map((e) => e.text).join('')).toBe('smile \ud83d\ude00!');
      expect((await eventsOf(plain as ClaimedTurn)).map((e) => e.text)).toEqual([undefined, 'plain']);
      expect((await eventsOf(busy as ClaimedTurn)).map((e) => e.text)).toEqual([undefined]);
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
    await writer.settle(busy as ClaimedTurn);
    expect((await eventsOf(busy as ClaimedTurn)).map((e) => e.text)).toEqual([undefined, 'waiting']);
  });

  it('fails only the turn whose events PostgreSQL refuses, and stops it; the batch beside it is written', async () => {
    const turns = await claimAll(['refused', 'beside']);
    const [refused, beside] = ['refused', 'beside'].map((c) => turns.get(c) as ClaimedTurn);
    lost.length = 0;
    // A tool call whose input has a NUL in a key: jsonb takes no NUL, and keys are not rewritten.
    const call = writer.append(refused as ClaimedTurn, 'tool.call', { input: { 'a\u0000b': 1 } });
    writer.delta(beside as ClaimedTurn, 'still here');
    await expect(call).rejects.toThrow(/unsupported Unicode escape sequence|\\u0000/);
    await writer.settle(beside as ClaimedTurn);
    expect(lost).toEqual([refused?.id]);
    expect((await eventsOf(beside as ClaimedTurn)).map((e) => e.text)).toEqual([undefined, 'still here']);
    expect((await eventsOf(refused as ClaimedTurn)).map((e) => e.type)).toEqual(['message.queued']);
  });

  it('treats a message claimed again as a new turn, whatever the one before left', async () => {
    const turns = await claimAll(['again']);
    const first = turns.get('again') as ClaimedTurn;
    writer.delta(first, 'first try');
    await writer.settle(first);
    await server.pool.query(
      "UPDATE messages SET lease_expires_at = now() - interval '1 second' WHERE id = $1",
      [first.id],
    );
    await reapLapsedTurns(server.pool, 3);
    const claimed = await claimTurns(server.pool, 'test-worker', 60_000, 10);
    const second = claimed !== 'contended' ? claimed.find((t) => t.id === first.id) : undefined;
    expect(second?.leaseToken).toBe(first.leaseToken + 1);
    // The first turn's entry is still there (it was not forgotten yet): the second is not fenced by it.
    await writer.append(second as ClaimedTurn, 'message.started', { messageId: first.id });
    writer.forget(first);
    writer.delta(second as ClaimedTurn, 'second try');
    await writer.settle(second as ClaimedTurn);
    expect((await eventsOf(second as ClaimedTurn)).map((e) => e.text ?? e.type)).toEqual([
      'message.queued',
      'first try',
      'message.started',
      'second try',
    ]);
  });

  it('writes what is pending when closed', async () => {
    const turns = await claimAll(['closing']);
    const turn = turns.get('closing') as ClaimedTurn;
    const closing = createEventWriter({ pool: server.pool, log: server.app.log, intervalMs: 60_000 });
    closing.delta(turn, 'last words');
    await closing.close();
    expect((await eventsOf(turn)).map((e) => e.text ?? e.type)).toEqual(['message.queued', 'last words']);
  });
});
