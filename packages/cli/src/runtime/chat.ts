/**
 * `svc chat <agentId>`: a conversation in the terminal. Each message is posted, then the
 * conversation's event stream (SSE) is read until that message's reply completes or fails: the
 * reply's text is printed as it streams, tool calls are named, and a call that needs approval is
 * asked inline and decided at once, so the turn resumes while the person watches.
 */

import { createInterface } from 'node:readline';
import { type Api, openApi, type RuntimeIo, type SessionFlags } from './api.js';

export interface ChatFlags extends SessionFlags {
  message?: string;
  channel?: string;
}

/** The terminal of a chat: text as it streams, and a line of input (null at end of input). */
export interface ChatIo extends RuntimeIo {
  write: (text: string) => void;
  ask: (prompt: string) => Promise<string | null>;
}

/**
 * stdin read a line at a time: the end of input (Ctrl-D, a closed pipe) is null, not an error.
 * With `promptsOnStderr` (one shot), stdout holds the reply alone.
 */
export function chatIo(base: RuntimeIo, promptsOnStderr: boolean): ChatIo & { close: () => void } {
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    ...base,
    write: (text) => process.stdout.write(text),
    async ask(prompt) {
      (promptsOnStderr ? process.stderr : process.stdout).write(prompt);
      const next = await lines.next();
      return next.done ? null : next.value;
    },
    close: () => rl.close(),
  };
}

interface Accepted {
  id: string;
  conversationId: string;
}

interface StreamEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

type Outcome = { ok: true } | { ok: false; problem: string };

/** Returns the exit code: 0, or 1 when the (last) reply failed in one-shot mode. */
export async function chat(agentId: string, flags: ChatFlags, io: ChatIo): Promise<number> {
  const api = await openApi(io, flags);
  const state = { conversationId: null as string | null, after: 0 };
  if (flags.message !== undefined) {
    const outcome = await turn(api, agentId, flags, flags.message, state, io, true);
    if (!outcome.ok) io.err(outcome.problem);
    return outcome.ok ? 0 : 1;
  }
  const where = flags.channel ? `channel "${flags.channel}", shared by the org` : 'a private conversation';
  io.err(`talking to agent ${agentId} in org ${api.session.org} (${where}); /exit or Ctrl-D ends`);
  for (;;) {
    const line = await io.ask('you> ');
    if (line === null || line.trim() === '/exit') break;
    if (line.trim() === '') continue;
    const outcome = await turn(api, agentId, flags, line, state, io, false);
    if (!outcome.ok) io.err(outcome.problem);
  }
  if (state.conversationId)
    io.err(`conversation ${state.conversationId}: svc conversations show ${agentId} ${state.conversationId}`);
  return 0;
}

const agentPath = (agentId: string) => `/api/v1/agents/${encodeURIComponent(agentId)}`;

