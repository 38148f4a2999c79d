import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { testSourceInstalls } from './harness.js';

const root = new URL('../../../', import.meta.url).pathname;

/**
 * The `svc` command as a process of its own, run from the sources as a clean clone has them (no
 * dist/): for tests that must kill it for real. Its stdout and stderr are collected in `output()`.
 */
export function spawnSvc(
  args: string[],
  env: Record<string, string | undefined>,
): ChildProcess & { output(): string } {
  const child = spawn(
    process.execPath,
    ['--conditions=svc-source', '--import', 'tsx', join(root, 'packages/cli/src/bin.ts'), ...args],
    { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  // Drained, so that a chatty process never blocks on a full pipe.
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return Object.assign(child, { output: () => output });
}

/** `svc worker` running connector runs only in earnest (one turn slot), on `databaseUrl` with `key`. */
export function spawnRunWorker(options: {
  databaseUrl: string;
  key: Buffer;
  leaseMs: number;
}): ChildProcess & { output(): string } {
  return spawnSvc(['worker', '--concurrency', '1'], {
    DATABASE_URL: options.databaseUrl,
    SVC_ENCRYPTION_KEY: options.key.toString('hex'),
    SVC_RUN_LEASE_MS: String(options.leaseMs),
    SVC_RUN_CONCURRENCY: '4',
    // Posted source as the test server installs it: unsandboxed where bubblewrap is missing.
    SVC_CONNECTOR_SOURCE_INSTALLS: testSourceInstalls(),
    SVC_LOG_LEVEL: 'warn',
  });
}
