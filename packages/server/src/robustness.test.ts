import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import pgLib from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness.js';
import { spawnSvc } from '../test/spawn-svc.js';
import { lockDataDir } from './data-dir.js';
import { checkEncryptionKey } from './secrets/encryption-key.js';

/** Races, text PostgreSQL cannot store, a lost database, crashes: each test states the behaviour the README promises. */

let server: TestServer;
let orgId: string;
beforeAll(async () => {
  server = await startTestServer();
  orgId = String((await server.pool.query("SELECT id FROM orgs WHERE slug = 'default'")).rows[0].id);
});

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  if (code) expect(res.body.code).toBe(code);
}

/** Waits until some backend of the test database waits on a lock (the request under test). */
async function untilBlocked(pool: pg.Pool): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the request never blocked');
}

describe('races (a concurrent transaction commits while a request runs)', () => {
  it('upsert: an identical create that loses the race answers unchanged, not 500', async () => {
    const other = await server.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query("INSERT INTO agents (org_id, agent_id, name) VALUES ($1, 'racer', 'Racer')", [orgId]);
      const pending = server.call('POST', '/api/default/agents', {
        body: { agentId: 'racer', name: 'Racer' },
      });
      await untilBlocked(server.pool);
      await other.query('COMMIT');
      const res = await pending;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.result).toBe('unchanged');
    } finally {
      other.release();
    }
  });

  it('upsert: same race on POST /api/orgs answers unchanged, not 500', async () => {
    const other = await server.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query("INSERT INTO orgs (slug, name) VALUES ('raced', 'raced')");
      const pending = server.call('POST', '/api/orgs', { body: { slug: 'raced' } });
      await untilBlocked(server.pool);
      await other.query('COMMIT');
      const res = await pending;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    } finally {
      other.release();
    }
  });

  it('checkEncryptionKey: a replica booting with another key at the same moment is refused', async () => {
    const other = await server.pool.connect();
    try {
      await other.query('BEGIN');
      // The test server wrote its own key's at start: the other replica is the first here.
      await other.query("DELETE FROM deployment WHERE key = 'encryption_key_fingerprint'");
      await other.query(
        "INSERT INTO deployment (key, value) VALUES ('encryption_key_fingerprint', 'fingerprint-of-another-key')",
      );
      const pending = checkEncryptionKey(server.pool, randomBytes(32)).then(
        () => 'accepted',
        (e: Error) => e.message,
      );
      await untilBlocked(server.pool);
      await other.query('COMMIT');
      expect(await pending).toMatch(/not the key this database was set up with/);
    } finally {
      await server.pool.query("DELETE FROM deployment WHERE key = 'encryption_key_fingerprint'");
      other.release();
    }
  });

  it('a message sent while its agent is being deleted answers 404, not 500', async () => {
    await server.call('POST', '/api/default/agents', { body: { agentId: 'doomed', name: 'Doomed' } });
    const other = await server.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query("DELETE FROM agents WHERE org_id = $1 AND agent_id = 'doomed'", [orgId]);
      const pending = server.call('POST', '/api/v1/agents/doomed/messages', {
        body: { platform: 'api', content: 'hi' },
      });
      await untilBlocked(server.pool);
      await other.query('COMMIT');
      expectProblem(await pending, 404, 'not_found');
    } finally {
      other.release();
    }
  });

  it('PATCH config: `changed` names only the settings this call changed', async () => {
    await server.call('POST', '/api/default/agents', { body: { agentId: 'patchy', name: 'Patchy' } });
    const other = await server.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query(
        `UPDATE agents SET config = config || '{"USER.md": "from elsewhere"}' WHERE org_id = $1 AND agent_id = 'patchy'`,
        [orgId],
      );
      const pending = server.call('PATCH', '/api/default/agents/patchy/config', {
        body: { 'SOUL.md': 'mine' },
      });
      await untilBlocked(server.pool);
      await other.query('COMMIT');
      const res = await pending;
      expect(res.status).toBe(200);
      expect(res.body.changed).toEqual(['SOUL.md']);
    } finally {
      other.release();
    }
  });
});

