import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * Takes the answer over from Fastify and opens it as a Server-Sent Events stream: the headers, and
 * the reconnect delay a client's EventSource uses when the stream drops.
 */
export function openEventStream(reply: FastifyReply): ServerResponse {
  const res = reply.raw;
  reply.hijack();
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // nginx and friends would otherwise hold the stream back in their buffers.
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  res.write('retry: 1000\n\n');
  return res;
}
