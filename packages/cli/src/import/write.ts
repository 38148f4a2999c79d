/**
 * Writes the converted files into `--out` and nowhere else: a non-empty folder only with `--force`
 * (which overwrites the files the import writes and leaves the others), never the Lobu project, and
 * never through a link. Every check is made before the first write, so a refusal writes nothing.
 */

import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ImportError } from './lobu-toml.js';

/** Open for writing without following a link at the last component (one put there after the checks). */
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

export async function writeFiles(
  lobuDir: string,
  out: string,
  files: Map<string, string>,
  force: boolean,
): Promise<string[]> {
  const target = await outFolder(lobuDir, out);
  const present = await readdir(target).catch(() => []);
  if (present.length > 0 && !force) {
    throw new ImportError(
      `--out ${out} is not empty: choose another folder, or pass --force to overwrite the files the import writes (others are left as they are)`,
    );
  }
  const folders = await planWrites(target, out, [...files.keys()]);
  const written: string[] = [];
  try {
    await mkdir(target, { recursive: true });
    for (const folder of folders) await mkdir(join(target, folder));
    for (const [path, content] of files) {
      const handle = await open(join(target, path), WRITE_FLAGS, 0o644);
      try {
        await handle.writeFile(content);
      } finally {
        await handle.close();
      }
      written.push(path);
    }
  } catch (error) {
    // Every check ran before the first write; what fails now is the disk (full, read-only, a
    // permission): say what is already there rather than claim nothing was written.
    throw new PartialWriteError(out, written, (error as Error).message);
  }
  return written;
}

/** A write that failed half-way, for a reason of the disk: the files already written are named. */
export class PartialWriteError extends Error {
  constructor(
    readonly out: string,
    readonly written: string[],
    reason: string,
  ) {
    super(
      `writing to ${out} failed (${reason}) after ${written.length} of the files` +
        (written.length > 0 ? ` (${written.join(', ')})` : '') +
        ': fix the cause, then run the import again with --force',
    );
    this.name = 'PartialWriteError';
  }
}

const within = (parent: string, child: string): boolean => {
  const rel = relative(parent, child);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};

/**
 * The real path --out names (links resolved, or those of its nearest existing parent when it is not
 * there yet), refused when it is a file, a link to nothing, or the Lobu project, inside it or
 * around it: compared by real paths, so a link to the project is the project.
 */
async function outFolder(lobuDir: string, out: string): Promise<string> {
  const root = await realpath(lobuDir);
  let real: string;
  if ((await lstat(out).catch(() => null)) === null) {
    let existing = resolve(out);
    const rest: string[] = [];
    while ((await lstat(existing).catch(() => null)) === null && dirname(existing) !== existing) {
      rest.unshift(basename(existing));
      existing = dirname(existing);
    }
    real = join(await realFolder(existing, out), ...rest);
  } else real = await realFolder(out, out);
  const advice = 'name a folder outside it (default: <dir>-svc beside the project)';
  if (real === root) throw new ImportError(`--out ${out} is the Lobu project itself: ${advice}`);
  if (within(root, real)) throw new ImportError(`--out ${out} is inside the Lobu project: ${advice}`);
  if (within(real, root))
    throw new ImportError(`--out ${out} holds the Lobu project, whose files it could overwrite: ${advice}`);
  return real;
}

/** The real path of an existing folder, or an ImportError saying what it is instead. */
async function realFolder(path: string, out: string): Promise<string> {
  const which = resolve(path) === resolve(out) ? `--out ${out}` : `--out ${out}: ${path}`;
  const real = await realpath(path).catch(() => null);
  if (real === null)
    throw new ImportError(`${which} is a symbolic link to nothing: remove it or name another folder`);
  if (!(await stat(real)).isDirectory())
    throw new ImportError(`${which} is a file, not a folder: name a folder`);
  return real;
}

/**
 * Checks every component of every path under the target with lstat (no link followed, nothing
 * written) and returns the folders to make, parents first. A link, a file where a folder goes, a
 * folder where a file goes, or a file with other hard links (writing it would change them too) is
 * refused, naming it.
 */
async function planWrites(target: string, out: string, paths: string[]): Promise<string[]> {
  const seen = new Map<string, Stats | null>();
  const folders = new Set<string>();
  const refuse = (rel: string, what: string) =>
    new ImportError(
      `${join(out, rel)} ${what}: remove or move it, or choose another --out; nothing was written`,
    );
  for (const path of paths) {
    const parts = path.split('/');
    // Paths are built from agent ids and model file names; this keeps a surprise from leaving --out.
    if (isAbsolute(path) || parts.some((p) => p === '' || p === '.' || p === '..'))
      throw new ImportError(`refusing to write ${path} outside --out`);
    for (let i = 1; i <= parts.length; i++) {
      const rel = parts.slice(0, i).join('/');
      const last = i === parts.length;
      if (!seen.has(rel)) seen.set(rel, await lstat(join(target, rel)).catch(() => null));
      const info = seen.get(rel);
      if (info === null || info === undefined) {
        if (!last) folders.add(rel);
        continue;
      }
      if (info.isSymbolicLink())
        throw refuse(
          rel,
          'is a symbolic link, which the import never writes through (it may point anywhere)',
        );
      if (!last && !info.isDirectory())
        throw refuse(rel, `is a file where the import writes the folder ${rel}/`);
      if (last && !info.isFile()) throw refuse(rel, 'is not a regular file where the import writes one');
      if (last && info.nlink > 1)
        throw refuse(rel, 'has other hard links, which writing it would change too');
    }
  }
  return [...folders];
}
