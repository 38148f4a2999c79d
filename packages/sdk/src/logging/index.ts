export {
  type ConnectorLogger,
  type ConnectorLoggerOptions,
  createConnectorLogger,
  type LogEntry,
  type LogFields,
  type LogLevel,
  type LogSink,
} from './logger.js';
export { createRedactor, isSensitiveKey, REDACTED } from './redact.js';
export { stderrSink } from './sink.js';
