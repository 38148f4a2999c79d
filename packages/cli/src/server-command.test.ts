import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'packages/cli/src/bin.ts');
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI from its sources, as `svc ...` would run the build. */
function svc(args: string[], env: Record<string, string>): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', bin, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c) => (output += c));
  child.stderr?.on('data', (c) => (output += c));
  return Object.assign(child, { output: () => output });
}

function waitFor(child: ReturnType<typeof svc>, pattern: RegExp, ms = 30_000): Promise<RegExpMatchArray> {
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
    const deadline = Date.now() + ms;
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

describe('svc server', () => {
  it('starts on embedded PostgreSQL, prints the admin password once, and stops cleanly on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-cli-server-'));
    dirs.push(dir);
    const server = svc(['server', '--port', '0', '--log-level', 'warn'], { SVC_DATA_DIR: dir });
    const [, url] = await waitFor(server, /listening on (http:\/\/\S+)/);
    const [, password] = await waitFor(server, /admin password (\S+)\s+\(shown once/);
    const whoami = await fetch(`${url}/api/whoami`, { headers: { authorization: `Bearer ${password}` } });
    expect(whoami.status).toBe(200);

    const second = svc(['server', '--port', '0'], { SVC_DATA_DIR: dir });
    expect(await exited(second)).toBe(1);
    expect(second.output()).toMatch(/another svc server \(pid \d+\) is using the data directory/);

    server.kill('SIGTERM');
    expect(await exited(server)).toBe(0);
    // PostgreSQL removed its pid file: it stopped rather than being orphaned.
    await expect(stat(join(dir, 'data', 'postmaster.pid'))).rejects.toThrow();
    await expect(stat(join(dir, 'server.lock'))).rejects.toThrow();

    const again = svc(['server', '--port', '0', '--log-level', 'warn'], { SVC_DATA_DIR: dir });
    await waitFor(again, /listening on/);
    expect(again.output()).not.toContain(password);
    expect(again.output()).toMatch(/admin password in .*admin-password/);
    again.kill('SIGINT');
    expect(await exited(again)).toBe(0);
  });

  it('exits 1 with the reason when it cannot start', async () => {
    const badDir = await mkdtemp(join(tmpdir(), 'svc-cli-bad-'));
    dirs.push(badDir);
    const bad = svc(['server', '--port', '0'], {
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      SVC_DATA_DIR: badDir,
    });
    expect(await exited(bad)).toBe(1);
    expect(bad.output()).toMatch(/svc server: .*(ECONNREFUSED|connect)/);
    const badPort = svc(['server', '--port', 'seventy'], {});
    expect(await exited(badPort)).toBe(1);
    expect(badPort.output()).toMatch(/must be a port number/);
  });
});
