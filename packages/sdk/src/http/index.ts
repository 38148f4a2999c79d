export {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type HttpRequestOptions,
  type HttpResponse,
  type QueryValue,
} from './client.js';
export { HTTP_ERROR_BODY_LIMIT, HttpError, parseRetryAfter, withoutQuery } from './error.js';
export { parseLinkHeader } from './link.js';
export {
  type HttpRetryInfo,
  type HttpRetryOptions,
  isTransientHttpError,
  RETRYABLE_HTTP_STATUSES,
  withHttpRetry,
} from './retry.js';
