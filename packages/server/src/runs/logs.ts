import type { LogEntry } from '@svc/connector-sdk';
import type { PoolClient } from 'pg';
import { redact } from '../connectors/codeless/redact.js';

/** Lines kept per run: the latest ones; a chatty connector cannot fill the database. */
export const RUN_LOG_LINES = 1000;
const MESSAGE_CHARS = 2000;
const FIELDS_CHARS = 4000;

/**
 * A run's log lines on their way to `run_logs`: gathered as the child sends them, written with the
 * run's next fenced write (a worker whose lease lapsed writes none). Bounded in memory as on disk.
 */
export function createLogBuffer(secrets: string[]) {
  let pending: LogEntry[] = [];
  let dropped = 0;
  // The child redacts too, but it is connector code: the server does not take its word for it.
  const hide = (text: string) =>
    secrets.reduce((t, s) => (s.length >= 4 ? t.replaceAll(s, '[redacted]') : t), text);
  return {
    /** `text` with every secret of the run replaced: for what the run keeps besides its log (its errorMessage). */
    hide,
    /**
     * Every string value in `value` with the run's secrets (and their URL-encoded forms) replaced: an action's output, which
     * read tokens and the model see (an API echoing its key in a `next` link, a tool saying who
     * you are by your token).
     */
    hideAll: (value: unknown) => redact(value, secrets),
    add(entry: LogEntry) {
      pending.push(entry);
      if (pending.length > RUN_LOG_LINES) {
        pending.shift();
        dropped++;
      }
    },
    get size() {
      return pending.length;
    },
    /** Writes what is pending, in the caller's transaction that holds the run's row. */
    async flush(client: PoolClient, runId: string): Promise<void> {
      if (pending.length === 0 && dropped === 0) return;
      const lines = pending.map(({ level, time, msg, connector: _c, ...fields }) => ({
        level: ['debug', 'info', 'warn', 'error'].includes(level) ? level : 'info',
        time: Number.isNaN(Date.parse(time)) ? new Date().toISOString() : time,
        msg: hide(String(msg)).slice(0, MESSAGE_CHARS),
        fields: Object.keys(fields).length > 0 ? boundedFields(hide(JSON.stringify(fields))) : null,
      }));
      if (dropped > 0) {
        lines.unshift({
          level: 'warn',
          time: new Date().toISOString(),
          msg: `${dropped} earlier log lines were let go (the run logged faster than they could be kept)`,
          fields: null,
        });
      }
      pending = [];
      dropped = 0;
      await client.query(
        `WITH run AS (UPDATE runs SET log_lines = log_lines + $3 WHERE id = $1 RETURNING log_lines - $3 AS first)
         INSERT INTO run_logs (run_id, seq, level, time, msg, fields)
         SELECT $1, run.first + x.n, x.level, x.time, x.msg, x.fields
           FROM run, ROWS FROM (jsonb_to_recordset($2::jsonb) AS (level text, time timestamptz, msg text, fields jsonb))
                WITH ORDINALITY AS x(level, time, msg, fields, n)`,
        [runId, JSON.stringify(lines), lines.length],
      );
      await client.query(
        'DELETE FROM run_logs WHERE run_id = $1 AND seq <= (SELECT log_lines FROM runs WHERE id = $1) - $2',
        [runId, RUN_LOG_LINES],
      );
    },
  };
}

export type LogBuffer = ReturnType<typeof createLogBuffer>;

/** A line the server adds to a run's log (a rejected item, a stop), in the SDK's shape. */
export const serverLine = (
  level: LogEntry['level'],
  msg: string,
  fields: Record<string, unknown> = {},
): LogEntry => ({
  level,
  time: new Date().toISOString(),
  msg,
  connector: 'svc',
  ...fields,
});

function boundedFields(json: string): unknown {
  return json.length <= FIELDS_CHARS ? JSON.parse(json) : { truncated: json.slice(0, FIELDS_CHARS) };
}

/**
 * The first line of a run made through the API: who asked, since the Run record has no creator
 * field. Written in the caller's transaction that made the run.
 */
export async function logRequester(
  client: PoolClient,
  runId: string,
  msg: string,
  fields: Record<string, unknown>,
): Promise<void> {
  const log = createLogBuffer([]);
  log.add(serverLine('info', msg, fields));
  await log.flush(client, runId);
}