describe('bad input answers 4xx problems, never 500', () => {
  it('a NUL character in an agent name', async () => {
    const res = await server.call('POST', '/api/default/agents', {
      body: { agentId: 'nul', name: 'a\u0000b' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
  });

  it('a NUL character in a Markdown setting', async () => {
    await server.call('POST', '/api/default/agents', { body: { agentId: 'md', name: 'Md' } });
    const res = await server.call('PATCH', '/api/default/agents/md/config', {
      body: { 'SOUL.md': 'a\u0000b' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
  });

  it('a lone surrogate in a Markdown setting', async () => {
    const res = await server.call('PATCH', '/api/default/agents/md/config', {
      raw: '{"SOUL.md": "a\\ud800b"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
  });

  it('a NUL character in message content', async () => {
    const res = await server.call('POST', '/api/v1/agents/md/messages', {
      body: { platform: 'api', content: 'a\u0000b' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
  });

  it('%00 in the org segment (admin password)', async () => {
    const res = await server.call('GET', '/api/%00/agents');
    expect(res.status, JSON.stringify(res.body)).toBe(404);
  });

  it('%00 as a token id', async () => {
    const res = await server.call('DELETE', '/api/default/tokens/%00');
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
  });

  it('%00 as a platform stable id', async () => {
    const res = await server.call('DELETE', '/api/default/agents/md/platforms/by-stable-id/%00');
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
  });
});

describe('database unavailable', () => {
  it('answers 503 database_unavailable, as the README lists, rather than 500', async () => {
    const own = await startTestServer();
    own.pool.on('error', () => {});
    const db = (await own.pool.query('SELECT current_database() AS d')).rows[0].d;
    const admin = new pgLib.Client({ connectionString: inject('adminDatabaseUrl') });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${db} ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [db]);
      await new Promise((r) => setTimeout(r, 100));
      const res = await own.call('GET', '/api/default/agents');
      expectProblem(res, 503, 'database_unavailable');
    } finally {
      await admin.end();
    }
  });
});

describe('data dir lock', () => {
  it('a lock left by a crashed server whose pid is now ours (a container restart) is taken over', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-review-lock-'));
    dirs.push(dir);
    await writeFile(join(dir, 'server.lock'), `${process.pid}\n`);
    const release = await lockDataDir(dir);
    await release();
  });
});

describe('embedded PostgreSQL after a crash', () => {
  it('a server killed with SIGKILL (OOM killer, kill -9) can be started again on its data dir', async () => {
    const { readFile } = await import('node:fs/promises');
    const dir = await mkdtemp(join(tmpdir(), 'svc-review-crash-'));
    dirs.push(dir);
    const start = () => {
      const child = spawnSvc(['server', '--port', '0'], { SVC_DATA_DIR: dir, DATABASE_URL: '' });
      const output = () => child.output();
      const outcome = new Promise<string>((resolve) => {
        const timer = setInterval(() => {
          if (/listening on/.test(output()) || child.exitCode !== null) {
            clearInterval(timer);
            resolve(output());
          }
        }, 50);
      });
      return { child, outcome };
    };
    const first = start();
    expect(await first.outcome).toMatch(/listening on/);
    const postgresPid = Number((await readFile(join(dir, 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    const second = start();
    try {
      expect(await second.outcome).toMatch(/listening on/);
    } finally {
      if (second.child.exitCode === null) {
        second.child.kill('SIGTERM');
        await new Promise((r) => second.child.once('exit', r));
      }
      // The orphan this test made: PostgreSQL outlived the server that started it.
      try {
        process.kill(postgresPid, 'SIGINT');
      } catch {}
      await new Promise((r) => setTimeout(r, 500));
    }
  }, 60_000);
});
