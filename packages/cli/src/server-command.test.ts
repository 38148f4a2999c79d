import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, svc, waitFor } from '../test/run-svc.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
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
