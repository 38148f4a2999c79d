import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startServer } from '../server.js';
import { startEmbeddedPostgres } from './embedded.js';

// Only as root is PostgreSQL run as another user (`postgres`), who may be shut out of the checkout.
describe.runIf(process.getuid?.() === 0)('embedded PostgreSQL, started as root', () => {
  it('runs for a data dir inside a directory closed to the postgres user (a mktemp -d checkout)', async () => {
    const closed = await mkdtemp(join(tmpdir(), 'svc-closed-')); // 0700, as mktemp -d makes it
    const lines: string[] = [];
    const dataDir = join(closed, 'project', '.svc');
    await mkdir(dataDir, { recursive: true });
    const postgres = await startEmbeddedPostgres(dataDir, (line) => lines.push(line));
    try {
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
      expect(lines.join('\n')).toMatch(
        new RegExp(`${closed} is closed to the postgres user.*/var/lib/svc/clusters/`),
      );
    } finally {
      await postgres.stop();
      await rm(closed, { recursive: true, force: true });
      const cluster = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
      await rm(join('/var/lib/svc/clusters', cluster), { recursive: true, force: true });
    }
  }, 60_000);

  it('names the cluster it really uses, and says how to remove one whose data dir is gone', async () => {
    const closed = await mkdtemp(join(tmpdir(), 'svc-closed-'));
    const dataDir = join(closed, 'project', '.svc');
    const cluster = join(
      '/var/lib/svc/clusters',
      createHash('sha256').update(dataDir).digest('hex').slice(0, 16),
    );
    const lines: string[] = [];
    const settings = {
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      announce: (line: string) => lines.push(line),
      workers: false as const,
      env: { SVC_DATA_DIR: dataDir },
    };
    try {
      await mkdir(dataDir, { recursive: true });
      const server = await startServer(settings);
      await server.close();
      expect(lines.find((line) => line.includes('database'))).toBe(
        `  database       embedded PostgreSQL in ${cluster}`,
      );
      // A newcomer starting over: the data dir is removed, the cluster under /var/lib/svc is not.
      await rm(dataDir, { recursive: true });
      await mkdir(dataDir);
      const again = startServer(settings);
      await expect(again).rejects.toThrow(
        `embedded PostgreSQL: ${cluster} holds the cluster of ${dataDir}, but its password (${join(dataDir, 'pg-password')}) is gone`,
      );
      await expect(again).rejects.toThrow(`remove the cluster to start afresh: rm -rf ${cluster}`);
    } finally {
      await rm(closed, { recursive: true, force: true });
      await rm(cluster, { recursive: true, force: true });
    }
  }, 60_000);
});