async function turn(
  api: Api,
  agentId: string,
  flags: ChatFlags,
  content: string,
  state: { conversationId: string | null; after: number },
  io: ChatIo,
  oneShot: boolean,
): Promise<Outcome> {
  // The first message opens the conversation (the channel's, or the token's own); the rest continue it.
  const route = flags.channel
    ? { channel: flags.channel }
    : state.conversationId
      ? { conversationId: state.conversationId }
      : {};
  const accepted = await api.callRoot<Accepted>(
    'POST',
    `${agentPath(agentId)}/messages`,
    { platform: 'api', content, ...route },
    {
      not_found: `org ${api.session.org} has no agent "${agentId}": "svc agents list" shows them`,
      forbidden: 'chatting takes a token with the messages scope: svc tokens create <name> --scopes messages',
    },
  );
  state.conversationId = accepted.conversationId;
  // Interactive, the agent's name starts each stretch of its reply; one shot, stdout is the reply alone.
  let open = false;
  let wrote = false;
  const text = (piece: string) => {
    if (!open && !oneShot) io.write(`${agentId}> `);
    open = true;
    wrote = true;
    io.write(piece);
  };
  const endLine = () => {
    if (open) io.write('\n');
    open = false;
  };
  const outcome = await follow(api, agentId, accepted, state, async (event) => {
    const { data } = event;
    if (data.messageId !== accepted.id) return undefined;
    if (event.type === 'message.started' && Number(data.attempt ?? 1) > 1 && wrote) {
      endLine();
      io.err('(the turn restarted on another attempt: its reply starts again)');
    } else if (event.type === 'reply.delta') {
      text(String(data.text ?? ''));
    } else if (event.type === 'tool.call') {
      endLine();
      io.err(`[tool] ${String(data.tool ?? data.toolName ?? '?')} ${JSON.stringify(data.input ?? null)}`);
    } else if (event.type === 'approval.requested') {
      endLine();
      const id = String(data.approvalId);
      // Undecided (no input left), the turn waits: following it further would hang.
      if (!(await approve(api, agentId, data, io))) {
        return {
          ok: false,
          problem: `no reply yet: it waits for approval of ${String(data.tool)}: svc approvals approve ${id}, or svc approvals reject ${id}`,
        };
      }
    } else if (event.type === 'reply.completed') {
      // A reply that streamed nothing (no deltas kept) is still shown whole.
      if (!wrote && typeof data.reply === 'string') text(data.reply);
      endLine();
      return { ok: true };
    } else if (event.type === 'reply.failed') {
      endLine();
      const error = data.error as { code?: string; detail?: string } | null;
      return {
        ok: false,
        problem: `the reply failed: ${error ? `${error.detail} (${error.code})` : 'no reason given'}`,
      };
    }
    return undefined;
  });
  return outcome;
}

/** Asks the person, and posts the decision; no answer (end of input) leaves the call undecided. */
async function approve(
  api: Api,
  agentId: string,
  data: Record<string, unknown>,
  io: ChatIo,
): Promise<boolean> {
  const id = String(data.approvalId);
  io.err(`the agent wants to run ${String(data.tool)} ${JSON.stringify(data.input ?? null)}`);
  const answer = await io.ask('approve? [y/N] ');
  if (answer === null) return false;
  const yes = /^y(es)?$/i.test(answer.trim());
  const reason = (await io.ask('reason: '))?.trim();
  await api.callRoot(
    'POST',
    `${agentPath(agentId)}/approvals/${id}`,
    { decision: yes ? 'approve' : 'reject', ...(reason ? { reason } : {}) },
    { conflict: 'it was decided elsewhere, or expired, first' },
  );
  io.err(yes ? 'approved' : 'rejected: the model is told so');
  return true;
}

/**
 * Reads the conversation's stream from the last event seen until `handle` returns an outcome. A
 * stream the server ends (a restart, a replica going away) is opened again from the same point.
 */
async function follow(
  api: Api,
  agentId: string,
  accepted: Accepted,
  state: { after: number },
  handle: (event: StreamEvent) => Promise<Outcome | undefined>,
): Promise<Outcome> {
  const url = `${api.session.url.replace(/\/+$/, '')}${agentPath(agentId)}/conversations/${accepted.conversationId}/events`;
  for (let attempt = 0; attempt < 5; attempt++) {
    const controller = new AbortController();
    const response = await fetch(`${url}?after=${state.after}`, {
      headers: { authorization: `Bearer ${api.session.token}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    if (!response.ok || !response.body) {
      throw new Error(
        `GET ${url}: HTTP ${response.status}; "svc conversations show ${agentId} ${accepted.conversationId}" shows the reply once it is done`,
      );
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const event = parseFrame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          if (!event) continue;
          state.after = Math.max(state.after, event.seq);
          const outcome = await handle(event);
          if (outcome) return outcome;
        }
      }
    } finally {
      controller.abort();
    }
  }
  throw new Error(
    `the event stream kept ending: "svc conversations show ${agentId} ${accepted.conversationId}" shows the reply once it is done`,
  );
}

/** One SSE frame (`id:`, `event:`, `data:` lines); a `: ping` comment is none. */
function parseFrame(frame: string): StreamEvent | null {
  let type = 'message';
  let id: number | null = null;
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('id:')) id = Number(line.slice(3).trim());
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (id === null || data.length === 0) return null;
  return { seq: id, type, data: JSON.parse(data.join('\n')) as Record<string, unknown> };
}
