import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Reply = (req: IncomingMessage, res: ServerResponse) => void;

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that answers the nth request with `replies[n]`, and every later
 * one with the last reply.
 */
export async function startTestServer(...replies: Reply[]): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const index = requests.length;
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    });
    const reply = replies[Math.min(index, replies.length - 1)];
    reply?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging replies keep their sockets open; close() alone would wait for them.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

export const text =
  (status: number, body: string, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  };

/** Drops the connection without answering, as a crashing proxy or a load balancer would. */
export const reset: Reply = (req) => req.socket.destroy();

/** Never answers. */
export const hang: Reply = () => {};
