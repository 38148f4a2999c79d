import { type Serializable, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConnectorCodeError } from './errors.js';
import { permissionFlags } from './permissions.js';

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

export { ConnectorCodeError };

// From the sources (tests, `npm test` on a clean clone) the child is TypeScript too, and resolves
// the workspace packages to their sources as this process does.
const fromSource = import.meta.url.endsWith('.ts');
const CHILD = fileURLToPath(new URL(fromSource ? './child.ts' : './child.js', import.meta.url));

/** A child process running connector code, spoken to over IPC. */
export interface Sandbox {
  send(message: Serializable): void;
  /** Listens to the child's messages until the returned function is called. */
  onMessage(listener: (message: unknown) => void): () => void;
  /**
   * Settles once the child is gone, with what ended it: a time or memory limit, a crash, or `stop`
   * (then null). Never rejects.
   */
  readonly ended: Promise<ConnectorCodeError | null>;
  /** Kills the child now (SIGKILL): connector code gets no say in whether it stops. */
  stop(): void;
  /** Starts the time limit (a warm child's starts when it is given its task). */
  arm(timeoutMs: number): void;
  /** Lifts it, between two runs of a child that serves several. */
  disarm(): void;
  /** Whether the child is still there to be given a task. */
  readonly alive: boolean;
}

/**
 * Starts a child process for connector code, with a time limit and a memory limit, and an
 * environment that holds nothing of the server's (no database URL, no keys): connector code is an
 * org's, not ours. The child exits when this process dies (its IPC channel closes).
 */
export function openSandbox(limits: SandboxLimits): Sandbox {
  const sandbox = startChild(limits.memoryMb);
  sandbox.arm(limits.timeoutMs);
  return sandbox;
}

