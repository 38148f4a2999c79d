import { createRedactor } from './redact.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * One log line of a run. The four named keys are the logger's own: a field of the same name is
 * dropped rather than allowed to disguise the entry.
 */
export interface LogEntry {
  level: LogLevel;
  /** ISO 8601. */
  time: string;
  msg: string;
  /** The connector key. */
  connector: string;
  [field: string]: unknown;
}

/** Receives each entry as it is logged, already redacted. */
export type LogSink = (entry: LogEntry) => void;

export type LogFields = Record<string, unknown>;

export interface ConnectorLoggerOptions {
  connectorKey: string;
  /** Entries below this level are neither kept nor written. Default `info`. */
  level?: LogLevel;
  /** Credential values to keep out of every entry, wherever they appear. */
  secrets?: readonly string[];
  /** Default: none; entries are only kept in memory. */
  sink?: LogSink;
  /** How many of the latest entries `entries()` keeps. Default 1000. */
  maxEntries?: number;
}

export interface ConnectorLogger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to each entry and shares this one's entries, level and sink. */
  child(fields: LogFields): ConnectorLogger;
  /** The latest entries, oldest first, for the run record. */
  entries(): LogEntry[];
  /** How many older entries were let go to stay within `maxEntries`. */
  dropped(): number;
  /** Hides more values from now on, e.g. credentials that rotated during the run. */
  addSecrets(secrets: readonly unknown[]): void;
}

/**
 * The logger a connector writes to during a sync or an action. Its entries are kept for the run
 * record, so that a user can see what the connector did, without the credentials it used.
 */
export function createConnectorLogger(options: ConnectorLoggerOptions): ConnectorLogger {
  const { connectorKey, level = 'info', sink, maxEntries = 1000 } = options;
  const redact = createRedactor(options.secrets);
  const kept: LogEntry[] = [];
  let dropped = 0;

  const make = (bound: LogFields): ConnectorLogger => {
    const log = (entryLevel: LogLevel, message: string, fields?: LogFields) => {
      if (SEVERITY[entryLevel] < SEVERITY[level]) return;
      const own = {
        level: entryLevel,
        time: new Date().toISOString(),
        msg: redact(String(message)) as string,
        connector: connectorKey,
      };
      // Own keys first for readable lines, and again last so that no field overrides them.
      const entry: LogEntry = Object.assign({ ...own }, redact({ ...bound, ...fields }), own);
      kept.push(entry);
      if (kept.length > maxEntries) {
        kept.shift();
        dropped++;
      }
      try {
        sink?.(entry);
      } catch {
        // A broken sink must not fail the sync it is only watching; the entry is still kept.
      }
    };
    return {
      debug: (message, fields) => log('debug', message, fields),
      info: (message, fields) => log('info', message, fields),
      warn: (message, fields) => log('warn', message, fields),
      error: (message, fields) => log('error', message, fields),
      child: (fields) => make({ ...bound, ...fields }),
      entries: () => [...kept],
      dropped: () => dropped,
      addSecrets: (secrets) => redact.addSecrets(secrets),
    };
  };

  return make({});
}
