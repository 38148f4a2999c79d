import { describe, expect, it } from 'vitest';
import { applyEvent, type ChatEvent, type ChatState, EMPTY } from './turns';

const play = (events: [string, Record<string, unknown>][], state: ChatState = EMPTY) =>
  events.reduce((s, [type, data]) => applyEvent(s, { type, data } as ChatEvent), state);

describe("a conversation rebuilt from its stream's events", () => {
  it('streams a reply, keeps the stored text once completed', () => {
    const state = play([
      ['message.queued', { messageId: 'm1', content: 'hi' }],
      ['message.started', { messageId: 'm1', attempt: 1 }],
      ['reply.delta', { messageId: 'm1', text: 'Hel' }],
      ['reply.delta', { messageId: 'm1', text: 'lo' }],
    ]);
    expect(state.turns).toMatchObject([{ id: 'm1', content: 'hi', status: 'running', streamed: 'Hello' }]);
    const done = play([['reply.completed', { messageId: 'm1', reply: 'Hello!', model: 'openai/x' }]], state);
    expect(done.turns[0]).toMatchObject({ status: 'completed', reply: 'Hello!', model: 'openai/x' });
  });

  it('starts the reply over on a new attempt, but not when a turn resumes after its approvals', () => {
    const paused = play([
      ['message.queued', { messageId: 'm1', content: 'wipe it' }],
      ['message.started', { messageId: 'm1', attempt: 1 }],
      ['reply.delta', { messageId: 'm1', text: 'Let me wipe it. ' }],
      ['tool.call', { toolCallId: 'c1', tool: 'kit.wipe', input: { target: 'it' } }],
      [
        'approval.requested',
        { messageId: 'm1', approvalId: 'a1', toolCallId: 'c1', tool: 'kit.wipe', expiresAt: 'later' },
      ],
    ]);
    expect(paused.turns[0]?.status).toBe('awaiting_approval');
    expect(paused.turns[0]?.tools).toEqual([
      {
        toolCallId: 'c1',
        tool: 'kit.wipe',
        input: { target: 'it' },
        approval: { approvalId: 'a1', expiresAt: 'later', status: 'pending', reason: null },
      },
    ]);
    const resumed = play(
      [
        ['approval.resolved', { messageId: 'm1', approvalId: 'a1', decision: 'approved', reason: null }],
        ['message.started', { messageId: 'm1', attempt: 1, resumed: true }],
        ['tool.result', { toolCallId: 'c1', tool: 'kit.wipe', output: [{ type: 'text', text: 'wiped' }] }],
        ['reply.delta', { messageId: 'm1', text: 'Done.' }],
      ],
      paused,
    );
    expect(resumed.turns[0]).toMatchObject({ status: 'running', streamed: 'Let me wipe it. Done.' });
    expect(resumed.turns[0]?.tools[0]).toMatchObject({
      output: [{ type: 'text', text: 'wiped' }],
      approval: { status: 'approved' },
    });
    // A worker died and another took the turn up: what the first streamed is not the reply.
    const retried = play([['message.started', { messageId: 'm1', attempt: 2 }]], resumed);
    expect(retried.turns[0]).toMatchObject({ streamed: '', tools: [] });
  });

  it('shows a failure with its problem', () => {
    const state = play([
      ['message.queued', { messageId: 'm1', content: 'hi' }],
      ['message.started', { messageId: 'm1', attempt: 1 }],
      ['reply.failed', { messageId: 'm1', error: { code: 'secret_missing', detail: 'set OPENAI_API_KEY' } }],
    ]);
    expect(state.turns[0]).toMatchObject({ status: 'failed', error: { code: 'secret_missing' } });
  });
});
