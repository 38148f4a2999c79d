import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * An error as a log line shows it. pg attaches the connection that failed to its errors
 * (`client`: its socket, type parsers, every prepared statement's text), 4 KB of JSON in which
 * nobody finds the message; `rawPacket` is what Node's HTTP parser refused, which may hold a
 * token or a secret.
 */
function errorForLog(error: Error) {
  const {
    client: _client,
    rawPacket: _raw,
    ...rest
  } = pino.stdSerializers.err(error) as ReturnType<typeof pino.stdSerializers.err> & {
    client?: unknown;
    rawPacket?: unknown;
  };
  return rest;
}

/** The logger of `svc server` and `svc worker`: pino JSON on stdout (or `destination`). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: ['req.headers.authorization', 'req.headers.cookie'],
      serializers: { err: errorForLog },
    },
    destination,
  );
}
