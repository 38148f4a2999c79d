import { type RunningServer, type RunningWorker, startServer, startWorker } from '@svc/server';

export interface ServerOptions {
  port: number;
  host: string;
  logLevel: string;
  /** commander's `--no-workers` makes this false. */
  workers?: boolean;
  concurrency?: number;
}

/** Starts the gateway, or exits 1 with the reason. */
export async function startOrExit(command: string, options: ServerOptions): Promise<RunningServer> {
  try {
    const { workers, concurrency, ...rest } = options;
    return await startServer({ ...rest, workers: workers === false ? false : concurrency, env: process.env });
  } catch (error) {
    process.stderr.write(`svc ${command}: ${(error as Error).message}\n`);
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
    await server.close();
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
    process.stderr.write(`svc worker: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
