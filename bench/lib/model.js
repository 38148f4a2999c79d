// A Chat Completions model on 127.0.0.1 that costs nothing measurable, for benchmarks that time
// what svc does around a turn.
import { createServer } from 'node:http';

/** Chat Completions that streams 50 tokens in one go; answers its base URL (`.../v1`). */
export async function startZeroDelayModel() {
  const words = Array.from({ length: 50 }, (_, i) => `w${i} `);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const chunk = (delta, extra = {}) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        words.map((w) => chunk({ content: w })).join('') +
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n` +
          'data: [DONE]\n\n',
      );
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}/v1`;
}
