import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient } from './client.js';
import { HttpError } from './error.js';
import { type HttpRetryInfo, isTransientHttpError, withHttpRetry } from './retry.js';
import { hang, json, reset, startTestServer, type TestServer, text } from './test/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(...replies: Parameters<typeof startTestServer>) {
  server = await startTestServer(...replies);
  return { server, http: createHttpClient({ baseUrl: server.url }) };
}

// Small delays keep the suite quick while still sleeping for real.
const fast = { baseDelayMs: 10, maxDelayMs: 50 };

describe('withHttpRetry', () => {
  it('waits out a 429 Retry-After of one second, then succeeds', async () => {
    const { server, http } = await serve(text(429, 'slow down', { 'retry-after': '1' }), json(200, { n: 1 }));

    const started = Date.now();
    const res = await withHttpRetry(() => http.get('/'), fast);
    const elapsed = Date.now() - started;

    expect(res.data).toEqual({ n: 1 });
    expect(server.requests).toHaveLength(2);
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(3000);
  });

  it('retries a 503 and reports the retry to onRetry', async () => {
    const { server, http } = await serve(text(503, 'unavailable'), json(200, 'fine'));
    const retries: HttpRetryInfo[] = [];

    const res = await withHttpRetry(() => http.get('/'), {
      ...fast,
      onRetry: (info) => void retries.push(info),
    });

    expect(res.data).toBe('fine');
    expect(server.requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]?.attempt).toBe(1);
    expect((retries[0]!.error as HttpError).status).toBe(503);
  });

  it.each([400, 401, 403, 404, 422])('does not retry a %i', async (status) => {
    const { server, http } = await serve(json(status, { error: 'no' }), json(200, {}));

    const error = await withHttpRetry(() => http.get('/'), fast).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(status);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry an error of the code itself', async () => {
    let calls = 0;
    const broken = async () => {
      calls++;
      return (undefined as unknown as { data: string }).data;
    };

    await expect(withHttpRetry(broken, fast)).rejects.toBeInstanceOf(TypeError);
    expect(calls).toBe(1);
  });

  it('retries a connection the server drops without answering', async () => {
    const { server, http } = await serve(reset, reset, json(200, { ok: 1 }));

    const res = await withHttpRetry(() => http.get('/'), fast);

    expect(res.data).toEqual({ ok: 1 });
    expect(server.requests).toHaveLength(3);
  });

  it('retries a request that timed out', async () => {
    server = await startTestServer(hang, json(200, 'late but fine'));
    const http = createHttpClient({ baseUrl: server.url, timeoutMs: 100 });

    const res = await withHttpRetry(() => http.get('/'), fast);

    expect(res.data).toBe('late but fine');
    expect(server.requests).toHaveLength(2);
  });

  it('stops after maxAttempts and throws the last error', async () => {
    const { server, http } = await serve(text(502, 'bad gateway'));

    const error = await withHttpRetry(() => http.get('/'), { ...fast, maxAttempts: 3 }).catch(
      (e: unknown) => e,
    );

    expect((error as HttpError).status).toBe(502);
    expect(server.requests).toHaveLength(3);
  });

  it('makes 5 attempts by default', async () => {
    const { server, http } = await serve(text(500, 'oops'));

    await expect(withHttpRetry(() => http.get('/'), fast)).rejects.toBeInstanceOf(HttpError);
    expect(server.requests).toHaveLength(5);
  });

  it('throws at once when Retry-After asks for more than the time left', async () => {
    const { server, http } = await serve(text(429, 'later', { 'retry-after': '30' }), json(200, {}));
    let retried = false;

    const started = Date.now();
    const error = await withHttpRetry(() => http.get('/'), {
      ...fast,
      maxElapsedMs: 5000,
      onRetry: () => {
        retried = true;
      },
    }).catch((e: unknown) => e);

    expect((error as HttpError).retryAfter).toBe(30_000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
    expect(retried).toBe(false);
  });

  it('grows the backoff exponentially up to maxDelayMs, with full jitter', async () => {
    const { http } = await serve(text(500, 'oops'));
    const delays: number[] = [];
    const onRetry = (info: HttpRetryInfo) => void delays.push(info.delayMs);

    await withHttpRetry(() => http.get('/'), {
      baseDelayMs: 10,
      maxDelayMs: 50,
      random: () => 0.5,
      onRetry,
    }).catch(() => {});
    await withHttpRetry(() => http.get('/'), {
      baseDelayMs: 10,
      maxAttempts: 3,
      random: () => 0,
      onRetry,
    }).catch(() => {});

    expect(delays).toEqual([5, 10, 20, 25, 0, 0]);
  });

  it('makes no request when the signal is already aborted', async () => {
    const { server, http } = await serve(json(200, {}));
    const reason = new Error('cancelled');

    await expect(withHttpRetry(() => http.get('/'), { signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('rejects with the reason soon after an abort during the wait', async () => {
    const { server, http } = await serve(text(503, 'down', { 'retry-after': '10' }), json(200, {}));
    const controller = new AbortController();
    const reason = new Error('run cancelled');

    const started = Date.now();
    const result = withHttpRetry(() => http.get('/', { signal: controller.signal }), {
      signal: controller.signal,
      onRetry: () => void setTimeout(() => controller.abort(reason), 100),
    });

    await expect(result).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it('does not start the wait when onRetry aborted', async () => {
    const { server, http } = await serve(text(503, 'down', { 'retry-after': '5' }), json(200, {}));
    const controller = new AbortController();
    const reason = new Error('shutting down');

    const started = Date.now();
    const result = withHttpRetry(() => http.get('/'), {
      signal: controller.signal,
      onRetry: () => controller.abort(reason),
    });

    await expect(result).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects at once on abort even when fn ignores the signal', async () => {
    const { http } = await serve(hang);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 100);

    const started = Date.now();
    await expect(withHttpRetry(() => http.get('/'), { signal: controller.signal })).rejects.toThrow('stop');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('isTransientHttpError', () => {
  it('tells passing failures from lasting ones', () => {
    const http = (status: number) =>
      new HttpError({ method: 'GET', url: 'https://x.test/', status, headers: {}, body: '' });
    const network = (code: string) =>
      new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });

    expect([408, 425, 429, 500, 502, 503, 504].map((s) => isTransientHttpError(http(s)))).not.toContain(
      false,
    );
    expect([400, 401, 403, 404, 409, 501].map((s) => isTransientHttpError(http(s)))).not.toContain(true);
    expect(isTransientHttpError(network('ECONNRESET'))).toBe(true);
    expect(isTransientHttpError(network('UND_ERR_SOCKET'))).toBe(true);
    expect(isTransientHttpError(network('ENOTFOUND'))).toBe(false);
    expect(isTransientHttpError(network('CERT_HAS_EXPIRED'))).toBe(false);
    expect(isTransientHttpError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(
      false,
    );
    expect(isTransientHttpError(new Error('boom'))).toBe(false);
  });
});
