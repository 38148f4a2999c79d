import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { loadProject } from '../load.js';
import { ProjectError, type ProjectProblem } from '../problems.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** Writes `files` (path -> content) into a fresh temporary project folder. */
export async function writeProject(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-project-'));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** Loads a project expected to fail and returns its problems. */
export async function problemsOf(
  files: Record<string, string>,
  env: Record<string, string | undefined> = {},
): Promise<ProjectProblem[]> {
  const dir = await writeProject(files);
  try {
    await loadProject(dir, env);
  } catch (error) {
    if (error instanceof ProjectError) return error.problems;
    throw error;
  }
  throw new Error('expected the project to fail loading');
}

/** Strips the common indentation of a template literal, so fixtures can be indented in tests. */
export function dedent(text: string): string {
  const lines = text.replace(/^\n/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)?.[0].length ?? 0));
  return lines.map((l) => l.slice(indent)).join('\n');
}
