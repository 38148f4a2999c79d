/** Reading a project's files: absent is null, unreadable is a problem named where the file is. */

import { readFile, stat } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';

/** A file that exists but cannot be read (a folder, no permission): reported where it is named. */
export class UnreadableError extends Error {
  constructor(readonly code: string) {
    super(code === 'EISDIR' ? 'is a folder, not a file' : `cannot be read (${code})`);
  }
}

export async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    if (code === 'ENOENT') return null;
    throw new UnreadableError(code);
  }
}

/** `readText`, with an unreadable file added to `problems` (and answered as null). */
export async function readReported(file: string, onError: (message: string) => void): Promise<string | null> {
  try {
    return await readText(file);
  } catch (error) {
    if (!(error instanceof UnreadableError)) throw error;
    onError(error.message);
    return null;
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Relative to the project, with `/`, as authors write paths in svc.toml. */
export function displayPath(dir: string, file: string): string {
  return relative(resolve(dir), file).split(sep).join('/');
}
