/** A real HTTP server on 127.0.0.1 standing in for a site that publishes feeds. */

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';

export type Reply = (req: IncomingMessage, res: ServerResponse) => void;

export interface SeenRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

export interface FeedServer {
  /** The base URL, without a trailing slash. */
  url: string;
  requests: SeenRequest[];
  /** From now on, the nth request to `path` gets `replies[n]`, and later ones the last reply. */
  route(path: string, ...replies: Reply[]): void;
  close(): Promise<void>;
}

export async function startFeedServer(): Promise<FeedServer> {
  const routes = new Map<string, { replies: Reply[]; served: number }>();
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').replace(/\?.*$/, '');
    requests.push({ path, headers: req.headers });
    const route = routes.get(path);
    if (!route) return status(404, 'no such page')(req, res);
    const reply = route.replies[Math.min(route.served++, route.replies.length - 1)];
    reply?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route: (path, ...replies) => void routes.set(path, { replies, served: 0 }),
    close: () =>
      new Promise<void>((resolve) => {
        // A hanging reply holds its socket open; close() alone would wait for it.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A document, read anew for each request so that a test can add items between syncs. */
export const document =
  (body: () => string | Buffer, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8', ...headers });
    res.end(body());
  };

export const status =
  (code: number, body = '', headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(code, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  };

/**
 * A server that honours conditional requests: 304 when the client already holds this version,
 * which changes whenever the body does.
 */
export const conditional =
  (body: () => string, lastModified: string): Reply =>
  (req, res) => {
    const text = body();
    const etag = `"${text.length}-${hash(text)}"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag });
      return void res.end();
    }
    document(() => text, { etag, 'last-modified': lastModified })(req, res);
  };

/** Never answers. */
export const hang: Reply = () => {};

function hash(text: string): number {
  let h = 0;
  for (const char of text) h = (h * 31 + (char.codePointAt(0) ?? 0)) | 0;
  return h >>> 0;
}