function startChild(memoryMb: number): Sandbox {
  const child = spawn(
    process.execPath,
    [
      // Built, the child and everything it imports is JavaScript. From the sources (tests) the child
      // and the workspace packages are TypeScript: tsx, resolved here, not from the child's working
      // directory, which may be anywhere.
      ...(fromSource ? ['--conditions=svc-source', '--import', import.meta.resolve('tsx')] : []),
      ...permissionFlags(fromSource),
      // Stack traces name the lines of the source the author wrote, not of its compiled form.
      '--enable-source-maps',
      `--max-old-space-size=${memoryMb}`,
      CHILD,
    ],
    {
      // TMPDIR, so that the child's temporary directory is the one its permissions name.
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        NODE_ENV: 'production',
        TZ: 'UTC',
        ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    // The tail is enough to tell a heap limit from a crash.
    stderr = (stderr + chunk).slice(-4000);
  });
  let stopped = false;
  let timedOut = false;
  let limitMs = 0;
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<ConnectorCodeError | null>((resolve) => {
    const done = (why: ConnectorCodeError | null) => {
      clearTimeout(timer);
      resolve(why);
    };
    child.once('error', (error) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      done(new ConnectorCodeError(`the connector's process could not start: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      if (timedOut) {
        done(
          new ConnectorCodeError(`the connector's code ran longer than ${limitMs / 1000} s and was stopped`),
        );
      } else if (stopped) {
        done(null);
      } else if (/heap limit|out of memory/i.test(stderr)) {
        done(new ConnectorCodeError(`the connector's code used more than ${memoryMb} MB and was stopped`));
      } else {
        done(
          new ConnectorCodeError(
            `the connector's code exited (${signal ?? `code ${code}`}) without an answer${
              stderr.trim() ? `: ${errorLine(stderr)}` : ''
            }`,
          ),
        );
      }
    });
  });
  let exited = false;
  void ended.then(() => {
    exited = true;
  });
  return {
    get alive() {
      return !exited && child.connected;
    },
    arm(timeoutMs) {
      limitMs = timeoutMs;
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, timeoutMs);
    },
    disarm() {
      clearTimeout(timer);
    },
    send(message) {
      if (child.connected) child.send(message);
    },
    onMessage(listener) {
      child.on('message', listener);
      // A child serves several runs in turn: each run's listener must go with its run.
      return () => {
        child.off('message', listener);
      };
    },
    ended,
    stop() {
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * Children for runs. One is started ahead, so that a first run waits only for its connector's own
 * module, not for Node, the TypeScript loader and the SDK. A child that ended a run cleanly is kept
 * a while for the next run of the same connection (its key): runs of one connection share their
 * credentials anyway, and a module-level cache of the connector's is what its author would expect.
 * Runs of other connections never share a child.
 */
export function createSandboxPool(
  limits: SandboxLimits,
  options: { idleMs?: number; maxIdle?: number } = {},
) {
  const idleMs = options.idleMs ?? 30_000;
  const maxIdle = options.maxIdle ?? 8;
  let spare: Sandbox | null = null;
  const idle = new Map<string, { sandbox: Sandbox; timer: NodeJS.Timeout }>();
  let closed = false;
  const refill = () => {
    if (!closed && !spare?.alive) spare = startChild(limits.memoryMb);
  };
  const evict = (key: string) => {
    const entry = idle.get(key);
    if (!entry) return;
    idle.delete(key);
    clearTimeout(entry.timer);
    entry.sandbox.stop();
  };
  return {
    /** A child for one run of `key`, its time limit running from now. */
    take(key: string): Sandbox {
      let sandbox: Sandbox | null = null;
      const kept = idle.get(key);
      if (kept) {
        idle.delete(key);
        clearTimeout(kept.timer);
        if (kept.sandbox.alive) sandbox = kept.sandbox;
        else kept.sandbox.stop();
      }
      if (!sandbox && spare?.alive) {
        sandbox = spare;
        spare = null;
      }
      sandbox ??= startChild(limits.memoryMb);
      sandbox.arm(limits.timeoutMs);
      refill();
      return sandbox;
    },
    /** A child whose run ended cleanly, kept for the next run of `key`. */
    release(key: string, sandbox: Sandbox): void {
      sandbox.disarm();
      if (closed || !sandbox.alive) {
        sandbox.stop();
        return;
      }
      evict(key);
      if (idle.size >= maxIdle) evict(idle.keys().next().value as string);
      const timer = setTimeout(() => evict(key), idleMs);
      timer.unref();
      idle.set(key, { sandbox, timer });
    },
    /** Starts the spare child. */
    warm: refill,
    close() {
      closed = true;
      spare?.stop();
      for (const key of [...idle.keys()]) evict(key);
    },
  };
}

export type SandboxPool = ReturnType<typeof createSandboxPool>;

/**
 * Runs one task in a sandbox and answers the child's one reply, or throws `ConnectorCodeError`
 * saying what stopped it (a throw at import, the time limit, the memory limit, an exit without an
 * answer).
 */
export async function runInSandbox<T>(task: Serializable, limits: SandboxLimits): Promise<T> {
  const sandbox = openSandbox(limits);
  const reply = new Promise<{ ok: boolean; error?: string } & T>((resolve) =>
    sandbox.onMessage((message) => resolve(message as { ok: boolean; error?: string } & T)),
  );
  sandbox.send(task);
  const outcome = await Promise.race([reply, sandbox.ended]);
  sandbox.stop();
  if (outcome === null) throw new ConnectorCodeError('the connector process was stopped');
  if (outcome instanceof ConnectorCodeError) throw outcome;
  if (!outcome.ok) throw new ConnectorCodeError(outcome.error ?? 'failed');
  return outcome;
}

/** The line of a dead child's stderr that says what went wrong (not Node's version footer). */
function errorLine(stderr: string): string {
  const lines = stderr
    .trim()
    .split('\n')
    .map((line) => line.trim());
  return lines.find((line) => /(Error|ERR_)/.test(line)) ?? lines.find(Boolean) ?? '';
}
