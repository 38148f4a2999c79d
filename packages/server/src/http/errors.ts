import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ProblemDetail, ProblemError, problemBody, sendProblem } from './problem.js';
import type { App } from './types.js';

/** Fastify's own error codes, mapped onto our stable problem codes. */
function fromFastify(error: FastifyError, request: FastifyRequest) {
  if (error.validation) {
    const where = error.validationContext ?? 'body';
    const errors: ProblemDetail = error.validation.map((e) => ({
      path: `/${where}${e.instancePath}`,
      message: e.message ?? 'is not valid',
    }));
    const fields = errors?.map((e) => e.path).join(', ');
    return problemBody(400, 'validation_failed', `the request ${where} is not valid: ${fields}`, errors);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problemBody(
        413,
        'payload_too_large',
        `the body is larger than ${request.routeOptions.bodyLimit} bytes`,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problemBody(
        415,
        'unsupported_media_type',
        `content type "${request.headers['content-type'] ?? ''}" is not accepted here; send application/json`,
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return problemBody(400, 'malformed_json', 'the body is not valid JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problemBody(400, 'malformed_json', 'the body is empty but the content type is application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problemBody(400, 'malformed_json', 'the Content-Length header does not match the body');
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return problemBody(400, 'malformed_json', `the body is not valid JSON: ${error.message}`);
  }
  if (error.statusCode === 413) return problemBody(413, 'payload_too_large', error.message);
  if (error.statusCode === 415) return problemBody(415, 'unsupported_media_type', error.message);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return problemBody(400, 'validation_failed', error.message);
  }
  return null;
}

/** SQLSTATEs of text PostgreSQL cannot store: NUL characters, unpaired surrogates in JSON. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05', '22P02']);

/** A database that cannot be reached or went away: the request may succeed when retried. */
function isDatabaseUnavailable(error: { code?: string; message?: string }): boolean {
  const code = error.code ?? '';
  return (
    ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH'].includes(code) ||
    code.startsWith('08') || // connection exceptions
    code.startsWith('28') || // the server refused our credentials
    code.startsWith('53') || // out of connections, memory or disk
    code.startsWith('57P') || // the server is shutting down or restarting
    code === '3D000' || // the database does not exist
    (code === '55000' && /not currently accepting connections/.test(error.message ?? '')) ||
    /Connection terminated|timeout exceeded when trying to connect|Cannot use a pool after calling end/.test(
      error.message ?? '',
    )
  );
}

function fromDatabase(error: { code?: string; message?: string }) {
  if (UNSTORABLE_TEXT.has(error.code ?? '')) {
    return problemBody(
      400,
      'validation_failed',
      'text may not contain NUL characters or unpaired surrogates',
    );
  }
  if (isDatabaseUnavailable(error)) {
    return problemBody(503, 'database_unavailable', 'the database is unreachable; try again shortly');
  }
  return null;
}

export function registerErrorHandling(app: App): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ProblemError) {
      return sendProblem(reply, problemBody(error.status, error.code, error.detail, error.errors));
    }
    const known = fromFastify(error, request) ?? fromDatabase(error);
    if (known) {
      if (known.status >= 500) request.log.error({ err: error }, known.detail);
      return sendProblem(reply, known);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(
      reply,
      problemBody(500, 'internal_error', 'the server failed; the error is in its log'),
    );
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      problemBody(404, 'route_not_found', `no route ${request.method} ${request.url.split('?')[0]}`),
    ),
  );
}
