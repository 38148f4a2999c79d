/** Talking to a GitHub-REST-compatible API: headers, retries, Link pagination, errors a user can act on. */

import {
  createHttpClient,
  type HttpClient,
  HttpError,
  type HttpResponse,
  log,
  parseLinkHeader,
  type QueryValue,
  type SyncCredentials,
  withHttpRetry,
} from '@svc/connector-sdk';

// The version whose response shapes this connector reads; GitHub serves it until it is retired.
export const API_VERSION = '2022-11-28';

export interface CodeHostApi {
  http: HttpClient;
  apiUrl: string;
}

export function createApi(apiUrl: string, credentials: SyncCredentials | null): CodeHostApi {
  const token = credentials?.accessToken;
  if (!token) {
    throw new Error('no access token: connect a GitHub account to this connection (OAuth, scope "repo")');
  }
  const http = createHttpClient({
    baseUrl: apiUrl,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': API_VERSION,
      // GitHub refuses requests without a User-Agent.
      'user-agent': 'svc-connector-code-host',
    },
  });
  return { http, apiUrl };
}

/**
 * Runs one request, retrying transient failures (502, 503, timeouts, resets...) when `retry` is set.
 * Only requests that are safe to repeat retry: a POST that creates would create twice.
 */
export async function call<T>(
  send: () => Promise<HttpResponse<T>>,
  { retry }: { retry: boolean },
): Promise<HttpResponse<T>> {
  try {
    if (!retry) return await send();
    return await withHttpRetry(send, {
      onRetry: ({ attempt, delayMs, error }) =>
        log.warn('request failed, retrying', {
          attempt,
          delayMs: Math.round(delayMs),
          error: errorText(error),
        }),
    });
  } catch (error) {
    throw error instanceof HttpError ? new Error(describeHttpError(error), { cause: error }) : error;
  }
}

/**
 * Every page of a listing, following `Link: <...>; rel="next"` until there is none. Yields each page
 * as it arrives, so that the caller can emit and checkpoint before asking for the next.
 */
export async function* paginate<T>(
  api: CodeHostApi,
  path: string,
  query: Record<string, QueryValue>,
): AsyncGenerator<T[]> {
  const origin = new URL(api.apiUrl).origin;
  const visited = new Set<string>();
  let next: string | undefined = path;
  let first = true;
  while (next) {
    const url: string = next;
    const res: HttpResponse<T[]> = await call(() => api.http.get<T[]>(url, first ? { query } : {}), {
      retry: true,
    });
    if (!Array.isArray(res.data)) {
      throw new Error(`GET ${path} answered ${typeof res.data} where a JSON array of items was expected`);
    }
    yield res.data;
    first = false;
    visited.add(url);
    // A relative next link is relative to the page that gave it, not to the API's root.
    const pageUrl = /^https?:/.test(url) ? url : `${api.apiUrl.replace(/\/$/, '')}/${url.replace(/^\//, '')}`;
    next = parseLinkHeader(res.headers.get('link'), pageUrl).next;
    // The token goes with every request: a next link to another host must not receive it.
    if (next && new URL(next).origin !== origin) {
      throw new Error(
        `GET ${path}: the next page is on another host (${new URL(next).origin}); not following it`,
      );
    }
    // A server that links a page to itself would otherwise keep the sync busy forever.
    if (next && visited.has(next)) {
      log.warn('pagination links back to a page already read; stopping', { path });
      next = undefined;
    }
  }
}

/** The words of an HTTP failure that tell a user what to do, with the server's own message. */
export function describeHttpError(error: HttpError): string {
  const where = `${error.method} ${new URL(error.url).pathname}`;
  const server = serverMessage(error.body);
  const said = server ? `: ${server}` : '';
  if (error.status === 401) {
    return `the code host rejected the access token (401${said}): it is invalid, expired or revoked; reconnect the account`;
  }
  if ((error.status === 403 || error.status === 429) && error.headers['x-ratelimit-remaining'] === '0') {
    return `rate limit exhausted at ${where}${rateLimitReset(error.headers)}; the next sync after that will continue`;
  }
  if (error.status === 403) {
    return `${where} is forbidden (403${said}); the token may lack the "repo" scope or access to this repository`;
  }
  if (error.status === 404) {
    return `${where} was not found (404${said}): the repository does not exist or the token cannot see it`;
  }
  return `${where} failed (${error.status}${said})`;
}

function rateLimitReset(headers: Record<string, string>): string {
  const reset = Number(headers['x-ratelimit-reset']);
  const limit = headers['x-ratelimit-limit'];
  const of = limit ? ` (${limit} requests per window)` : '';
  if (!Number.isFinite(reset) || reset <= 0) return of;
  const minutes = Math.max(0, Math.ceil((reset * 1000 - Date.now()) / 60_000));
  return `${of}; it resets at ${new Date(reset * 1000).toISOString()} (in ${minutes} min)`;
}

/** GitHub's error document: `{ message, errors: [{ resource, field, code, message }] }`. */
function serverMessage(body: string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return body.trim().slice(0, 200) || undefined;
  }
  if (typeof doc !== 'object' || doc === null) return undefined;
  const { message, errors } = doc as { message?: unknown; errors?: unknown };
  const details = Array.isArray(errors) ? errors.map(errorDetail).filter(Boolean) : [];
  const head = typeof message === 'string' ? message : undefined;
  if (details.length === 0) return head;
  return `${head ?? 'error'} (${details.join('; ')})`;
}

function errorDetail(e: unknown): string {
  if (typeof e === 'string') return e;
  if (typeof e !== 'object' || e === null) return '';
  const { message, field, code } = e as Record<string, unknown>;
  if (typeof message === 'string') return message;
  return [field, code].filter((part) => typeof part === 'string').join(' ');
}

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
