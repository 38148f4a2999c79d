import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'packages/cli/src/bin.ts');

export type SvcProcess = ChildProcess & { output: () => string };

/**
 * Runs the CLI from its sources, as `svc ...` would run the build. Its stdin is no TTY: empty, or
 * a pipe that `input` is written into.
 */
export function svc(args: string[], env: Record<string, string>, cwd = root, input?: string): SvcProcess {
  const child = spawn(process.execPath, ['--conditions=svc-source', '--import', 'tsx', bin, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end(input);
  let output = '';
  child.stdout?.on('data', (c) => (output += c));
  child.stderr?.on('data', (c) => (output += c));
  return Object.assign(child, { output: () => output });
}

export function waitFor(child: SvcProcess, pattern: RegExp, ms = 30_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const match = child.output().match(pattern);
      if (match) {
        clearInterval(timer);
        resolve(match);
      } else if (child.exitCode !== null || Date.now() > deadline) {
        clearInterval(timer);
        reject(new Error(`no ${pattern} in:\n${child.output()}`));
      }
    }, 50);
  });
}

/** The exit code, once the output is complete too: 'exit' can come before the last of stdout. */
export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    const streams = [child.stdout, child.stderr].filter((s) => s !== null);
    if (child.exitCode !== null && streams.every((s) => s.readableEnded || s.destroyed))
      resolve(child.exitCode);
    else child.once('close', (code) => resolve(code));
  });
