import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
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
