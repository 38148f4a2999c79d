/**
 * Every path a project names (agent folders, memory bundles, the files read through them) stays
 * inside the project folder, symbolic links resolved: `models = ["/etc/shadow"]` or
 * `dir = "../../x"` must not read a file from elsewhere into an error message or an upload.
 */

import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export interface ProjectRoot {
  /** The project folder as given, absolute. */
  dir: string;
  /** The same folder with symbolic links resolved. */
  real: string;
}

export async function projectRoot(dir: string): Promise<ProjectRoot> {
  const absolute = resolve(dir);
  return { dir: absolute, real: await realpathOfExisting(absolute) };
}

/** Why `path` (absolute) is not inside the project: its text leaves it, or a link on the way does. */
export type Outside = 'outside' | 'link';

export async function outsideProject(root: ProjectRoot, path: string): Promise<Outside | null> {
  if (!within(root.dir, path)) return 'outside';
  return within(root.real, await realpathOfExisting(path)) ? null : 'link';
}

/** How a problem says it, after the path as written: `folder "../x" <is outside ...>`. */
export function describeOutside(outside: Outside): string {
  return outside === 'outside'
    ? 'is outside the project folder'
    : 'leads outside the project folder through a symbolic link';
}

export const OUTSIDE_HINT = 'paths are relative to the project folder and must stay inside it';

function within(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return !isAbsolute(rel) && rel.split(sep)[0] !== '..';
}

/**
 * The real path of `path`, or of its nearest existing ancestor with the rest appended: a file not
 * there yet is judged by the folder it would be in (and is then reported as not found).
 */
async function realpathOfExisting(path: string): Promise<string> {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...rest);
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.unshift(basename(current));
      current = parent;
    }
  }
}
