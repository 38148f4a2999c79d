import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, createToken, startTestServer, type TestServer } from '../../test/harness.js';

/** API tokens end to end: creation, listing, whoami, use, expiry, revocation and org boundaries. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  expect((await server.call('POST', '/api/orgs', { body: { slug: 'beta' } })).status).toBe(201);
});

const DAY_MS = 24 * 60 * 60 * 1000;

const whoami = (token: string) => server.call('GET', '/api/whoami', { token });
const listTokens = (org = 'default', token?: string) => server.call('GET', `/api/${org}/tokens`, { token });
const revoke = (id: string, org = 'default', token?: string) =>
  server.call('DELETE', `/api/${org}/tokens/${id}`, { token });

async function tokenRow(id: string) {
  const { rows } = await server.pool.query('SELECT * FROM api_tokens WHERE id = $1', [id]);
  return rows[0];
}

/** Polls until `check` holds: some writes (last use) happen after the answer is sent. */
async function eventually(check: () => Promise<boolean>, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

/** Gives a fire-and-forget write the time it would need to land, for checks that it did not. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, code });
}

describe('creating a token', () => {
  it('shows the secret once, in the creation answer only', async () => {
    const res = await server.call('POST', '/api/default/tokens', {
      body: { name: 'deploy bot', scopes: ['write', 'read', 'write'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.result).toBe('created');
    // No cache between here and the client may keep the one answer that holds the secret.
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { secret, token } = res.body;
    expect(secret).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(token).toMatchObject({
      name: 'deploy bot',
      scopes: ['read', 'write'], // de-duplicated and sorted
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(JSON.stringify(token)).not.toContain(secret);

    const listed = await listTokens();
    expect(listed.status).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(listed.body.tokens.find((t: { id: string }) => t.id === token.id)).toEqual(token);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(listed.body.tokens.every((t: object) => !('secret' in t))).toBe(true);
  });

  it('stores only the SHA-256 of the secret', async () => {
    const { id, secret } = await createToken(server, 'default', ['read']);
    const row = await tokenRow(id);
    expect(row.token_hash.equals(Buffer.from(secret))).toBe(false);
    expect(row.token_hash.equals(createHash('sha256').update(secret).digest())).toBe(true);
    // No column holds the secret in any form that reads back as text.
    const { rows } = await server.pool.query(
      'SELECT row_to_json(t)::text AS json FROM api_tokens t WHERE id = $1',
      [id],
    );
    expect(rows[0].json).not.toContain(secret);
    expect(rows[0].json).not.toContain(secret.slice('svc_'.length));
  });

  it('refuses a second active token of the same name, but not the name of a revoked one', async () => {
    const first = await createToken(server, 'default', ['read'], { name: 'ci' });
    const again = await server.call('POST', '/api/default/tokens', {
      body: { name: 'ci', scopes: ['admin'] },
    });
    expectProblem(again, 409, 'token_name_taken');
    expect(again.body.errors).toEqual([{ path: '/body/name', message: expect.any(String) }]);
    // The refused attempt left nothing behind.
    const { rows } = await server.pool.query("SELECT count(*)::int AS n FROM api_tokens WHERE name = 'ci'");
    expect(rows[0].n).toBe(1);

    expect((await revoke(first.id)).status).toBe(200);
    const reused = await server.call('POST', '/api/default/tokens', {
      body: { name: 'ci', scopes: ['read'] },
    });
    expect(reused.status).toBe(201);
  });

  it('sets expiresAt about expiresInDays out', async () => {
    const before = Date.now();
    const res = await server.call('POST', '/api/default/tokens', {
      body: { name: 'thirty days', scopes: ['read'], expiresInDays: 30 },
    });
    expect(res.status).toBe(201);
    const expiresAt = Date.parse(res.body.token.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY_MS - 60_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS + 60_000);
    expect((await whoami(res.body.secret)).status).toBe(200);
  });

  it('rejects a bad body with a validation problem and creates nothing', async () => {
    const { rows: before } = await server.pool.query('SELECT count(*)::int AS n FROM api_tokens');
    const res = await server.call('POST', '/api/default/tokens', {
      body: { name: 'bad', scopes: ['superuser'], expiresInDays: 0 },
    });
    expectProblem(res, 400, 'validation_failed');
    const paths = res.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['/body/expiresInDays']));
    expect(paths.some((p: string) => p.startsWith('/body/scopes'))).toBe(true);
    const { rows: after } = await server.pool.query('SELECT count(*)::int AS n FROM api_tokens');
    expect(after[0].n).toBe(before[0].n);
  });
});

describe('whoami', () => {
  it('names the org, the expanded scopes and the token', async () => {
    const writer = await createToken(server, 'default', ['write'], { name: 'writer' });
    const res = await whoami(writer.secret);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kind: 'token',
      org: 'default',
      scopes: ['read', 'write'], // write implies read
      token: { id: writer.id, name: 'writer' },
    });

    const admin = await createToken(server, 'beta', ['admin']);
    expect((await whoami(admin.secret)).body).toMatchObject({
      kind: 'token',
      org: 'beta',
      scopes: ['admin', 'messages', 'read', 'write'], // admin implies every scope
    });
  });

  it('answers for the admin password, which belongs to no org', async () => {
    const res = await server.call('GET', '/api/whoami');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kind: 'admin_password',
      org: null,
      scopes: ['admin', 'messages', 'read', 'write'],
      token: null,
    });
  });
});

describe('using a token', () => {
  it('records last use', async () => {
    const { id, secret } = await createToken(server, 'default', ['read']);
    expect((await tokenRow(id)).last_used_at).toBeNull();
    const before = Date.now();
    expect((await whoami(secret)).status).toBe(200);
    expect(await eventually(async () => (await tokenRow(id)).last_used_at !== null)).toBe(true);
    const listed = (await listTokens()).body.tokens.find((t: { id: string }) => t.id === id);
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThanOrEqual(before - 5000);
  });

  it('does not count an attempt with an expired token as use', async () => {
    const { id, secret } = await createToken(server, 'default', ['read'], { expiresInDays: 1 });
    await server.pool.query(`UPDATE api_tokens SET expires_at = now() - interval '1 minute' WHERE id = $1`, [
      id,
    ]);
    expectProblem(await whoami(secret), 401, 'unauthorized');
    await settle();
    expect((await tokenRow(id)).last_used_at).toBeNull();
  });

  it('does not count attempts with a revoked token as use', async () => {
    const { id, secret } = await createToken(server, 'default', ['read']);
    expect((await revoke(id)).status).toBe(200);
    // Twice: the second attempt may be answered from the server's token cache.
    expectProblem(await whoami(secret), 401, 'unauthorized');
    expectProblem(await whoami(secret), 401, 'unauthorized');
    await settle();
    expect((await tokenRow(id)).last_used_at).toBeNull();
  });
});

describe('revoking a token', () => {
  it('stops the token at once; a second revocation answers unchanged', async () => {
    const { id, secret } = await createToken(server, 'default', ['admin']);
    expect((await whoami(secret)).status).toBe(200); // known to the server, perhaps cached

    const first = await revoke(id);
    expect(first.status).toBe(200);
    expect(first.body.result).toBe('updated');
    expect(first.body.token.id).toBe(id);
    expect(first.body.token.revokedAt).not.toBeNull();

    const rejected = await whoami(secret);
    expectProblem(rejected, 401, 'unauthorized');
    expect(rejected.headers.get('www-authenticate')).toMatch(/^Bearer\b/);

    const second = await revoke(id);
    expect(second.status).toBe(200);
    expect(second.body.result).toBe('unchanged');
    expect(second.body.token.revokedAt).toBe(first.body.token.revokedAt);

    const listed = (await listTokens()).body.tokens.find((t: { id: string }) => t.id === id);
    expect(listed.revokedAt).toBe(first.body.token.revokedAt);
  });

  it('a token can revoke itself, and the next request with it is refused', async () => {
    const { id, secret } = await createToken(server, 'default', ['admin']);
    expect((await revoke(id, 'default', secret)).body.result).toBe('updated');
    expectProblem(await listTokens('default', secret), 401, 'unauthorized');
  });

  it('answers 404 for a token id that does not exist', async () => {
    expectProblem(await revoke('tok_nope'), 404, 'not_found');
  });
});

describe('org boundaries', () => {
  it("a token of one org can neither list, create nor revoke another org's tokens", async () => {
    const mine = await createToken(server, 'default', ['admin']);
    const theirs = await createToken(server, 'beta', ['read']);

    expectProblem(await listTokens('beta', mine.secret), 404, 'not_found');
    const created = await server.call('POST', '/api/beta/tokens', {
      token: mine.secret,
      body: { name: 'intruder', scopes: ['admin'] },
    });
    expectProblem(created, 404, 'not_found');
    expectProblem(await revoke(theirs.id, 'beta', mine.secret), 404, 'not_found');
    // Nor through its own org's path: token ids are looked up within the caller's org.
    expectProblem(await revoke(theirs.id, 'default', mine.secret), 404, 'not_found');

    expect((await whoami(theirs.secret)).status).toBe(200);
    const names = (await listTokens('beta')).body.tokens.map((t: { name: string }) => t.name);
    expect(names).not.toContain('intruder');
  });

  it("lists only the org's own tokens", async () => {
    const theirs = await createToken(server, 'beta', ['read']);
    const ids = (await listTokens('default')).body.tokens.map((t: { id: string }) => t.id);
    expect(ids).not.toContain(theirs.id);
    expect((await listTokens('beta')).body.tokens.map((t: { id: string }) => t.id)).toContain(theirs.id);
  });
});

describe('failed authentication is throttled per client address', () => {
  /** A server of its own, so that no other test's failures count against 127.0.0.1. */
  let own: TestServer;
  beforeAll(async () => {
    own = await startTestServer();
  });

  const tokensTable = async () =>
    (await own.pool.query('SELECT id, last_used_at, revoked_at FROM api_tokens ORDER BY id')).rows;

  /** A GET from another loopback address: another client as far as the server can tell. */
  function fromAddress(localAddress: string, path: string, bearer: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        `${own.url}${path}`,
        { localAddress, headers: { authorization: `Bearer ${bearer}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('300 wrong bearer values in a row: 20 are checked, then 429 with Retry-After; valid tokens still pass', async () => {
    const valid = await createToken(own, 'default', ['read']);
    const before = await tokensTable();
    // Guesses at the password, garbage, and well-formed tokens nobody was given.
    const wrong = (i: number) =>
      [`${ADMIN_PASSWORD}-${i}`, `guess-${i}`, `svc_${randomBytes(32).toString('base64url')}`][
        i % 3
      ] as string;
    const statuses: number[] = [];
    let last: Awaited<ReturnType<TestServer['call']>> | undefined;
    for (let i = 0; i < 300; i++) {
      last = await own.call('GET', '/api/default/agents', { token: wrong(i) });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(280).fill(429));
    expectProblem(last as NonNullable<typeof last>, 429, 'rate_limited');
    const retryAfter = Number(last?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3);
    expect(last?.body.detail).toMatch(/too many failed authentication attempts .* try again in \d+ s/);
    expect(await tokensTable()).toEqual(before);

    // A valid token from the same address is neither slowed nor refused (this one was never used).
    expect((await own.call('GET', '/api/default/agents', { token: valid.secret })).status).toBe(200);
    // The password is what a guesser is after: it waits like any other guess.
    expectProblem(await own.call('GET', '/api/default/agents'), 429, 'rate_limited');
    // Another address has its own budget.
    expect(await fromAddress('127.0.0.2', '/api/default/agents', ADMIN_PASSWORD)).toBe(200);
    expect(await fromAddress('127.0.0.2', '/api/default/agents', 'wrong')).toBe(401);

    // Once the budget has refilled for one attempt, credentials are checked again.
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    expect((await own.call('GET', '/api/default/agents')).status).toBe(200);
  });
});
