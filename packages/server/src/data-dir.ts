import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export class DataDirInUseError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `another svc server (pid ${pid}) is using the data directory ${dir}; stop it first, or start this one with another SVC_DATA_DIR`,
    );
    this.name = 'DataDirInUseError';
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Tells this process's locks from a dead one's that had the same pid (a restarted container). */
const RUN_ID = randomBytes(8).toString('hex');

/**
 * Takes `<dir>/server.lock` for this process. A lock left by a process that died is taken over; a
 * live one is an error, since two servers on one embedded cluster would corrupt it.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const absolute = resolve(dir);
  await mkdir(absolute, { recursive: true });
  const lockFile = join(absolute, 'server.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockFile, 'wx', 0o600);
      await handle.writeFile(`${process.pid} ${RUN_ID}\n`);
      await handle.close();
      return () => rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const [pidText, runId] = (await readFile(lockFile, 'utf8').catch(() => '')).trim().split(' ');
      const pid = Number.parseInt(pidText ?? '', 10);
      const held = pid === process.pid ? runId === RUN_ID : Number.isInteger(pid) && isAlive(pid);
      if (held) throw new DataDirInUseError(absolute, pid);
      await rm(lockFile, { force: true });
    }
  }
  throw new Error(`could not lock ${lockFile}`);
}

/**
 * Returns the value of `envValue` when set; otherwise reads `<dir>/<file>`, creating it (mode 0600)
 * with a fresh random value on first use. `created` tells the caller to show the value once.
 */
export async function readOrCreateSecret(
  dir: string,
  file: string,
  envValue: string | undefined,
  bytes = 24,
): Promise<{ value: string; created: boolean; source: 'env' | 'file' }> {
  if (envValue !== undefined && envValue !== '') return { value: envValue, created: false, source: 'env' };
  const path = join(dir, file);
  try {
    return { value: (await readFile(path, 'utf8')).trim(), created: false, source: 'file' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const value = randomBytes(bytes).toString('base64url');
    await mkdir(dir, { recursive: true });
    await open(path, 'wx', 0o600).then(async (h) => {
      await h.writeFile(`${value}\n`);
      await h.close();
    });
    return { value, created: true, source: 'file' };
  }
}
