import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient } from './client.js';
import { HTTP_ERROR_BODY_LIMIT, HttpError } from './error.js';
import { isTransientHttpError } from './retry.js';
import { hang, json, startTestServer, type TestServer, text } from './test/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('createHttpClient', () => {
  it('joins the base URL with its path, adds the query and sends default and own headers', async () => {
    server = await startTestServer(json(200, { ok: true }, { 'x-ratelimit-remaining': '41' }));
    const http = createHttpClient({
      baseUrl: `${server.url}/api/v3/`,
      headers: { authorization: 'Bearer t', 'x-client': 'default' },
    });

    const res = await http.get<{ ok: boolean }>('/repos/o/r/issues?state=open', {
      query: { page: 2, labels: ['bug', 'ui'], since: undefined, assignee: null },
      headers: { 'X-Client': 'own' },
    });

    expect(res).toMatchObject({ status: 200, data: { ok: true } });
    expect(res.headers.get('x-ratelimit-remaining')).toBe('41');
    const [seen] = server.requests;
    expect(seen?.url).toBe('/api/v3/repos/o/r/issues?state=open&page=2&labels=bug&labels=ui');
    expect(seen?.headers.authorization).toBe('Bearer t');
    expect(seen?.headers['x-client']).toBe('own');
  });

  it('sends json as a JSON body and leaves an absolute URL, such as a Link next, alone', async () => {
    server = await startTestServer(json(201, { id: 7 }));
    const http = createHttpClient({ baseUrl: 'http://elsewhere.invalid' });

    const res = await http.post(`${server.url}/items?cursor=abc`, { json: { name: 'x' } });

    expect(res).toMatchObject({ status: 201, data: { id: 7 } });
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      url: '/items?cursor=abc',
      body: '{"name":"x"}',
      headers: { 'content-type': 'application/json' },
    });
  });

  it('parses vendor JSON types, returns other bodies as text and an empty JSON body as undefined', async () => {
    server = await startTestServer(
      json(200, [1, 2], { 'content-type': 'application/vnd.github+json; charset=utf-8' }),
      text(200, '<rss/>', { 'content-type': 'application/rss+xml' }),
      (_req, res) => {
        res.writeHead(204, { 'content-type': 'application/json' });
        res.end();
      },
    );
    const http = createHttpClient({ baseUrl: server.url });

    expect((await http.get('/a')).data).toEqual([1, 2]);
    expect((await http.get('/b')).data).toBe('<rss/>');
    expect((await http.delete('/c')).data).toBeUndefined();
  });

  it('decodes the charset the response declares, and resolves statuses given in acceptStatuses', async () => {
    server = await startTestServer(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml; charset=ISO-8859-1' });
        res.end(Buffer.from('<title>Caf\xe9</title>', 'latin1'));
      },
      (_req, res) => {
        res.writeHead(304, { etag: '"v1"' });
        res.end();
      },
      (_req, res) => {
        res.writeHead(304);
        res.end();
      },
    );
    const http = createHttpClient({ baseUrl: server.url });

    expect((await http.get('/feed')).data).toBe('<title>Café</title>');
    const notModified = await http.get('/feed', {
      headers: { 'if-none-match': '"v1"' },
      acceptStatuses: [304],
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe('"v1"');
    await expect(http.get('/feed')).rejects.toMatchObject({ status: 304 });
  });

  it('throws HttpError for a non-2xx answer, with status, url, headers, body and retryAfter', async () => {
    server = await startTestServer(
      json(429, { message: 'slow down' }, { 'Retry-After': '7', 'X-RateLimit-Reset': '1700000000' }),
    );
    const http = createHttpClient({ baseUrl: server.url });

    const error = await http.get('/limited', { query: { api_key: 'k-123' } }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(HttpError);
    const e = error as HttpError;
    expect(e).toMatchObject({
      name: 'HttpError',
      method: 'GET',
      status: 429,
      url: `${server.url}/limited?api_key=k-123`,
      body: '{"message":"slow down"}',
      retryAfter: 7000,
    });
    expect(e.headers['retry-after']).toBe('7');
    expect(e.headers['x-ratelimit-reset']).toBe('1700000000');
    expect(e.message).toBe(
      `GET ${server.url}/limited failed: 429 Too Many Requests: {"message":"slow down"}`,
    );
    // Keys in query strings must not travel into messages, which end up in run records.
    expect(e.message).not.toContain('k-123');
  });

  it('reads Retry-After given as an HTTP-date, and leaves retryAfter undefined without one', async () => {
    const inFiveSeconds = new Date(Date.now() + 5000).toUTCString();
    server = await startTestServer(text(503, 'down', { 'retry-after': inFiveSeconds }), text(500, 'oops'));
    const http = createHttpClient({ baseUrl: server.url });

    const dated = (await http.get('/').catch((e: unknown) => e)) as HttpError;
    const plain = (await http.get('/').catch((e: unknown) => e)) as HttpError;

    // The date has whole seconds only, so up to a second is lost.
    expect(dated.retryAfter).toBeGreaterThan(3500);
    expect(dated.retryAfter).toBeLessThanOrEqual(5000);
    expect(plain.retryAfter).toBeUndefined();
  });

  it('keeps only the start of a huge error body', async () => {
    server = await startTestServer(text(500, 'x'.repeat(5_000_000)));
    const http = createHttpClient({ baseUrl: server.url });

    const error = (await http.get('/').catch((e: unknown) => e)) as HttpError;

    expect(error.status).toBe(500);
    expect(error.body).toHaveLength(HTTP_ERROR_BODY_LIMIT);
  });

  it('gives up after timeoutMs with a TimeoutError naming the request, which counts as transient', async () => {
    server = await startTestServer(hang);
    const http = createHttpClient({ baseUrl: server.url, timeoutMs: 100 });

    const started = Date.now();
    const error = await http.get('/slow').catch((e: unknown) => e);

    expect(Date.now() - started).toBeLessThan(2000);
    expect(error).toMatchObject({
      name: 'TimeoutError',
      message: `GET ${server.url}/slow timed out after 100 ms`,
    });
    expect(isTransientHttpError(error)).toBe(true);
  });

  it("rejects with the caller's own abort reason, not a timeout", async () => {
    server = await startTestServer(hang);
    const http = createHttpClient({ baseUrl: server.url });
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    setTimeout(() => controller.abort(reason), 50);

    await expect(http.get('/slow', { signal: controller.signal })).rejects.toBe(reason);
  });

  it('names the URL when the connection fails, and the failure counts as transient', async () => {
    server = await startTestServer(json(200, {}));
    const url = server.url;
    await server.close();
    server = undefined;
    const http = createHttpClient({ baseUrl: url });

    const error = await http.get('/gone').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain(`GET ${url}/gone failed: connect ECONNREFUSED`);
    expect(isTransientHttpError(error)).toBe(true);
  });

  it('refuses a relative path without a base URL', async () => {
    await expect(createHttpClient().get('/x')).rejects.toThrow('relative path "/x" needs a baseUrl');
  });
});
