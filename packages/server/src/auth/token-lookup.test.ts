import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';

let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  // Two replicas on one database, as behind a load balancer.
  a = await startTestServer();
  const { rows } = await a.pool.query('SELECT current_database() AS db');
  const url = new URL(a.pool.options.connectionString as string);
  url.pathname = `/${rows[0].db}`;
  b = await startTestServer({ databaseUrl: url.toString() });
});

const whoami = (server: TestServer, token: string) => server.call('GET', '/api/whoami', { token });

async function eventually(check: () => Promise<boolean>, ms = 2000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

describe('token lookups across replicas', () => {
  it('a token revoked on one replica stops working on the other, though the other had it cached', async () => {
    const token = await createToken(a, 'default', ['read']);
    expect((await whoami(b, token.secret)).status).toBe(200); // now cached on b
    expect((await a.call('DELETE', `/api/default/tokens/${token.id}`)).status).toBe(200);
    expect((await whoami(a, token.secret)).status).toBe(401); // at once on the replica that revoked it
    expect(await eventually(async () => (await whoami(b, token.secret)).status === 401)).toBe(true);
  });

  it('records last use at most once a minute', async () => {
    const token = await createToken(a, 'default', ['read']);
    await whoami(a, token.secret);
    const first = await eventually(async () => {
      const { rows } = await a.pool.query('SELECT last_used_at FROM api_tokens WHERE id = $1', [token.id]);
      return rows[0].last_used_at !== null;
    });
    expect(first).toBe(true);
    const { rows: before } = await a.pool.query('SELECT last_used_at FROM api_tokens WHERE id = $1', [
      token.id,
    ]);
    await whoami(a, token.secret);
    await whoami(b, token.secret);
    await new Promise((r) => setTimeout(r, 100));
    const { rows: after } = await a.pool.query('SELECT last_used_at FROM api_tokens WHERE id = $1', [
      token.id,
    ]);
    expect(after[0].last_used_at).toEqual(before[0].last_used_at);
  });
});
