import type { Problem } from '@svc/core';

/** A failed call: the server's problem answer when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | null,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiClient {
  url: string;
  request<T>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  /** Requests sent so far: commands print it, benchmarks and tests count it. */
  readonly requests: number;
}

/** How long one request may take before the CLI says the server does not answer. */
export const REQUEST_TIMEOUT_MS = 60_000;

/** The form of a server URL that two spellings of one server share: no trailing slash. */
export const normalizeUrl = (url: string) => url.trim().replace(/\/+$/, '');

/** A small JSON client over fetch. The token goes in the Authorization header and nowhere else. */
export function createClient(url: string, token: string, timeoutMs = REQUEST_TIMEOUT_MS): ApiClient {
  const base = normalizeUrl(url);
  let requests = 0;
  return {
    url: base,
    get requests() {
      return requests;
    },
    async request<T>(
      method: string,
      path: string,
      body?: unknown,
      headers?: Record<string, string>,
    ): Promise<T> {
      requests++;
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new ApiError(0, null, unreachable(base, method, path, error, timeoutMs));
      }
      const text = await response.text();
      const parsed = text ? safeJson(text) : null;
      if (!response.ok) {
        const problem = parsed && typeof parsed === 'object' && 'code' in parsed ? (parsed as Problem) : null;
        const detail = problem ? `${problem.detail} (${problem.code})` : `HTTP ${response.status}`;
        throw new ApiError(response.status, problem, `${method} ${path}: ${detail}`);
      }
      return parsed as T;
    },
  };
}

function unreachable(base: string, method: string, path: string, error: unknown, timeoutMs: number): string {
  if ((error as Error).name === 'TimeoutError') {
    return `${method} ${base}${path} got no answer within ${timeoutMs / 1000} s; is the server overloaded or stuck?`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  // fetch refuses the ports browsers block (6000, 6667...) before sending anything.
  if (cause?.message === 'bad port') {
    return `cannot use ${base}: fetch refuses that port as unsafe; run the server on another port (e.g. 8787)`;
  }
  return `cannot reach ${base} (${cause?.code ?? (error as Error).message}); is the server running, and is the URL right?`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
