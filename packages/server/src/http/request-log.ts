import type { FastifyBaseLogger, FastifyRequest } from 'fastify';

/** The part of a request target before its query string. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * What a log line says of a request. Fastify's own serializer logs the URL whole, and query
 * strings carry what must not reach a log: a WhatsApp subscription check's `hub.verify_token`,
 * an OAuth callback's `code`, search words (`?q=`), people's identities (`?identity=email:...`).
 * Every route, not only webhooks: a mistyped path (a 404) is logged too, and it is not known to be
 * a webhook's. The method, the path and the request id (on every line) are enough to follow one.
 */
function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: pathOf(request.url ?? ''),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The logger the app logs requests with: `logger`, its `req` serializer replaced by the one above. */
export function requestLogger(logger: FastifyBaseLogger): FastifyBaseLogger {
  return logger.child({}, { serializers: { req: requestForLog } });
}
