import { startServer } from '@svc/server';

/** Exit codes of `svc server`: 0 after a clean shutdown, 1 when it cannot start. */
export async function serverCommand(options: {
  port: number;
  host: string;
  logLevel: string;
}): Promise<void> {
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({ ...options, env: process.env });
  } catch (error) {
    process.stderr.write(`svc server: ${(error as Error).message}\n`);
    process.exit(1);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      process.stderr.write('svc server: forced exit\n');
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`svc server: ${signal} received, finishing in-flight requests\n`);
    await server.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
