import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

/**
 * A fake API's HTTP server on 127.0.0.1, closed after the file's tests: a POST to a path ending
 * with `path` is parsed as JSON and handed to `handle`; anything else is 404 with `notFound`.
 * Answers the server's origin.
 */
export async function startFakeApi<Body>(options: {
  path: string;
  notFound: string;
  handle(request: { headers: IncomingHttpHeaders; body: Body }, res: ServerResponse): void | Promise<void>;
}): Promise<string> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || !req.url?.endsWith(options.path)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(options.notFound);
      return;
    }
    await options.handle({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) }, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
