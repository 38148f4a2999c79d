/**
 * How much of an error response's body an `HttpError` keeps. Enough for an API's error document;
 * an HTML error page or a runaway body is cut, so that errors stay cheap to log and to store on runs.
 */
export const HTTP_ERROR_BODY_LIMIT = 8192;

/** A response whose status is not 2xx. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly method: string;
  readonly status: number;
  readonly url: string;
  /** Response headers, names in lower case. */
  readonly headers: Record<string, string>;
  /** Response body as text, cut at `HTTP_ERROR_BODY_LIMIT` characters. */
  readonly body: string;
  /** From `Retry-After` (seconds or HTTP-date), in milliseconds; undefined when absent or unreadable. */
  readonly retryAfter: number | undefined;

  constructor(init: {
    method: string;
    url: string;
    status: number;
    statusText?: string;
    headers: Record<string, string>;
    body: string;
  }) {
    const body = init.body.slice(0, HTTP_ERROR_BODY_LIMIT);
    const snippet = body.replace(/\s+/g, ' ').trim().slice(0, 200);
    super(
      `${init.method} ${withoutQuery(init.url)} failed: ${init.status}${init.statusText ? ` ${init.statusText}` : ''}` +
        (snippet ? `: ${snippet}` : ''),
    );
    this.method = init.method;
    this.status = init.status;
    this.url = init.url;
    this.headers = init.headers;
    this.body = body;
    this.retryAfter = parseRetryAfter(init.headers['retry-after']);
  }
}

/**
 * `Retry-After` in milliseconds: either delay-seconds or an HTTP-date (a date in the past gives 0).
 * Fractional seconds are accepted, since some servers send them despite RFC 9110.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // Date.parse would also take bare numbers such as "-1"; every HTTP-date form starts with a weekday.
  if (!/^[A-Za-z]/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Some APIs take their key in the query string, and error messages end up in run records and
 * terminals, so messages name the URL without its query; the full one stays on `HttpError.url`.
 */
export function withoutQuery(url: string): string {
  const i = url.search(/[?#]/);
  return i === -1 ? url : url.slice(0, i);
}
