import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';

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

/**
 * What a route that opens a stream answers with 200: `text/event-stream`, so that a generated
 * client reads it as a stream of text and the reference shows what comes down it.
 */
export const eventStreamResponse = (description: string, example: string) => ({
  description,
  content: {
    'text/event-stream': {
      schema: z
        .string()
        .describe('Server-Sent Events: `id`, `event` and JSON `data` lines, a blank line after each'),
      example,
    },
  },
});
