import { type RunningServer, type RunningWorker, startServer, startWorker } from '@svc/server';

export interface ServerOptions {
  port: number;
  host: string;
  logLevel: string;
  /** commander's `--no-workers` makes this false. */
  workers?: boolean;
  concurrency?: number;
}

/** Codes of a database that cannot be reached at all (rather than one that refused something). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH']);

/**
 * Why the server did not start, for a person: the error's message, never the error object (pg's
 * carry their connection, kilobytes of it). Connecting to a name with two addresses fails as an
 * AggregateError whose own message is empty: its errors say why.
 */
export function startFailure(error: unknown, env: Record<string, string | undefined>): string {
  if (!(error instanceof Error)) return String(error);
  const { code, errors } = error as Error & { code?: string; errors?: unknown[] };
  const nested = Array.isArray(errors) ? errors.map((e) => (e instanceof Error ? e.message : String(e))) : [];
  const message = error.message || nested.join('; ') || code || error.name;
  const codes = [code, ...(Array.isArray(errors) ? errors.map((e) => (e as { code?: string }).code) : [])];
  if (env.DATABASE_URL && codes.some((c) => c !== undefined && UNREACHABLE.has(c))) {
    return `cannot reach PostgreSQL at DATABASE_URL (${message}): is it running there, and is DATABASE_URL right?`;
  }
  return message;
}

/** Starts the gateway, or exits 1 with the reason. */
export async function startOrExit(command: string, options: ServerOptions): Promise<RunningServer> {
  try {
    const { workers, concurrency, ...rest } = options;
    return await startServer({ ...rest, workers: workers === false ? false : concurrency, env: process.env });
  } catch (error) {
    process.stderr.write(`svc ${command}: ${startFailure(error, process.env)}\n`);
    process.exit(1);
  }
}

/**
 * Stops on SIGINT or SIGTERM: in-flight requests finish, then the pool and PostgreSQL close, and
 * the process exits 0. A second signal forces exit 1.
 */
export function stopOnSignal(command: string, server: RunningServer | RunningWorker): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      process.stderr.write(`svc ${command}: forced exit\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`svc ${command}: ${signal} received, finishing in-flight requests\n`);
    try {
      await server.close();
    } catch (error) {
      process.stderr.write(`svc ${command}: could not stop cleanly: ${startFailure(error, {})}\n`);
      process.exit(1);
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** `svc server`. Exit codes: 0 after a clean shutdown, 1 when it cannot start. */
export async function serverCommand(options: ServerOptions): Promise<void> {
  stopOnSignal('server', await startOrExit('server', options));
}

/**
 * `svc worker`: agent turns only, on DATABASE_URL. Exit codes: 0 after a clean shutdown (running
 * turns finished or handed back), 1 when it cannot start.
 */
export async function workerCommand(options: {
  logLevel: string;
  concurrency: number;
  metricsPort?: number;
  metricsHost?: string;
}): Promise<void> {
  try {
    stopOnSignal('worker', await startWorker({ ...options, env: process.env }));
  } catch (error) {
    process.stderr.write(`svc worker: ${startFailure(error, process.env)}\n`);
    process.exit(1);
  }
}
