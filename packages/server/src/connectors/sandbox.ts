import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { copyFile, mkdir, readlink, rm, symlink } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EgressPolicy, parseEgressAllow } from '../egress/policy.js';
import { bubblewrapArgs, findBubblewrap, packageClosure, SANDBOX_EGRESS_SOCKET } from './bubblewrap.js';
import { connectorsRoot } from './compile.js';
import { type ChildEgress, type EgressGrant, openChildEgress } from './egress-proxy.js';
import { ConnectorCodeError } from './errors.js';
import { encodeFrame, readFrames } from './frames.js';
import { permissionFlags } from './permissions.js';
import { sourceBuild } from './source-build.js';

/** Connectors shipped with svc, installed by name (`{package: "rss"}`). */
export const BUNDLED_CONNECTORS: Record<string, string> = {
  rss: '@svc/connector-rss',
  'code-host': '@svc/connector-code-host',
};

export interface SandboxLimits {
  /** Wall time before the child is killed. */
  timeoutMs: number;
  /**
   * The child's JavaScript heap (--max-old-space-size). The OS bounds the whole process (heap,
   * Buffers, threads) at this plus OS_HEADROOM_MB.
   */
  memoryMb: number;
}

export interface SandboxOptions extends SandboxLimits {
  /** What the child's connections may reach (SVC_EGRESS_ALLOW); absent: public addresses only. */
  egress?: EgressPolicy;
  /**
   * Posted source may run without the OS sandbox (SVC_CONNECTOR_SOURCE_INSTALLS=unsandboxed), on
   * a development machine without bubblewrap. Never on a server shared by orgs.
   */
  unsandboxedSource?: boolean;
  /** False: bundled connectors run without bubblewrap even where it works (to measure what it costs). */
  osSandbox?: boolean;
}

export const INSPECT_LIMITS: SandboxLimits = { timeoutMs: 20_000, memoryMb: 256 };

/** File descriptors a child may hold (RLIMIT_NOFILE): the ESM loader opens every module of date-fns at once. */
const MAX_FILES = 4096;

/** Node's own memory beyond the JS heap: its code, thread stacks, Buffers a connector reads into. */
export const OS_HEADROOM_MB = 256;

/**
 * Address space that RLIMIT_DATA counts but a connector cannot fill with data: Node 24 (V8 13) on a
 * CPU without memory protection keys maps V8's whole code range (512 MB) writable and executable
 * at start-up, where Node 20 and 22 reserve it inaccessible; under the bare limit it cannot start
 * ("Failed to reserve virtual memory for CodeRange"). The child runs this process's binary, so
 * this process's own writable, executable anonymous mappings tell how much (under 1 MB on Node 20).
 */
let codeMappingsMb: number | undefined;
const codeMappings = () => {
  if (codeMappingsMb === undefined) {
    let bytes = 0;
    try {
      for (const line of readFileSync('/proc/self/maps', 'utf8').split('\n')) {
        const [range, perms, , , inode] = line.split(/\s+/);
        if (perms !== 'rwxp' || inode !== '0' || !range) continue;
        const [start = 0, end = 0] = range.split('-').map((hex) => Number.parseInt(hex, 16));
        bytes += end - start;
      }
    } catch {
      // No /proc: no such mapping to allow for.
    }
    codeMappingsMb = Math.ceil(bytes / 2 ** 20);
  }
  return codeMappingsMb;
};

export { ConnectorCodeError };

// From the sources (tests, `npm test` on a clean clone) the child and what it loads are bundled to
// JavaScript first (source-build.ts), so that it runs as a built server runs it.
const fromSource = import.meta.url.endsWith('.ts');
const childCode = async () => {
  if (!fromSource) {
    return { child: fileURLToPath(new URL('./child.js', import.meta.url)), packages: {}, readable: [] };
  }
  const built = await sourceBuild();
  return { child: built.child, packages: built.packages, readable: [built.dir] };
};

