import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  createDataDir,
  createTestDatabase,
  QUIET_SERVER,
  startTestServer,
} from '../test/harness.js';
import { migrate } from './db/migrate.js';
import { type RunningServer, startServer } from './server.js';

const dataDir = createDataDir;
const quiet = QUIET_SERVER;

async function api(server: RunningServer, password: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${password}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('svc server on embedded PostgreSQL', () => {
  it('keeps orgs, tokens, agents, settings and platforms across a restart on the same data dir', async () => {
    const dir = await dataDir();
    const env = { SVC_DATA_DIR: dir };
    const first = await startServer({ ...quiet, env });
    const password = (await readFile(join(dir, 'admin-password'), 'utf8')).trim();
    expect((await stat(join(dir, 'admin-password'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'encryption-key'))).mode & 0o777).toBe(0o600);
    await api(first, password, 'POST', '/api/orgs', { slug: 'acme' });
    const token = await api(first, password, 'POST', '/api/acme/tokens', { name: 'ci', scopes: ['write'] });
    await api(first, password, 'POST', '/api/acme/agents', { agentId: 'bot', name: 'Bot' });
    await api(first, password, 'PATCH', '/api/acme/agents/bot/config', { 'SOUL.md': 'calm' });
    await api(first, password, 'PUT', '/api/acme/agents/bot/platforms/by-stable-id/bot-messenger', {
      type: 'messenger',
      config: { bot_token: '$TG_TOKEN', secret_token: '$TG_SECRET' },
    });
    await first.close();

    const second = await startServer({ ...quiet, env });
    try {
      const listed = await fetch(`${second.url}/api/acme/agents?include=config,platforms`, {
        headers: { authorization: `Bearer ${token.body.secret}` },
      });
      const body = (await listed.json()) as any;
      expect(listed.status).toBe(200);
      expect(body.agents).toHaveLength(1);
      expect(body.agents[0].config['SOUL.md']).toBe('calm');
      expect(body.agents[0].platforms[0]).toMatchObject({
        stableId: 'bot-messenger',
        config: { bot_token: '$TG_TOKEN', secret_token: '$TG_SECRET' },
      });
      const orgs = await api(second, password, 'GET', '/api/orgs');
      expect(orgs.body.orgs.map((o: { slug: string }) => o.slug)).toEqual(['acme', 'default']);
    } finally {
      await second.close();
    }
  });

  it('refuses a second server on the same data dir, naming the first', async () => {
    const dir = await dataDir();
    const first = await startServer({ ...quiet, env: { SVC_DATA_DIR: dir } });
    try {
      await expect(startServer({ ...quiet, env: { SVC_DATA_DIR: dir } })).rejects.toThrow(
        new RegExp(`another svc server \\(pid ${process.pid}\\) is using the data directory`),
      );
      // The first one is unharmed.
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    } finally {
      await first.close();
    }
  });

  it('finishes an in-flight request before it stops', async () => {
    const dir = await dataDir();
    const server = await startServer({
      ...quiet,
      env: { SVC_DATA_DIR: dir, SVC_ADMIN_PASSWORD: 'pw-for-shutdown-0123456789' },
    });
    const url = new URL(`${server.url}/api/default/agents`);
    const body = JSON.stringify({ agentId: 'late', name: 'Late' });
    // Send half of the body, start shutting down, then send the rest.
    const answer = new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: 'POST',
          headers: {
            authorization: 'Bearer pw-for-shutdown-0123456789',
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 300);
    });
    await new Promise((r) => setTimeout(r, 100));
    const closing = server.close();
    expect(await answer).toBe(201);
    await closing;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  it('runs none of a request pipelined behind one in flight when shutdown starts', async () => {
    const server = await startTestServer();
    const { port } = new URL(server.url);
    const request = (agentId: string) => {
      const body = JSON.stringify({ agentId, name: agentId });
      return (
        `POST /api/default/agents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_PASSWORD}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      );
    };
    // The first request is in flight when shutdown starts; the second arrives behind it on the
    // same connection. Node hands it to the server at once: the closing server answers it with a
    // 503 problem (and Node may drop that answer as the first one closes the connection).
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk;
    });
    const ended = new Promise((resolve) => socket.on('close', resolve));
    socket.write(request('drained').slice(0, -5));
    await new Promise((r) => setTimeout(r, 100));
    const closing = server.app.close();
    await new Promise((r) => setTimeout(r, 100));
    socket.write(`${request('drained').slice(-5)}${request('second')}`);
    await ended;
    await closing;
    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 201 /);
    expect(first).toMatch(/connection: close/i);
    if (second !== undefined) expect(second).toMatch(/^HTTP\/1\.1 503 [\s\S]*"code":"shutting_down"/);
    const { rows } = await server.pool.query('SELECT agent_id FROM agents ORDER BY agent_id');
    expect(rows.map((r) => r.agent_id)).toEqual(['drained']);
  });

  it('refuses to start with an encryption key other than the one the database was set up with', async () => {
    const databaseUrl = await createTestDatabase();
    const key = (b: number) => Buffer.alloc(32, b).toString('hex');
    const base = {
      DATABASE_URL: databaseUrl,
      SVC_DATA_DIR: await dataDir(),
      SVC_ADMIN_PASSWORD: 'admin-password-0123456789',
    };
    const server = await startServer({ ...quiet, env: { ...base, SVC_ENCRYPTION_KEY: key(1) } });
    await server.close();
    await expect(startServer({ ...quiet, env: { ...base, SVC_ENCRYPTION_KEY: key(2) } })).rejects.toThrow(
      /not the key this database was set up with/,
    );
    await expect(startServer({ ...quiet, env: { ...base, SVC_ENCRYPTION_KEY: 'short' } })).rejects.toThrow(
      /must be 32 bytes/,
    );
  });
});

describe('settings a deployment could get dangerously wrong', () => {
  it('refuses SVC_ADMIN_PASSWORD under 16 characters, saying so, before touching the data dir', async () => {
    const dir = await dataDir();
    await expect(
      startServer({ ...quiet, env: { SVC_DATA_DIR: dir, SVC_ADMIN_PASSWORD: 'a' } }),
    ).rejects.toThrow(
      'SVC_ADMIN_PASSWORD must be at least 16 characters (it has 1); set a long random value (openssl rand -base64 24), or unset it to have one generated',
    );
    expect(await readdir(dir)).toEqual([]);
    // Characters, not bytes: 15 accented letters are still too few.
    await expect(
      startServer({ ...quiet, env: { SVC_DATA_DIR: dir, SVC_ADMIN_PASSWORD: 'é'.repeat(15) } }),
    ).rejects.toThrow(/at least 16 characters \(it has 15\)/);
  });

  it('refuses a short admin password kept in the data dir, naming the file', async () => {
    const dir = await dataDir();
    await writeFile(join(dir, 'admin-password'), 'short\n', { mode: 0o600 });
    await expect(
      startServer({ ...quiet, env: { SVC_DATA_DIR: dir, DATABASE_URL: await createTestDatabase() } }),
    ).rejects.toThrow(
      `the admin password in ${join(dir, 'admin-password')} must be at least 16 characters (it has 5); delete the file`,
    );
  });

  it('SVC_AUTH_FAILURES_PER_MINUTE sets the budget; SVC_TRUST_PROXY makes it per forwarded client', async () => {
    const password = 'admin-password-0123456789';
    const env = {
      DATABASE_URL: await createTestDatabase(),
      SVC_DATA_DIR: await dataDir(),
      SVC_ADMIN_PASSWORD: password,
      SVC_AUTH_FAILURES_PER_MINUTE: '2',
      SVC_TRUST_PROXY: '127.0.0.1',
    };
    await expect(
      startServer({ ...quiet, env: { ...env, SVC_AUTH_FAILURES_PER_MINUTE: 'many' } }),
    ).rejects.toThrow('SVC_AUTH_FAILURES_PER_MINUTE must be a whole number above 0, not "many"');
    // A hop count or a boolean (other servers' forms) would be read as an address: refused.
    for (const wrong of ['1', 'true', '10.0.0.0/33', 'proxy.internal']) {
      await expect(startServer({ ...quiet, env: { ...env, SVC_TRUST_PROXY: wrong } }), wrong).rejects.toThrow(
        `SVC_TRUST_PROXY: "${wrong}" is not an address or CIDR of a proxy`,
      );
    }
    // Without SVC_TRUST_PROXY, X-Forwarded-For is the client's word and is ignored: one budget.
    const direct = await startServer({ ...quiet, env: { ...env, SVC_TRUST_PROXY: undefined } });
    try {
      const statuses = [];
      for (const client of ['198.51.100.7', '198.51.100.8', '198.51.100.9']) {
        const res = await fetch(`${direct.url}/api/whoami`, {
          headers: { authorization: 'Bearer wrong', 'x-forwarded-for': client },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await direct.close();
    }
    const server = await startServer({ ...quiet, env });
    try {
      const call = (client: string, bearer: string) =>
        fetch(`${server.url}/api/whoami`, {
          headers: { authorization: `Bearer ${bearer}`, 'x-forwarded-for': client },
        }).then((res) => res.status);
      expect(await call('198.51.100.1', 'wrong')).toBe(401);
      expect(await call('198.51.100.1', 'wrong')).toBe(401);
      expect(await call('198.51.100.1', 'wrong')).toBe(429);
      expect(await call('198.51.100.1', password)).toBe(429);
      // The proxy's other clients are not held up by that one.
      expect(await call('198.51.100.2', 'wrong')).toBe(401);
      expect(await call('198.51.100.2', password)).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("gives embedded PostgreSQL none of the server's environment: no admin password, no secrets", async () => {
    const password = `probe-admin-password-${process.pid}`;
    const saved = { ...process.env };
    // `svc server` passes process.env; the leak was through PostgreSQL inheriting it.
    Object.assign(process.env, { SVC_ADMIN_PASSWORD: password, GITHUB_TOKEN: 'ghp_probe', PGPASSWORD: 'x' });
    const dir = await dataDir();
    const server = await startServer({
      ...quiet,
      env: { ...process.env, SVC_DATA_DIR: dir, DATABASE_URL: '' },
    });
    try {
      const pid = Number((await readFile(join(dir, 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
      const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
      expect(environ).not.toContain(password);
      const names = environ
        .split('\0')
        .filter(Boolean)
        .map((entry) => entry.slice(0, entry.indexOf('=')));
      expect(names.filter((name) => !['LC_ALL', 'PATH', 'TZ'].includes(name))).toEqual([]);
      expect(names).toContain('LC_ALL');
    } finally {
      await server.close();
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });
});

describe('migrations', () => {
  it('apply exactly once when several replicas start at the same moment', async () => {
    const databaseUrl = await createTestDatabase({ empty: true });
    const pools = Array.from({ length: 5 }, () => new pg.Pool({ connectionString: databaseUrl, max: 2 }));
    try {
      const files = (await readdir(new URL('../migrations/', import.meta.url))).sort();
      expect(files.slice(0, 3)).toEqual(['001_init.sql', '002_messages.sql', '003_answers.sql']);
      const applied = await Promise.all(pools.map((pool) => migrate(pool)));
      expect(applied.flat().sort()).toEqual(files);
      const { rows } = await pools[0]!.query('SELECT id FROM schema_migrations ORDER BY id');
      expect(rows.map((r) => r.id)).toEqual(files);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});
