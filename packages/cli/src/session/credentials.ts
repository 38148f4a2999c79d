import { chmod, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** One server and token the CLI can talk to. */
export interface Context {
  url: string;
  token: string;
  /** The org commands act on unless `--org` or `SVC_ORG` says otherwise. */
  org: string;
}

export interface Credentials {
  current: string | null;
  contexts: Record<string, Context>;
}

/** `$XDG_CONFIG_HOME/svc/credentials.json`, or `~/.config/svc/credentials.json`. */
export function credentialsPath(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'svc', 'credentials.json');
}

export async function readCredentials(path: string): Promise<Credentials> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { current: null, contexts: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Credentials;
    return { current: parsed.current ?? null, contexts: parsed.contexts ?? {} };
  } catch {
    throw new Error(`${path} is not valid JSON; fix it or delete it and run "svc login" again`);
  }
}

/** Written aside and renamed, mode 0600: a crash never leaves half a file, and no one else reads tokens. */
export async function writeCredentials(path: string, credentials: Credentials): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const staging = `${path}.${process.pid}.tmp`;
  await writeFile(staging, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(staging, 0o600);
  await rename(staging, path);
}

/**
 * Read, change and write the file under a lock: two `svc login`s at once (a CI matrix, two shells)
 * would otherwise each write what they read and one of the contexts would be lost.
 */
export async function updateCredentials<T>(
  path: string,
  change: (credentials: Credentials) => T,
): Promise<T> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const release = await lock(`${path}.lock`);
  try {
    const credentials = await readCredentials(path);
    const result = change(credentials);
    await writeCredentials(path, credentials);
    return result;
  } finally {
    await release();
  }
}

/** A lock left by a process that died is taken over after this long; a write takes milliseconds. */
const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 15_000;

async function lock(file: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(file).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await rm(file, { force: true });
      else if (Date.now() > deadline) {
        throw new Error(`${file} is held by another svc command; if none is running, delete it and retry`);
      } else await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
    }
  }
}
