import { maxHeaderSize, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
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
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problemBody(400, 'malformed_request', 'the Content-Length header does not match the body');
  }
  if (error.statusCode === 413) return problemBody(413, 'payload_too_large', error.message);
  if (error.statusCode === 415) return problemBody(415, 'unsupported_media_type', error.message);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return problemBody(400, 'validation_failed', error.message);
  }
  return null;
}

/** SQLSTATEs of text PostgreSQL cannot store: NUL characters, unpaired surrogates in JSON. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/**
 * PostgreSQL's data exceptions (SQLSTATE class 22: a number or date out of range, text that is no
 * number, a NUL): a value of the request that no check stopped on its way to the database.
 */
const isDataException = (error: { code?: unknown }) =>
  typeof error.code === 'string' && /^22[0-9A-Z]{3}$/.test(error.code);

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
  if (isDataException(error)) {
    return problemBody(400, 'validation_failed', 'a value in the request is out of range or not of its type');
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
      // The last line of defence: the client gets its 400, the log names the check that is missing.
      if (isDataException(error)) {
        request.log.warn({ err: error }, 'a data exception answered 400: the request was not checked enough');
      }
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

/** What Node's HTTP parser refused, before any route could run. */
function clientErrorProblem(error: ConnectionError & { reason?: string }) {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return problemBody(
        431,
        'request_header_too_large',
        `the request line and headers are larger than ${maxHeaderSize} bytes; shorten the URL or the headers`,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return problemBody(408, 'request_timeout', 'the request did not arrive in time; send it again');
    case 'HPE_INVALID_METHOD':
      return problemBody(
        400,
        'malformed_request',
        'the connection carried bytes that do not start an HTTP request; a Content-Length shorter than its body does this',
      );
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return problemBody(
        400,
        'malformed_request',
        'the Content-Length header is not a number, is repeated, or comes with Transfer-Encoding; send exactly one',
      );
    default:
      return problemBody(
        400,
        'malformed_request',
        `the request is not valid HTTP: ${error.reason ?? error.code}`,
      );
  }
}

/** Node reports every further chunk of a broken stream again: each socket is answered once. */
const answered = new WeakSet<Socket>();

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses (headers too large, bytes that are
 * not HTTP) gets a problem answer too, then the connection closes. A response still being made for
 * an earlier request on the connection is let through first, so that it is not cut off or mistaken
 * for this answer.
 */
export function answerClientError(
  this: { log: FastifyBaseLogger },
  error: ConnectionError,
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
  answered.add(socket);
  // The code only: Node puts the request's raw bytes on the error (`rawPacket`), headers and body
  // included, and those may hold a bearer token or a secret's value.
  this.log.debug({ code: error.code }, 'refused a request the HTTP parser could not read');
  const problem = clientErrorProblem(error);
  const body = JSON.stringify(problem);
  const answer = () => {
    if (!socket.writable) return socket.destroy();
    const head = [
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
      'Content-Type: application/problem+json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      'X-Content-Type-Options: nosniff',
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
  };
  // The same field Node's own clientError handling looks at.
  const pending = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (pending && !pending.writableFinished) {
    pending.once('finish', answer);
    pending.once('close', () => {
      if (!pending.writableFinished) socket.destroy();
    });
    return;
  }
  answer();
}
