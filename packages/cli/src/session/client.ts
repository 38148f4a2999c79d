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
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Requests sent so far: commands print it, benchmarks and tests count it. */
  readonly requests: number;
}

/** A small JSON client over fetch. The token goes in the Authorization header and nowhere else. */
export function createClient(url: string, token: string): ApiClient {
  const base = url.replace(/\/+$/, '');
  let requests = 0;
  return {
    url: base,
    get requests() {
      return requests;
    },
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      requests++;
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        throw new ApiError(
          0,
          null,
          `cannot reach ${base} (${cause}); is the server running, and is the URL right?`,
        );
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

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