/** A child process running connector code, spoken to in frames over its fd 3 (frames.ts). */
export interface Sandbox {
  send(message: unknown): void;
  /**
   * Listens to the child's messages (each with its size as sent) until the returned function is
   * called. A listener that throws ends the child, as a message it could not read.
   */
  onMessage(listener: (message: unknown, bytes: number) => void): () => void;
  /**
   * Settles once the child is gone, with what ended it: a time or memory limit, a crash, a frame
   * over the cap, or `stop` (then null). Never rejects.
   */
  readonly ended: Promise<ConnectorCodeError | null>;
  /** Kills the child now (SIGKILL): connector code gets no say in whether it stops. */
  stop(): void;
  /** Starts the time limit (a warm child's starts when it is given its task). */
  arm(timeoutMs: number): void;
  /** Lifts it, between two runs of a child that serves several. */
  disarm(): void;
  /** What the run under way may reach through the egress socket; null: nothing. */
  grant(grant: EgressGrant | null): void;
  /** Stops reading the child's messages (it waits), while the reader catches up; `resume` reads on. */
  pause(): void;
  resume(): void;
  /** Whether the child is still there to be given a task. */
  readonly alive: boolean;
  /** The compiled connector folder whose module it was given (posted source), or null. */
  readonly folder: string | null;
  /**
   * Gives the child the compiled connector in `folder` (posted source), in the child's own slot
   * (the one folder of connector code it can read), and answers the module's path as the child
   * sees it. A child takes one connector in its life; ConnectorCodeError when posted source may
   * not run here.
   */
  load(folder: string): Promise<string>;
  /** Whether it runs in the OS sandbox (bubblewrap). */
  readonly confined: boolean;
}

/**
 * Whether a child for `folder` (posted source) may start here: posted source runs only in the OS
 * sandbox, unless the operator said otherwise. Null when it may, else why not.
 */
export function sandboxRefusal(options: SandboxOptions, folder: string | null): string | null {
  if (folder === null || options.unsandboxedSource) return null;
  const { missing } = findBubblewrap();
  return missing
    ? `posted connector source runs only in the OS sandbox, and ${missing}; or run bundled connectors only`
    : null;
}

/**
 * Starts a child process for connector code, with a time limit and a memory limit, and an
 * environment that holds nothing of the server's (no database URL, no keys): connector code is an
 * org's, not ours. In bubblewrap when the host has it (always for posted source, `folder`); its
 * connections go through its own egress socket. The child exits when this process dies.
 */
export async function openSandbox(options: SandboxOptions): Promise<Sandbox> {
  const sandbox = await startChild(options);
  sandbox.arm(options.timeoutMs);
  return sandbox;
}

/** Packages a child loads, shown in the sandbox: computed once. */
let mounts: ReturnType<typeof packageClosure> | undefined;
function codeMounts() {
  if (mounts) return mounts;
  const server = realpathSync(fileURLToPath(new URL('../..', import.meta.url)));
  // From the sources, svc's own packages are in the build: only their dependencies are shown.
  const closure = packageClosure(
    server,
    // The MCP client: code-less MCP connectors' children (codeless/upstream.ts) load it.
    [...Object.values(BUNDLED_CONNECTORS), '@svc/connector-sdk', 'undici', '@modelcontextprotocol/sdk'],
    (dir) => (fromSource ? [] : [join(dir, 'dist'), join(dir, 'package.json')]),
  );
  // Of the server itself, the child's own folder only: not its routes, not its dependencies.
  const own = fromSource
    ? []
    : [fileURLToPath(new URL('.', import.meta.url)).replace(/\/+$/, ''), join(server, 'package.json')];
  mounts = { ...closure, readable: [...closure.readable, ...own] };
  return mounts;
}

/** Where a child finds the connector given to it (`load`): its slot, bound read-only. */
export const SANDBOX_SLOT = '/run/svc/connector';

