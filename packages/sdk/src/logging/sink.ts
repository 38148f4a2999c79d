import type { LogSink } from './logger.js';

/** Writes each entry to stderr as one line of JSON, where a worker's log collector picks it up. */
export const stderrSink: LogSink = (entry) => {
  process.stderr.write(`${JSON.stringify(entry)}\n`);
};
