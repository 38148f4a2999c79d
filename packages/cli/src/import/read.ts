/**
 * Every read of the Lobu project goes through here: a path is read only when its real path (links
 * resolved) is inside the project's real path, only when it is a regular file (a FIFO would block
 * the import forever, a device never end), and only up to a size no Lobu file comes near.
 */

import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ImportError } from './lobu-toml.js';

/** Lobu's files are kilobytes; a larger one is not a project file, and 512 MB would not fit a string. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export type Found = { path: string } | { skipped: 'outside' | 'not a file' | 'not a folder' } | null;

/** Why a path was not read, for the report. */
export const SKIPPED_WHY: Record<'outside' | 'not a file' | 'not a folder', string> = {
  outside: 'it is (or links to) a path outside the Lobu project; nothing was read from it',
  'not a file': 'it is not a regular file (a folder, FIFO or device); nothing was read from it',
  'not a folder': 'it is not a folder; nothing was read from it',
};

/** The real path of `path` (relative to the real path `root`) when inside root; null when missing. */
export async function inside(root: string, path: string): Promise<Found> {
  if (isAbsolute(path)) return { skipped: 'outside' };
  // A NUL byte, a loop or a missing file: nothing there to read.
  const real = await realpath(resolve(root, path)).catch(() => null);
  if (real === null) return null;
  const rel = relative(root, real);
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)
    ? { skipped: 'outside' }
    : { path: real };
}

/** A folder inside the project, as `inside` finds it, or why not. */
export async function folderInside(root: string, path: string): Promise<Found> {
  const found = await inside(root, path);
  if (found === null || !('path' in found)) return found;
  const info = await stat(found.path).catch(() => null);
  if (info === null) return null;
  return info.isDirectory() ? found : { skipped: 'not a folder' };
}

/**
 * The text of a regular file inside the project, or why it was not read (null: not there). Over
 * MAX_FILE_BYTES is an error naming the file: leaving it out silently would lose it unseen.
 */
export async function readInside(
  root: string,
  path: string,
): Promise<{ text: string } | { skipped: 'outside' | 'not a file' } | null> {
  const found = await inside(root, path);
  if (found === null || !('path' in found)) return found as { skipped: 'outside' } | null;
  // O_NONBLOCK: opening a FIFO returns at once (then fstat says it is none); O_NOFOLLOW: a link
  // put in place after realpath is not followed.
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
  const handle = await open(found.path, flags).catch(() => null);
  if (handle === null) return null;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { skipped: 'not a file' };
    if (info.size > MAX_FILE_BYTES) {
      throw new ImportError(
        `${relative(root, found.path)}: ${Math.ceil(info.size / 1024 / 1024)} MB, more than the ` +
          `${MAX_FILE_BYTES / 1024 / 1024} MB the import reads from one file: no Lobu file is that large; ` +
          'remove it from the project (or move it out) and import again',
      );
    }
    return { text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}
