import type { IncomingHttpHeaders } from 'node:http';
import { startFakeApi } from './http.js';

export interface AnthropicRequest {
  headers: IncomingHttpHeaders;
  body: {
    model: string;
    system?: string | { type: string; text: string }[];
    messages: { role: string; content: unknown }[];
    max_tokens: number;
    temperature?: number;
    stream?: boolean;
  };
}

export interface FakeAnthropicMessages {
  /** The base URL, as SVC_PROVIDER_ANTHROPIC_BASE_URL takes it (`.../v1`). */
  url: string;
  requests: AnthropicRequest[];
  answer: (request: AnthropicRequest) => { status?: number; text?: string };
}

/**
 * The Anthropic Messages API on 127.0.0.1, streaming as the real one does: `POST /v1/messages`
 * with `x-api-key`, answered by `message_start`, `content_block_start`, `content_block_delta`
 * (`text_delta`), `content_block_stop`, `message_delta` (stop reason, output tokens) and
 * `message_stop` events. Errors are `{type: "error", error: {type, message}}`.
 */
export async function startFakeAnthropicMessages(): Promise<FakeAnthropicMessages> {
  const fake: FakeAnthropicMessages = {
    url: '',
    requests: [],
    answer: (request) => ({ text: `Bonjour from ${request.body.model}` }),
  };
  const origin = await startFakeApi<AnthropicRequest['body']>({
    path: '/messages',
    notFound: '{"type":"error","error":{"type":"not_found_error","message":"not found"}}',
    handle: (recorded, res) => {
      fake.requests.push(recorded);
      const answer = fake.answer(recorded);
      if (answer.status) {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'fake failure' } }),
        );
        return;
      }
      const send = (event: string, data: Record<string, unknown>) =>
        res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const text = answer.text ?? '';
      send('message_start', {
        message: {
          id: `msg_${fake.requests.length}`,
          type: 'message',
          role: 'assistant',
          model: recorded.body.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 21, output_tokens: 1 },
        },
      });
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      for (const piece of text.split(/(?<= )/)) {
        send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } });
      }
      send('content_block_stop', { index: 0 });
      send('message_delta', {
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: text.split(' ').length },
      });
      send('message_stop', {});
      res.end();
    },
  });
  fake.url = `${origin}/v1`;
  return fake;
}