async function startChild(options: SandboxOptions): Promise<Sandbox> {
  const bwrap = options.osSandbox === false ? null : findBubblewrap().path;
  // The child's own folder for the connector it will be given: empty until then, and never
  // another child's. Made here, so that a child started ahead can serve posted source too.
  const slot = join(connectorsRoot(), 'slots', randomBytes(8).toString('hex'));
  await mkdir(slot, { recursive: true, mode: 0o700 });
  const childSlot = bwrap ? SANDBOX_SLOT : slot;
  const code = await childCode();
  const egress: ChildEgress = await openChildEgress(
    join(connectorsRoot(), 'egress'),
    options.egress ?? parseEgressAllow(undefined),
  );
  const node = realpathSync(process.execPath);
  const env: Record<string, string> = {
    PATH: '/usr/bin:/bin',
    NODE_ENV: 'production',
    TZ: 'UTC',
    SVC_EGRESS_SOCKET: bwrap ? SANDBOX_EGRESS_SOCKET : egress.path,
    ...(fromSource ? { SVC_CONNECTOR_PACKAGES: JSON.stringify(code.packages) } : {}),
    ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
  };
  const nodeArgs = [
    ...permissionFlags(childSlot),
    // Stack traces name the lines of the source the author wrote, not of its compiled form.
    '--enable-source-maps',
    `--max-old-space-size=${options.memoryMb}`,
    code.child,
  ];
  const command = bwrap
    ? [
        bwrap,
        ...bubblewrapArgs(
          {
            ...codeMounts(),
            readable: [...codeMounts().readable, ...code.readable],
            slot: { path: slot, at: SANDBOX_SLOT },
            egressSocket: egress.path,
          },
          env,
        ),
        '--',
        node,
        ...nodeArgs,
      ]
    : [node, ...nodeArgs];
  // The OS bounds the whole process's memory (RLIMIT_DATA: heap, Buffers, thread stacks), not
  // only V8's heap; set by a shell, as Node cannot set a limit for its child. V8's code range is
  // allowed for beside it where Node maps it writable (codeMappings).
  const dataKb = (options.memoryMb + OS_HEADROOM_MB + codeMappings()) * 1024;
  // And a few file descriptors: its sockets to the egress socket cost the server as many.
  const limits = `ulimit -d "$0" && { ulimit -n ${MAX_FILES} 2>/dev/null || :; } && exec "$@"`;
  const child = spawn('/bin/sh', ['-c', limits, String(dataKb), ...command], {
    env,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const channel = child.stdio[3] as Socket;
  channel.on('error', () => {});
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    // The tail is enough to tell a memory limit from a crash.
    stderr = (stderr + chunk).slice(-4000);
  });
  const listeners = new Set<(message: unknown, bytes: number) => void>();
  let refusedFrame: string | null = null;
  const frames = readFrames(
    channel,
    (message, bytes) => {
      for (const listener of listeners) listener(message, bytes);
    },
    (why) => {
      refusedFrame = `the connector's process ${why} and was stopped`;
      child.kill('SIGKILL');
    },
  );
  let stopped = false;
  let timedOut = false;
  let limitMs = 0;
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<ConnectorCodeError | null>((resolve) => {
    const done = (why: ConnectorCodeError | null) => {
      clearTimeout(timer);
      frames.close();
      void egress.close();
      void rm(slot, { recursive: true, force: true });
      resolve(why);
    };
    child.once('error', (error) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      done(new ConnectorCodeError(`the connector's process could not start: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      if (refusedFrame) done(new ConnectorCodeError(refusedFrame));
      else if (timedOut) {
        done(
          new ConnectorCodeError(`the connector's code ran longer than ${limitMs / 1000} s and was stopped`),
        );
      } else if (stopped) {
        done(null);
      } else if (/heap limit/i.test(stderr)) {
        done(
          new ConnectorCodeError(
            `the connector's code used more than ${options.memoryMb} MB and was stopped`,
          ),
        );
      } else if (/out of memory|allocation failed/i.test(stderr)) {
        done(
          new ConnectorCodeError(
            `the connector's process used more than its ${options.memoryMb + OS_HEADROOM_MB} MB of memory and was stopped`,
          ),
        );
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
  let folder: string | null = null;
  return {
    get folder() {
      return folder;
    },
    async load(from) {
      if (folder === from) return join(childSlot, 'connector.mjs');
      if (folder !== null) throw new ConnectorCodeError('this child already serves another connector');
      if (!bwrap && !options.unsandboxedSource) {
        throw new ConnectorCodeError(
          sandboxRefusal({ ...options, osSandbox: true }, from) ??
            'posted connector source runs only in the OS sandbox, which this child is not in',
        );
      }
      folder = from;
      await copyFile(join(from, 'connector.mjs'), join(slot, 'connector.mjs'));
      const sdkLink = join('node_modules', '@svc', 'connector-sdk');
      await mkdir(join(slot, 'node_modules', '@svc'), { recursive: true });
      await symlink(await readlink(join(from, sdkLink)), join(slot, sdkLink), 'dir');
      return join(childSlot, 'connector.mjs');
    },
    confined: bwrap !== null,
    get alive() {
      return !exited && !channel.destroyed;
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
    grant(grant) {
      egress.grant(grant);
    },
    pause() {
      channel.pause();
    },
    resume() {
      channel.resume();
    },
    send(message) {
      if (!channel.destroyed) channel.write(encodeFrame(message));
    },
    onMessage(listener) {
      listeners.add(listener);
      // A child serves several runs in turn: each run's listener must go with its run.
      return () => {
        listeners.delete(listener);
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
 * Children for runs. One is started ahead, so that a first run waits only for its connector's
 * module, not for Node and the SDK (posted source is copied into the child's own slot). A child
 * that ended a run cleanly is kept a while for the next run of the same connection (its key): runs
 * of one connection share their credentials anyway, and a module-level cache of the connector's is
 * what its author would expect. Runs of other connections never share a child.
 */
export function createSandboxPool(options: SandboxOptions, pool: { idleMs?: number; maxIdle?: number } = {}) {
  const idleMs = pool.idleMs ?? 30_000;
  const maxIdle = pool.maxIdle ?? 8;
  let spare: Promise<Sandbox> | null = null;
  const idle = new Map<string, { sandbox: Sandbox; timer: NodeJS.Timeout }>();
  let closed = false;
  const refill = () => {
    if (closed || spare) return;
    const starting = startChild(options);
    spare = starting;
    // A spare that died (or never started) is dropped; the next take starts one of its own.
    starting.then(
      (sandbox) =>
        void sandbox.ended.then(() => {
          if (spare === starting) spare = null;
        }),
      () => {
        if (spare === starting) spare = null;
      },
    );
  };
  const evict = (key: string) => {
    const entry = idle.get(key);
    if (!entry) return;
    idle.delete(key);
    clearTimeout(entry.timer);
    entry.sandbox.stop();
  };
  return {
    /**
     * A child for one run of `key` that reads `folder` (posted source) or none (bundled), its time
     * limit running from now. ConnectorCodeError when it cannot start.
     */
    async take(key: string, folder: string | null): Promise<Sandbox> {
      let sandbox: Sandbox | null = null;
      const kept = idle.get(key);
      if (kept) {
        idle.delete(key);
        clearTimeout(kept.timer);
        if (kept.sandbox.alive && kept.sandbox.folder === folder) sandbox = kept.sandbox;
        else kept.sandbox.stop();
      }
      if (!sandbox && spare) {
        const taken = spare;
        spare = null;
        const ready = await taken.catch(() => null);
        if (ready?.alive) sandbox = ready;
        else ready?.stop();
      }
      sandbox ??= await startChild(options);
      refill();
      if (folder !== null) {
        try {
          await sandbox.load(folder);
        } catch (error) {
          sandbox.stop();
          throw error;
        }
      }
      sandbox.arm(options.timeoutMs);
      return sandbox;
    },
    /** A child whose run ended cleanly, kept for the next run of `key`. */
    release(key: string, sandbox: Sandbox): void {
      sandbox.disarm();
      sandbox.grant(null);
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
      void spare?.then(
        (sandbox) => sandbox.stop(),
        () => {},
      );
      spare = null;
      for (const key of [...idle.keys()]) evict(key);
    },
  };
}

export type SandboxPool = ReturnType<typeof createSandboxPool>;

/**
 * Runs one task in a sandbox and answers the child's one reply, or throws `ConnectorCodeError`
 * saying what stopped it (a throw at import, the time limit, the memory limit, an exit without an
 * answer). `folder`: the compiled folder of posted source the task imports.
 */
export async function runInSandbox<T>(
  task: { module?: unknown } & Record<string, unknown>,
  options: SandboxOptions,
  folder: string | null = null,
  /** What the task may reach through the egress socket (within `options.egress`); null: nothing. */
  grant: EgressGrant | null = null,
): Promise<T> {
  const sandbox = await openSandbox(options);
  sandbox.grant(grant);
  let given = task;
  try {
    // The module as the child sees it: in its own slot.
    if (folder !== null)
      given = { ...task, module: { ...(task.module as object), file: await sandbox.load(folder) } };
  } catch (error) {
    sandbox.stop();
    throw error;
  }
  const reply = new Promise<{ ok: boolean; error?: string } & T>((resolve) =>
    sandbox.onMessage((message) => resolve(message as { ok: boolean; error?: string } & T)),
  );
  sandbox.send(given);
  const outcome = await Promise.race([reply, sandbox.ended]);
  sandbox.stop();
  if (outcome === null) throw new ConnectorCodeError('the connector process was stopped');
  if (outcome instanceof ConnectorCodeError) throw outcome;
  if (typeof outcome !== 'object' || typeof outcome.ok !== 'boolean') {
    throw new ConnectorCodeError("the connector's process answered something that is not an answer");
  }
  if (!outcome.ok) throw new ConnectorCodeError(String(outcome.error ?? 'failed'));
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
