import type { IncomingHttpHeaders } from 'node:http';
import { startFakeApi } from './http.js';

/** What the fake does with one request: stream `text` in `chunks`, or fail with `status`. */
export interface FakeAnswer {
  status?: number;
  text?: string;
  /** Pieces the text is streamed in (default: words). */
  chunks?: string[];
  /** Wait before the first chunk, and between chunks. */
  delayMs?: number;
  /** Held (headers sent, no chunk) until this settles: a model that thinks as long as a test wants. */
  hold?: Promise<unknown>;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Calls these tools instead of answering in text (`finish_reason: "tool_calls"`). */
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
}

export interface RecordedRequest {
  headers: IncomingHttpHeaders;
  body: {
    model: string;
    messages: { role: string; content: unknown; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string } }[];
    temperature?: number;
    max_tokens?: number;
    stream?: boolean;
  };
}

export interface FakeChatCompletions {
  /** The base URL, as SVC_PROVIDER_<KEY>_BASE_URL takes it (`.../v1`). */
  url: string;
  requests: RecordedRequest[];
  /** Requests being answered now (their streams not yet ended). */
  readonly active: number;
  /** The most requests answered at once so far. */
  readonly peak: number;
  /** Decides the answer to each request; the default answers "Hello from <model>". */
  answer: (request: RecordedRequest) => FakeAnswer;
}

/**
 * OpenAI Chat Completions on 127.0.0.1, as the real API streams it: `POST /v1/chat/completions`
 * with `stream: true` answers `text/event-stream` of `chat.completion.chunk` objects, a last chunk
 * with `usage` when `stream_options.include_usage` asks for it, then `data: [DONE]`. Errors are
 * the API's `{error: {message, type, code}}` bodies.
 */
export async function startFakeChatCompletions(): Promise<FakeChatCompletions> {
  let active = 0;
  let peak = 0;
  const fake: FakeChatCompletions = {
    url: '',
    requests: [],
    get active() {
      return active;
    },
    get peak() {
      return peak;
    },
    answer: (request) => ({ text: `Hello from ${request.body.model}` }),
  };
  const origin = await startFakeApi<RecordedRequest['body']>({
    path: '/chat/completions',
    notFound: '{"error":{"message":"not found"}}',
    handle: async (recorded, res) => {
      fake.requests.push(recorded);
      active++;
      peak = Math.max(peak, active);
      res.once('close', () => active--);
      const answer = fake.answer(recorded);
      if (answer.status) {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: `fake failure ${answer.status}`, type: 'server_error', code: null },
          }),
        );
        return;
      }
      const id = `chatcmpl-${fake.requests.length}`;
      const created = Math.floor(Date.now() / 1000);
      const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: recorded.body.model, choices, ...extra })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const pause = () => new Promise((resolve) => setTimeout(resolve, answer.delayMs ?? 0));
      res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
      await answer.hold;
      if (answer.toolCalls) {
        for (const [index, call] of answer.toolCalls.entries()) {
          const start = {
            index,
            id: `call_${fake.requests.length}_${index}`,
            type: 'function',
            function: { name: call.name, arguments: '' },
          };
          res.write(chunk([{ index: 0, delta: { tool_calls: [start] }, finish_reason: null }]));
          const args = { index, function: { arguments: JSON.stringify(call.arguments) } };
          res.write(chunk([{ index: 0, delta: { tool_calls: [args] }, finish_reason: null }]));
        }
        res.write(chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]));
        res.end('data: [DONE]\n\n');
        return;
      }
      const text = answer.text ?? '';
      for (const piece of answer.chunks ?? text.split(/(?<= )/)) {
        await pause();
        if (res.destroyed) return;
        res.write(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
      }
      res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
      const usage = answer.usage ?? { prompt_tokens: 12, completion_tokens: text.split(' ').length };
      res.write(
        chunk([], { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
      );
      res.end('data: [DONE]\n\n');
    },
  });
  fake.url = `${origin}/v1`;
  return fake;
}
