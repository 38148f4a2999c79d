import { createServer } from 'node:http';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RecordingProxy {
  url: string;
  requests: RecordedRequest[];
  /**
   * Requests that change something: every method but GET, except the schema `list` operation and
   * the settings check (`POST .../config/check`, which writes nothing).
   */
  writes(): RecordedRequest[];
  /** Makes the Nth write from now answer 500 with a problem; 0 turns it off. */
  failWriteAt(n: number): void;
  close(): Promise<void>;
}

const isWrite = (r: RecordedRequest) =>
  r.method !== 'GET' && !/"action":"list"/.test(r.body) && !/\/config\/check(\?|$)/.test(r.url);

/** A real HTTP server in front of svc: it records every request the CLI sends, and can fail one. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  let failAt = 0;
  let writesSinceArmed = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    };
    requests.push(recorded);
    if (isWrite(recorded) && failAt > 0 && ++writesSinceArmed === failAt) {
      res.writeHead(500, { 'content-type': 'application/problem+json' });
      res.end(
        JSON.stringify({
          type: 'about:blank',
          title: 'x',
          status: 500,
          detail: 'disk full',
          code: 'internal_error',
        }),
      );
      return;
    }
    const answer = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/json',
    });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    requests,
    writes: () => requests.filter(isWrite),
    failWriteAt(n) {
      failAt = n;
      writesSinceArmed = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
