import { type Serializable, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Connectors shipped with svc, installed by name (`{package: "rss"}`). */
export const BUNDLED_CONNECTORS: Record<string, string> = {
  rss: '@svc/connector-rss',
  'code-host': '@svc/connector-code-host',
};

export interface SandboxLimits {
  /** Wall time before the child is killed. */
  timeoutMs: number;
  /** The child's JavaScript heap (--max-old-space-size). */
  memoryMb: number;
}

export const INSPECT_LIMITS: SandboxLimits = { timeoutMs: 20_000, memoryMb: 256 };

/** Connector code that could not be run: the reason, written for the person installing it. */
export class ConnectorCodeError extends Error {
  override name = 'ConnectorCodeError';
}

// From the sources (tests, `npm test` on a clean clone) the child is TypeScript too, and resolves
// the workspace packages to their sources as this process does.
const fromSource = import.meta.url.endsWith('.ts');
const CHILD = fileURLToPath(new URL(fromSource ? './child.ts' : './child.js', import.meta.url));

/** The folder of the SDK package, for a connector's source to import it from anywhere. */
async function sdkFolder(): Promise<string> {
  let dir = dirname(fileURLToPath(import.meta.resolve('@svc/connector-sdk')));
  for (;;) {
    const manifest = await readFile(join(dir, 'package.json'), 'utf8').catch(() => null);
    if (manifest && JSON.parse(manifest).name === '@svc/connector-sdk') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the folder of @svc/connector-sdk');
    dir = parent;
  }
}

/**
 * A connector's source as a file the child can import: TypeScript allowed (the child runs tsx),
 * with `@svc/connector-sdk` resolvable next to it. Removed by `cleanup`.
 */
export async function materializeSource(source: string): Promise<{ file: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-connector-'));
  await mkdir(join(dir, 'node_modules', '@svc'), { recursive: true });
  await symlink(await sdkFolder(), join(dir, 'node_modules', '@svc', 'connector-sdk'), 'dir');
  const file = join(dir, 'connector.ts');
  await writeFile(file, source);
  return { file, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Runs one task in a child process of its own, with a time limit and a memory limit, and an
 * environment that holds nothing of the server's (no database URL, no keys): connector code is an
 * org's, not ours. Answers the child's one reply, or throws `ConnectorCodeError` saying what
 * stopped it (a throw at import, the time limit, the memory limit, an exit without an answer).
 */
export function runInSandbox<T>(task: Serializable, limits: SandboxLimits): Promise<T> {
  const child = spawn(
    process.execPath,
    [
      ...(fromSource ? ['--conditions=svc-source'] : []),
      // Resolved here, not from the child's working directory, which may be anywhere.
      '--import',
      import.meta.resolve('tsx'),
      `--max-old-space-size=${limits.memoryMb}`,
      CHILD,
    ],
    {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', TZ: 'UTC' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    // The tail is enough to tell a heap limit from a crash.
    stderr = (stderr + chunk).slice(-4000);
  });
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new ConnectorCodeError(
              `the connector's code ran longer than ${limits.timeoutMs / 1000} s and was stopped`,
            ),
          ),
        ),
      limits.timeoutMs,
    );
    child.once('message', (reply: { ok: boolean; error?: string } & T) =>
      finish(() => (reply.ok ? resolve(reply) : reject(new ConnectorCodeError(reply.error ?? 'failed')))),
    );
    child.once('error', (error) => finish(() => reject(error)));
    child.once('exit', (code, signal) =>
      finish(() =>
        reject(
          new ConnectorCodeError(
            /heap limit|out of memory/i.test(stderr)
              ? `the connector's code used more than ${limits.memoryMb} MB and was stopped`
              : `the connector's code exited (${signal ?? `code ${code}`}) without an answer${
                  stderr.trim() ? `: ${errorLine(stderr)}` : ''
                }`,
          ),
        ),
      ),
    );
    child.send(task);
  });
}

/** The line of a dead child's stderr that says what went wrong (not Node's version footer). */
function errorLine(stderr: string): string {
  const lines = stderr
    .trim()
    .split('\n')
    .map((line) => line.trim());
  return lines.find((line) => /(Error|ERR_)/.test(line)) ?? lines.find(Boolean) ?? '';
}
