/**
 * `log`: the logger of the run in progress. The spec's contexts carry no logger, so the run's
 * logger travels with the async call chain instead: whatever a sync or action logs, however deep,
 * lands in that run's record, with its credentials redacted.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { type ConnectorLogger, createConnectorLogger, stderrSink } from '../logging/index.js';

/**
 * One store per process, however many copies of the SDK are loaded: a connector file imported
 * through tsx gets its own copy, and its `log` must still reach the harness's run.
 */
const STORE = Symbol.for('svc.connector-sdk.run-logger');
const shared = globalThis as { [STORE]?: AsyncLocalStorage<ConnectorLogger> };
shared[STORE] ??= new AsyncLocalStorage<ConnectorLogger>();
const current = shared[STORE];
let outside: ConnectorLogger | undefined;

/** Outside any run (a script, a REPL), lines go to stderr rather than nowhere. */
const active = (): ConnectorLogger => {
  const logger = current.getStore();
  if (logger) return logger;
  outside ??= createConnectorLogger({ connectorKey: 'connector', sink: stderrSink });
  return outside;
};

type Fields = Record<string, unknown>;

export const log = {
  debug: (message: string, fields?: Fields) => active().debug(message, fields),
  info: (message: string, fields?: Fields) => active().info(message, fields),
  warn: (message: string, fields?: Fields) => active().warn(message, fields),
  error: (message: string, fields?: Fields) => active().error(message, fields),
};

/** Runs `fn` with `logger` as the one `log` writes to; what the harness and the worker call. */
export function withRunLogger<T>(logger: ConnectorLogger, fn: () => Promise<T>): Promise<T> {
  return current.run(logger, fn);
}
