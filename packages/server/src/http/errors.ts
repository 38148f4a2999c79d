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

export function registerErrorHandling(app: App): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ProblemError) {
      return sendProblem(reply, problemBody(error.status, error.code, error.detail, error.errors));
    }
    const known = fromFastify(error, request);
    if (known) return sendProblem(reply, known);
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
