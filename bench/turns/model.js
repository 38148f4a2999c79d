// A Chat Completions model on 127.0.0.1 that takes a real model's time: each answer streams
// `deltas` pieces spread over `modelMs`. It counts the calls it is serving at once (the peak is
// how many turns svc really ran together) and records each call's own time, so that svc's
// overhead is what remains of a reply's latency once the model's time is taken out.
import { createServer } from 'node:http';

export async function startSlowModel({ modelMs, deltas = 20 }) {
  const calls = new Map(); // tag (from the user's message) -> { startedAt, endedAt }
  let running = 0;
  let peak = 0;
  const sockets = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      const startedAt = performance.now();
      running++;
      peak = Math.max(peak, running);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const last = body.messages.at(-1);
      const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
      const tag = /\[(c\d+)\]/.exec(text)?.[1] ?? 'untagged';
      const chunk = (choices, extra = {}) =>
        `data: ${JSON.stringify({ id: `chatcmpl-${tag}`, object: 'chat.completion.chunk', created: 0, model: body.model, choices, ...extra })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
      // The first piece comes after one interval, the last at `modelMs`: the call takes modelMs.
      for (let i = 0; i < deltas; i++) {
        await new Promise((resolve) => setTimeout(resolve, modelMs / deltas));
        if (res.destroyed) break;
        res.write(chunk([{ index: 0, delta: { content: `w${i} ` }, finish_reason: null }]));
      }
      res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
      res.write(
        chunk([], { usage: { prompt_tokens: 20, completion_tokens: deltas, total_tokens: 20 + deltas } }),
      );
      res.end('data: [DONE]\n\n');
      running--;
      calls.set(tag, { startedAt, endedAt: performance.now() });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Hundreds of calls at once: Node's default backlog and keep-alive are fine, but make it explicit.
  server.maxConnections = 10_000;
  // As a provider's load balancer does: idle connections are kept for a minute, so that a client
  // never sends on one the server is closing (Node's 5 s default races with undici's 4 s reuse).
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    calls,
    get peak() {
      return peak;
    },
    get running() {
      return running;
    },
    resetPeak() {
      peak = running;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(resolve);
      }),
  };
}
