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

/** One request a fake chat platform received, whatever it answered. */
export interface ReceivedRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** JSON or form fields (`{}` for an empty body); undefined when the body could not be parsed. */
  body: Record<string, unknown> | undefined;
  rawBody: string;
  /** `Date.now()` when the request's body had arrived. */
  receivedAt: number;
}

/**
 * How the next send fails: `reset` destroys the socket without an answer; otherwise the platform's
 * own error body with `status` (default 500), and for 429 its retry hint of `retryAfter` seconds
 * (default 1).
 */
export interface ScriptedFailure {
  status?: number;
  retryAfter?: number;
  reset?: boolean;
}

/** A send held by `holdNext`: `received` resolves once it arrived; nothing is answered before `release`. */
export interface HeldSend {
  received: Promise<ReceivedRequest>;
  release(): void;
}

export interface FakePlatform<Failure extends ScriptedFailure = ScriptedFailure> {
  /** The base URL a client uses in place of the platform's origin. */
  url: string;
  /** Every request, in arrival order, failed ones included. */
  requests: ReceivedRequest[];
  /** Each failure applies to the next send, in order; sends after the script are answered normally. */
  failNext(failures: Failure[]): void;
  /** Awaited after a send arrived and before it is answered (a test kills a process in there). */
  onSend: ((request: ReceivedRequest) => void | Promise<void>) | undefined;
  holdNext(): HeldSend;
}

export interface PlatformAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

function parseBody(raw: string, contentType = ''): Record<string, unknown> | undefined {
  if (raw === '') return {};
  try {
    if (contentType.startsWith('application/json')) return JSON.parse(raw);
    if (contentType.startsWith('application/x-www-form-urlencoded')) {
      return Object.fromEntries(new URLSearchParams(raw));
    }
  } catch {}
  return undefined;
}

/**
 * A chat platform's API on 127.0.0.1, closed after the file's tests. Every request is recorded;
 * a send (`isSend`) first takes the next scripted failure and hold, runs `onSend`, then is answered
 * by `fail` or `answer`. A send answered after its client went away still counts as received, as
 * it would on the real platform.
 */
export async function startFakePlatform<Failure extends ScriptedFailure>(options: {
  isSend(request: ReceivedRequest): boolean;
  fail(failure: Failure, request: ReceivedRequest): PlatformAnswer;
  answer(request: ReceivedRequest): PlatformAnswer;
}): Promise<FakePlatform<Failure>> {
  const script: Failure[] = [];
  const holds: { arrived(request: ReceivedRequest): void; released: Promise<void> }[] = [];
  const fake: FakePlatform<Failure> = {
    url: '',
    requests: [],
    failNext: (failures) => script.push(...failures),
    onSend: undefined,
    holdNext() {
      let arrived!: (request: ReceivedRequest) => void;
      let release!: () => void;
      const received = new Promise<ReceivedRequest>((resolve) => (arrived = resolve));
      holds.push({ arrived, released: new Promise((resolve) => (release = resolve)) });
      return { received, release };
    },
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? '/', 'http://fake');
    const request: ReceivedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body: parseBody(rawBody, req.headers['content-type']),
      rawBody,
      receivedAt: Date.now(),
    };
    fake.requests.push(request);
    const send = options.isSend(request);
    const failure = send ? script.shift() : undefined;
    const hold = send ? holds.shift() : undefined;
    if (send) await fake.onSend?.(request);
    hold?.arrived(request);
    await hold?.released;
    if (failure?.reset) {
      req.socket.destroy();
      return;
    }
    const answer = failure ? options.fail(failure, request) : options.answer(request);
    res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
