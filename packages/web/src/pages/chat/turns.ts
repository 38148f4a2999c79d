import type { paths } from '../../api/schema';

export type Message =
  paths['/api/v1/agents/{agentId}/conversations/{conversationId}/messages']['get']['responses'][200]['content']['application/json']['messages'][number];

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

export interface ToolCall {
  toolCallId: string;
  tool: string;
  input: unknown;
  output?: unknown;
  error?: string;
  approval?: {
    approvalId: string;
    expiresAt: string;
    status: ApprovalStatus;
    reason: string | null;
  };
}

/** One message of the conversation and what the agent did with it. */
export interface Turn {
  id: string;
  content: string;
  status: Message['status'];
  files: Message['files'];
  createdAt: string | null;
  /** The text streamed so far; what is shown until the reply is final. */
  streamed: string;
  /** The reply as stored once the turn completed. */
  reply: string | null;
  error: Message['error'];
  model: string | null;
  tools: ToolCall[];
}

export interface ChatState {
  turns: Turn[];
  /** The message whose turn runs now: tool events name no message, and a conversation runs one at a time. */
  current: string | null;
}

export const EMPTY: ChatState = { turns: [], current: null };

/** An event of the conversation's stream (its `data`, with the event's name). */
export interface ChatEvent {
  type: string;
  // biome-ignore lint/suspicious/noExplicitAny: the stream's data is JSON, checked field by field below.
  data: Record<string, any>;
}

function fromMessage(message: Message): Turn {
  return {
    id: message.id,
    content: message.content,
    status: message.status,
    files: message.files,
    createdAt: message.createdAt,
    streamed: '',
    reply: message.reply,
    error: message.error,
    model: message.model,
    tools: [],
  };
}

const update = (state: ChatState, id: string | null, change: (turn: Turn) => Turn): ChatState =>
  id === null
    ? state
    : { ...state, turns: state.turns.map((turn) => (turn.id === id ? change(turn) : turn)) };

const upsertTool = (turn: Turn, toolCallId: string, change: (call: ToolCall) => ToolCall): Turn => {
  const found = turn.tools.some((call) => call.toolCallId === toolCallId);
  const tools = found
    ? turn.tools.map((call) => (call.toolCallId === toolCallId ? change(call) : call))
    : [...turn.tools, change({ toolCallId, tool: '', input: null })];
  return { ...turn, tools };
};

/** Messages loaded from the history, or one fetched after its `message.queued`: what is stored wins. */
export function withMessages(state: ChatState, messages: Message[]): ChatState {
  let turns = state.turns;
  for (const message of messages) {
    const known = turns.find((turn) => turn.id === message.id);
    turns = known
      ? turns.map((turn) =>
          turn.id === message.id
            ? { ...turn, files: message.files, createdAt: message.createdAt, model: message.model }
            : turn,
        )
      : [...turns, fromMessage(message)];
  }
  return { ...state, turns };
}

/**
 * The conversation after one event. The stream is read from its start, so a reloaded page rebuilds
 * what the history alone does not keep (tool calls, approvals); events repeat nothing, since the
 * caller drops any whose id it has seen.
 */
export function applyEvent(state: ChatState, { type, data }: ChatEvent): ChatState {
  const id = typeof data.messageId === 'string' ? data.messageId : state.current;
  switch (type) {
    case 'message.queued':
      if (state.turns.some((turn) => turn.id === id)) return state;
      return {
        ...state,
        turns: [
          ...state.turns,
          fromMessage({ id, content: data.content ?? '', status: 'queued', files: [] } as unknown as Message),
        ],
      };
    case 'message.started':
      return update({ ...state, current: id }, id, (turn) =>
        // A new attempt restarts the reply; a turn resumed after its approvals goes on from its text.
        data.resumed
          ? { ...turn, status: 'running' }
          : { ...turn, status: 'running', streamed: '', reply: null, error: null, tools: [] },
      );
    case 'reply.delta':
      return update(state, id, (turn) => ({ ...turn, streamed: turn.streamed + String(data.text ?? '') }));
    case 'tool.call':
      return update(state, state.current, (turn) =>
        upsertTool(turn, data.toolCallId, (call) => ({ ...call, tool: data.tool, input: data.input })),
      );
    case 'tool.result':
      return update(state, state.current, (turn) =>
        upsertTool(turn, data.toolCallId, (call) => ({
          ...call,
          tool: call.tool || data.tool,
          ...('error' in data ? { error: String(data.error) } : { output: data.output }),
        })),
      );
    case 'approval.requested':
      return update(state, id, (turn) => ({
        ...upsertTool(turn, data.toolCallId, (call) => ({
          ...call,
          tool: call.tool || data.tool,
          input: call.input ?? data.input,
          approval: {
            approvalId: data.approvalId,
            expiresAt: data.expiresAt,
            status: 'pending',
            reason: null,
          },
        })),
        status: 'awaiting_approval',
      }));
    case 'approval.resolved':
      return resolveApproval(state, data.approvalId, data.decision, data.reason ?? null);
    case 'reply.completed':
      return update(state, id, (turn) => ({
        ...turn,
        status: 'completed',
        reply: typeof data.reply === 'string' ? data.reply : turn.streamed,
        model: data.model ?? turn.model,
      }));
    case 'reply.failed':
      return update(state, id, (turn) => ({ ...turn, status: 'failed', error: data.error ?? null }));
    default:
      return state;
  }
}

/** A decision, as the stream or the decision's own answer tells it (whichever comes first). */
export function resolveApproval(
  state: ChatState,
  approvalId: string,
  status: ApprovalStatus,
  reason: string | null,
): ChatState {
  return {
    ...state,
    turns: state.turns.map((turn) =>
      turn.tools.some((call) => call.approval?.approvalId === approvalId)
        ? {
            ...turn,
            tools: turn.tools.map((call) =>
              call.approval?.approvalId === approvalId
                ? { ...call, approval: { ...call.approval, status, reason } }
                : call,
            ),
          }
        : turn,
    ),
  };
}

export const EVENT_TYPES = [
  'message.queued',
  'message.started',
  'reply.delta',
  'tool.call',
  'tool.result',
  'approval.requested',
  'approval.resolved',
  'reply.completed',
  'reply.failed',
] as const;
