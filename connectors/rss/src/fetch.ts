/** One GET of the feed: conditional when the last sync kept validators, retried when it may pass. */

import { STATUS_CODES } from 'node:http';
import {
  createHttpClient,
  HttpError,
  type HttpRetryOptions,
  log,
  withHttpRetry,
  withoutQuery,
} from '@svc/connector-sdk';
import { decodingFetch } from './charset.js';

export interface FetchOptions {
  /** Per attempt, body included. */
  timeoutMs: number;
  retry: HttpRetryOptions;
  fetch?: typeof fetch;
  userAgent: string;
}

/** HTTP validators from the last response, sent back so that an unchanged feed costs a 304. */
export interface Validators {
  etag?: string;
  lastModified?: string;
}

export type Fetched = { status: 'not-modified' } | ({ status: 'ok'; body: string } & Validators);

const ACCEPT =
  'application/rss+xml, application/atom+xml, application/rdf+xml;q=0.9, application/xml;q=0.8, text/xml;q=0.8, */*;q=0.5';

/** Throws an Error whose message says what went wrong and what to do about it. */
export async function fetchFeed(
  url: string,
  validators: Validators,
  options: FetchOptions,
): Promise<Fetched> {
  const http = createHttpClient({
    timeoutMs: options.timeoutMs,
    fetch: decodingFetch(options.fetch ?? fetch),
    headers: { accept: ACCEPT, 'user-agent': options.userAgent },
  });
  const headers: Record<string, string> = {};
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;

  let attempts = 0;
  const attempt = async (): Promise<Fetched> => {
    attempts++;
    try {
      const response = await http.get<unknown>(url, { headers });
      if (typeof response.data !== 'string') {
        throw new Error(`the feed at ${withoutQuery(url)} is JSON, not an RSS or Atom feed`);
      }
      return {
        status: 'ok',
        body: response.data,
        ...optional('etag', response.headers.get('etag')),
        ...optional('lastModified', response.headers.get('last-modified')),
      };
    } catch (error) {
      // The client throws for every status outside 2xx, 304 included.
      if (error instanceof HttpError && error.status === 304) return { status: 'not-modified' };
      throw error;
    }
  };

  try {
    return await withHttpRetry(attempt, {
      ...options.retry,
      onRetry: ({ attempt, error, delayMs }) =>
        log.warn('fetching the feed failed; trying again', {
          url: withoutQuery(url),
          attempt,
          delay_ms: Math.round(delayMs),
          error: error instanceof Error ? error.message : String(error),
        }),
    });
  } catch (error) {
    throw new Error(failureMessage(error, url, attempts, options.timeoutMs), { cause: error });
  }
}

function optional<K extends string>(key: K, value: string | null): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}

const times = (attempts: number) => (attempts === 1 ? '' : ` (${attempts} attempts)`);

function statusMessage(error: HttpError, url: string, attempts: number): string {
  const status = `${error.status}${STATUS_CODES[error.status] ? ` ${STATUS_CODES[error.status]}` : ''}`;
  const answered = `the feed at ${withoutQuery(url)} answered ${status}${times(attempts)}`;
  if (error.status === 404 || error.status === 410)
    return `${answered}: there is no feed at that address; check the url`;
  if (error.status === 401 || error.status === 403) {
    return `${answered}: the server wants a login or refuses this client, and the rss connector reads public feeds only`;
  }
  if (error.status === 429)
    return `${answered}: the server asks to be polled less often; sync this feed less often`;
  if (error.status >= 500) return `${answered}: the server is failing; the next sync tries again`;
  return answered;
}

function failureMessage(error: unknown, url: string, attempts: number, timeoutMs: number): string {
  if (error instanceof HttpError) return statusMessage(error, url, attempts);
  if (error instanceof Error && error.name === 'TimeoutError') {
    return (
      `the feed at ${withoutQuery(url)} did not answer within ${timeoutMs / 1000} s${times(attempts)}: ` +
      'the server is slow or unreachable; the next sync tries again'
    );
  }
  // The client's own wording for a network failure: "GET <url> failed: <cause>".
  if (error instanceof TypeError && /^[A-Z]+ \S+ failed\b/.test(error.message)) {
    return `could not fetch the feed: ${error.message}${times(attempts)}; check the url's host name and that the server is up`;
  }
  return error instanceof Error ? error.message : String(error);
}
