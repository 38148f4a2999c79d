/**
 * Writes the converted files into `--out` and nowhere else: a non-empty folder only with `--force`
 * (which overwrites the files the import writes and leaves the others), never the Lobu project.
 */

import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { ImportError } from './lobu-toml.js';

export async function writeFiles(
  lobuDir: string,
  out: string,
  files: Map<string, string>,
  force: boolean,
): Promise<string[]> {
  const target = resolve(out);
  const fromLobu = relative(resolve(lobuDir), target);
  if (fromLobu === '') {
    throw new ImportError(
      `--out ${out} is the Lobu project itself: name another folder (default: <dir>-svc)`,
    );
  }
  const present = await readdir(target).catch(() => []);
  if (present.length > 0 && !force) {
    throw new ImportError(
      `--out ${out} is not empty: choose another folder, or pass --force to overwrite the files the import writes (others are left as they are)`,
    );
  }
  const written: string[] = [];
  for (const [path, content] of files) {
    const file = resolve(target, path);
    const rel = relative(target, file);
    // Paths are built from agent ids and model file names; this keeps a surprise from leaving --out.
    if (rel.startsWith('..') || isAbsolute(rel))
      throw new ImportError(`refusing to write ${path} outside --out`);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
    written.push(rel);
  }
  return written;
}
