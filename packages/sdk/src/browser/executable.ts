import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { promisify } from 'node:util';

/** Debian's package; we drive the system browser and never download one. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_PATH_ENV = 'SVC_CHROMIUM_PATH';

export class ChromiumNotFoundError extends Error {
  constructor(readonly path: string) {
    super(
      `Chromium not found at ${path}. Install it with \`apt-get install chromium\`, ` +
        `or point ${CHROMIUM_PATH_ENV} (or the executablePath option) at a Chromium or Chrome binary.`,
    );
    this.name = 'ChromiumNotFoundError';
  }
}

/** The option wins over the environment, which wins over the default. */
export const chromiumPath = (explicit?: string, env: NodeJS.ProcessEnv = process.env): string =>
  explicit || env[CHROMIUM_PATH_ENV] || DEFAULT_CHROMIUM_PATH;

/** Checked up front: playwright's own error for a missing binary suggests downloading one. */
export async function resolveChromiumPath(
  explicit?: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const path = chromiumPath(explicit, env);
  try {
    await access(path, constants.X_OK);
  } catch {
    throw new ChromiumNotFoundError(path);
  }
  return path;
}

/** `156.0.8078.79` from `Chromium 156.0.8078.79 built on Debian GNU/Linux 12`, or undefined. */
export const parseChromiumVersion = (output: string): string | undefined =>
  /\b(\d+\.\d+\.\d+\.\d+)\b/.exec(output)?.[1];

/** Asks the binary itself, for when the version is needed before a browser is running. */
export async function chromiumVersion(executablePath: string): Promise<string> {
  const { stdout } = await promisify(execFile)(executablePath, ['--version'], { timeout: 10_000 });
  const version = parseChromiumVersion(stdout);
  if (!version) throw new Error(`Could not read a version from \`${executablePath} --version\`: ${stdout}`);
  return version;
}
