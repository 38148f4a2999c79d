import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { type ImportFlags, importLobu } from '../command.js';
import type { ImportEntry, ImportStep } from '../report.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-import-'));
  dirs.push(dir);
  return dir;
}

/** A copy of `fixtures/<name>` in a fresh folder: the import writes beside it. */
export async function fixture(name: string): Promise<string> {
  const dir = join(await tempDir(), name);
  await cp(new URL(`../fixtures/${name}`, import.meta.url), dir, { recursive: true });
  return dir;
}

export interface ImportRun {
  code: number;
  out: string;
  err: string;
  /** `--json`'s report, when the run printed one. */
  json: {
    files: string[];
    entries: ImportEntry[];
    steps: ImportStep[];
    problems: { file: string; line: number; message: string }[];
  } | null;
}

export async function runImport(flags: ImportFlags): Promise<ImportRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await importLobu(flags, { out: (l) => out.push(l), err: (l) => err.push(l) });
  const text = out.join('\n');
  return { code, out: text, err: err.join('\n'), json: flags.json && code !== 1 ? JSON.parse(text) : null };
}

/** Every file under `dir` with its content, relative paths as keys. */
export async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    out[full.slice(dir.length + 1)] = await readFile(full, 'utf8');
  }
  return out;
}
