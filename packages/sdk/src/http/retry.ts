import { HttpError } from './error.js';

export interface HttpRetryOptions {
  /** Attempts in all, the first included. Default 5. */
  maxAttempts?: number;
  /**
   * Time budget from the first attempt, in ms. Default 60 000. A retry whose wait would end past it
   * is not made: the last error is thrown at once instead.
   */
  maxElapsedMs?: number;
  /** Backoff before retry n (n from 1) is random in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))). Default 500. */
  baseDelayMs?: number;
  /** Upper bound of the backoff (a server's Retry-After may ask for more, and gets it). Default 30 000. */
  maxDelayMs?: number;
  /** Stops everything at once, also mid-attempt and mid-wait, rejecting with the signal's reason. */
  signal?: AbortSignal;
  /** Called before each wait; for logging. */
  onRetry?: (info: HttpRetryInfo) => void | Promise<void>;
  /** In [0, 1). Default Math.random. */
  random?: () => number;
}

export interface HttpRetryInfo {
  /** The attempt that just failed, from 1. */
  attempt: number;
  error: unknown;
  /** How long the wait before the next attempt is. */
  delayMs: number;
  /** Since the first attempt started. */
  elapsedMs: number;
}

export const RETRYABLE_HTTP_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

// Failures of the connection rather than of the request: the same request may well work next time.
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Whether `error` is worth retrying: an `HttpError` with 408, 425, 429, 500, 502, 503 or 504, a
 * request timeout, or a network failure. Other 4xx and errors of the code itself are not; nor are
 * network failures with a lasting cause, such as an unknown host or a bad certificate.
 */
export function isTransientHttpError(error: unknown): boolean {
  if (error instanceof HttpError) return RETRYABLE_HTTP_STATUSES.has(error.status);
  if (error instanceof Error && error.name === 'TimeoutError') return true;
  if (!(error instanceof TypeError) && !hasCode(error)) return false;

  let fetchFailed = false;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    // The first error in the chain with a code says what happened; undici wraps it in "fetch failed".
    if (typeof code === 'string') return TRANSIENT_NETWORK_CODES.has(code);
    if (e instanceof TypeError && /fetch failed/i.test(e.message)) fetchFailed = true;
  }
  return fetchFailed;
}

const hasCode = (error: unknown) =>
  error instanceof Error && typeof (error as { code?: unknown }).code === 'string';

/**
 * Runs `fn` until it succeeds, retrying transient HTTP failures (see `isTransientHttpError`) with
 * exponential backoff and full jitter. A server's `Retry-After` is a floor for the wait. Defaults:
 * 5 attempts, 60 s in all, backoff from 500 ms up to 30 s. Only wrap requests that are safe to repeat.
 */
export async function withHttpRetry<T>(
  fn: (attempt: number) => Promise<T>,
  options: HttpRetryOptions = {},
): Promise<T> {
  const {
    maxAttempts = 5,
    maxElapsedMs = 60_000,
    baseDelayMs = 500,
    maxDelayMs = 30_000,
    signal,
    onRetry,
    random = Math.random,
  } = options;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be a whole number of at least 1, not ${maxAttempts}`);
  }
  const started = Date.now();

  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await untilAborted(fn(attempt), signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (attempt >= maxAttempts || !isTransientHttpError(error)) throw error;

      const backoff = random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      const retryAfter = error instanceof HttpError ? error.retryAfter : undefined;
      const delayMs = Math.max(backoff, retryAfter ?? 0);
      const elapsedMs = Date.now() - started;
      // Sleeping past the budget only to give up afterwards would waste the caller's time.
      if (elapsedMs + delayMs > maxElapsedMs) throw error;

      await onRetry?.({ attempt, error, delayMs, elapsedMs });
      await sleep(delayMs, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      // A pending timer would keep the process alive for the rest of a long Retry-After.
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts, so that an `fn`
 * that ignores the signal does not hold the caller up.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
