import { expect } from 'vitest';
import type { FakeChatCompletions, RecordedRequest } from './fakes/chat-completions.js';
import type { TestServer } from './harness.js';

/**
 * An org's agents calling tools, as tests of connector actions drive them: an agent on the fake
 * model, a message sent and waited for, and the model told to call one tool and then say what it
 * got back.
 */
export function agentTurns(server: () => TestServer, model: () => FakeChatCompletions) {
  const lastMessage = (request: RecordedRequest) => request.body.messages.at(-1);
  return {
    /** An agent on the fake model (its key in OPENAI_API_KEY), with `config` PATCHed. */
    async agent(agentId: string, config: Record<string, unknown> = {}) {
      await server().call('POST', '/api/default/agents', {
        body: { agentId, name: agentId, providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
      });
      const res = await server().call('PATCH', `/api/default/agents/${agentId}/config`, { body: config });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
    /** Sends `content` and waits up to 30 s for the turn to end or pause. */
    send(agentId: string, content: string) {
      return server().call('POST', `/api/v1/agents/${agentId}/messages`, {
        body: { platform: 'api', content },
        headers: { prefer: 'wait=30' },
      });
    },
    /** The message once its status is one of `statuses` (or as it is after `ms`). */
    async until(agentId: string, messageId: string, statuses: string[], ms = 30_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const res = await server().call('GET', `/api/v1/agents/${agentId}/messages/${messageId}`);
        if (statuses.includes(res.body.status) || Date.now() > deadline) return res.body;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    /** The model calls `tool` with `args` once, then answers with what the tool said. */
    calling(tool: string, args: Record<string, unknown>) {
      model().answer = (request) =>
        lastMessage(request)?.role === 'tool'
          ? { text: `done: ${String(lastMessage(request)?.content)}` }
          : { toolCalls: [{ name: tool, arguments: args }] };
    },
  };
}
