import { HTTP_ERROR_BODY_LIMIT, HttpError, withoutQuery } from './error.js';

export type QueryValue = string | number | boolean | null | undefined;

export interface HttpClientOptions {
  /** Prefix for relative paths; an absolute URL given to `request` (say, a Link header's) is used as is. */
  baseUrl?: string;
  /** Sent with every request; a request's own headers win. */
  headers?: Record<string, string>;
  /** Per request, covering the response body too. Default 30 000 ms. */
  timeoutMs?: number;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
}

export interface HttpRequestOptions {
  /** Added to the URL's query; null and undefined are skipped, an array repeats the key. */
  query?: Record<string, QueryValue | readonly QueryValue[]>;
  /** Sent as JSON with `content-type: application/json` unless a content type is given. */
  json?: unknown;
  /** Sent as is; ignored when `json` is given. */
  body?: RequestInit['body'];
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this request. */
  timeoutMs?: number;
  /**
   * Statuses outside 2xx that are answers rather than errors, e.g. `[304]` after sending
   * `If-None-Match`: they resolve with their (usually empty) body instead of throwing `HttpError`.
   */
  acceptStatuses?: readonly number[];
}

export interface HttpResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response is JSON (undefined for an empty body), otherwise the text. */
  data: T;
}

export interface HttpClient {
  request<T = unknown>(method: string, path: string, options?: HttpRequestOptions): Promise<HttpResponse<T>>;
  get<T = unknown>(path: string, options?: HttpRequestOptions): Promise<HttpResponse<T>>;
  post<T = unknown>(path: string, options?: HttpRequestOptions): Promise<HttpResponse<T>>;
  put<T = unknown>(path: string, options?: HttpRequestOptions): Promise<HttpResponse<T>>;
  patch<T = unknown>(path: string, options?: HttpRequestOptions): Promise<HttpResponse<T>>;
  delete<T = unknown>(path: string, options?: HttpRequestOptions): Promise<HttpResponse<T>>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * A small fetch wrapper for connectors: base URL, default headers, query building, JSON both ways
 * and a timeout. A non-2xx response throws `HttpError`; a timeout throws a DOMException named
 * `TimeoutError`. It does not retry: wrap calls in `withHttpRetry` where retrying is safe.
 */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const doFetch = options.fetch ?? fetch;

  async function request<T>(
    method: string,
    path: string,
    opts: HttpRequestOptions = {},
  ): Promise<HttpResponse<T>> {
    const url = buildUrl(options.baseUrl, path, opts.query);
    const headers = new Headers(options.headers);
    for (const [name, value] of Object.entries(opts.headers ?? {})) headers.set(name, value);
    let body = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }

    const timeoutMs = opts.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const upper = method.toUpperCase();

    try {
      const response = await doFetch(url, { method: upper, headers, body, signal });
      if (!response.ok && !opts.acceptStatuses?.includes(response.status)) {
        throw new HttpError({
          method: upper,
          url,
          status: response.status,
          statusText: response.statusText,
          headers: Object.fromEntries(response.headers),
          body: await readTextCapped(response, HTTP_ERROR_BODY_LIMIT),
        });
      }
      const text = await decodeBody(response);
      return {
        status: response.status,
        headers: response.headers,
        data: parseBody(text, response, upper, url),
      };
    } catch (error) {
      if (error instanceof HttpError || opts.signal?.aborted) throw error;
      // The caller's own abort is theirs to recognise; our timeout and network failures get a message
      // naming the request, since undici's own is a bare "fetch failed".
      if (timeout.aborted) {
        throw new DOMException(
          `${upper} ${withoutQuery(url)} timed out after ${timeoutMs} ms`,
          'TimeoutError',
        );
      }
      if (error instanceof TypeError && error.message === 'fetch failed') {
        const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
        throw new TypeError(`${upper} ${withoutQuery(url)} failed${cause}`, { cause: error });
      }
      throw error;
    }
  }

  return {
    request,
    get: (path, opts) => request('GET', path, opts),
    post: (path, opts) => request('POST', path, opts),
    put: (path, opts) => request('PUT', path, opts),
    patch: (path, opts) => request('PATCH', path, opts),
    delete: (path, opts) => request('DELETE', path, opts),
  };
}

function buildUrl(baseUrl: string | undefined, path: string, query: HttpRequestOptions['query']): string {
  let href: string;
  if (/^[a-z][a-z\d+.-]*:/i.test(path)) href = path;
  else if (baseUrl) href = `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  else throw new TypeError(`relative path "${path}" needs a baseUrl`);
  // Joining by hand rather than new URL(path, base), which would drop a base path such as /api/v3.
  const url = new URL(href);
  for (const [key, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item != null) url.searchParams.append(key, String(item));
    }
  }
  return url.href;
}

/** The charset the response declares (a feed in ISO-8859-1, say); UTF-8 when none or unknown. */
async function decodeBody(response: Response): Promise<string> {
  const charset = /;\s*charset="?([\w.:-]+)"?/i.exec(response.headers.get('content-type') ?? '')?.[1];
  const bytes = await response.arrayBuffer();
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

const isJson = (contentType: string | null) =>
  contentType !== null && /^application\/([\w.+-]+\+)?json\b/i.test(contentType.trim());

function parseBody<T>(text: string, response: Response, method: string, url: string): T {
  if (!isJson(response.headers.get('content-type'))) return text as T;
  if (text.trim() === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new SyntaxError(
      `${method} ${withoutQuery(url)}: response says JSON but is not: ${text.slice(0, 200)}`,
      { cause: error },
    );
  }
}

/** Reads at most about `limit` characters, so that a huge error page is not held in memory. */
async function readTextCapped(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < limit) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
  } catch {
    // The status is what matters; a body that breaks off midway is reported as far as it came.
  }
  return text.slice(0, limit);
}
