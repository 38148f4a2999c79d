import { mkdtemp, rm, stat } from 'node:fs/promises';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../server/test/harness.js';
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
    expect(bad.output().trim().split('\n').at(-1)).toBe(
      'svc server: cannot reach PostgreSQL at DATABASE_URL (connect ECONNREFUSED 127.0.0.1:1): is it running there, and is DATABASE_URL right?',
    );
    const badPort = svc(['server', '--port', 'seventy'], {});
    expect(await exited(badPort)).toBe(1);
    expect(badPort.output()).toMatch(/must be a port number/);
  });

  it('says a taken port is taken, in one line naming --port and SVC_PORT', async () => {
    const taken = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const dir = await mkdtemp(join(tmpdir(), 'svc-cli-port-'));
      dirs.push(dir);
      const server = svc(['server', '--port', String(port), '--log-level', 'error'], {
        DATABASE_URL: await createTestDatabase(),
        SVC_DATA_DIR: dir,
      });
      expect(await exited(server)).toBe(1);
      expect(server.output().trim()).toBe(
        `svc server: port ${port} is taken on 127.0.0.1 (another svc, or another program, listens there): ` +
          'stop it, or choose another port with --port or SVC_PORT',
      );
    } finally {
      taken.close();
    }
  });

  it('logs a lost database connection as its message, not as the 4 KB connection object', async () => {
    const databaseUrl = await createTestDatabase();
    const dir = await mkdtemp(join(tmpdir(), 'svc-cli-lost-'));
    dirs.push(dir);
    const server = svc(['server', '--port', '0', '--log-level', 'warn'], {
      DATABASE_URL: databaseUrl,
      SVC_DATA_DIR: dir,
    });
    await waitFor(server, /listening on/);
    // What a PostgreSQL restart does to every connection the server holds, idle ones included.
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    await admin.end();
    await waitFor(server, /idle database connection failed/);
    server.kill('SIGTERM');
    expect(await exited(server)).toBe(0);
    const lines = server.output().trim().split('\n');
    const lost = lines.find((line) => line.includes('idle database connection failed')) ?? '';
    expect(JSON.parse(lost).err).toMatchObject({
      code: '57P01',
      message: expect.stringMatching(/terminating/),
    });
    expect(server.output()).not.toContain('"client"');
    for (const line of lines) expect(line.length).toBeLessThan(2000);
  });
});
