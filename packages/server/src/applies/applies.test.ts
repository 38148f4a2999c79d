import { APPLY_MANIFEST_MAX_IDS, stablePlatformId } from '@svc/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';

/**
 * The apply manifest against a real PostgreSQL: created, unchanged (nothing written) and updated;
 * lists kept sorted; every id checked as elsewhere; orgs kept apart.
 */

let server: TestServer;

const put = (body: unknown, org = 'default', token?: string) =>
  server.call('PUT', `/api/${org}/apply-manifest`, { body, token });
const get = (org = 'default', token?: string) => server.call('GET', `/api/${org}/apply-manifest`, { token });

const MANIFEST = {
  project: 'shop',
  agents: ['support', 'ops'],
  platforms: ['support-team-chat', stablePlatformId('ops', 'messenger', 'EU Ops')],
  entityTypes: ['person', 'company'],
  relationshipTypes: ['works_at'],
  watchers: ['daily'],
};

/** The row's system columns: they change with any write to it, even one that changes no value. */
async function rowVersion(org: string): Promise<string | undefined> {
  const { rows } = await server.pool.query<{ version: string }>(
    `SELECT m.xmin::text || ':' || m.ctid::text AS version
       FROM apply_manifests m JOIN orgs o ON o.id = m.org_id WHERE o.slug = $1`,
    [org],
  );
  return rows[0]?.version;
}

beforeAll(async () => {
  server = await startTestServer();
  expect((await server.call('POST', '/api/orgs', { body: { slug: 'other' } })).status).toBe(201);
});

describe('the apply manifest', () => {
  it('is null before any apply recorded one', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ manifest: null });
  });

  it('is created, sorted, and read back as written', async () => {
    const created = await put(MANIFEST);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const manifest = {
      project: 'shop',
      agents: ['ops', 'support'],
      platforms: ['ops-messenger-eu-ops', 'support-team-chat'],
      entityTypes: ['company', 'person'],
      relationshipTypes: ['works_at'],
      watchers: ['daily'],
      appliedAt: expect.any(String),
    };
    expect(created.body).toEqual({ result: 'created', manifest });
    expect((await get()).body).toEqual({ manifest: created.body.manifest });
  });

  it('answers unchanged to the same declaration in another order, and writes nothing', async () => {
    const before = await rowVersion('default');
    const { manifest } = (await get()).body;
    const again = await put({
      ...MANIFEST,
      agents: [...MANIFEST.agents].reverse(),
      entityTypes: [...MANIFEST.entityTypes].reverse(),
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ result: 'unchanged', manifest });
    expect(await rowVersion('default')).toBe(before);
  });

  it('is replaced by the next declaration, appliedAt with it; the last apply wins', async () => {
    const { manifest: before } = (await get()).body;
    const updated = await put({ ...MANIFEST, project: 'other-project', agents: ['support'], platforms: [] });
    expect(updated.status).toBe(200);
    expect(updated.body.result).toBe('updated');
    expect(updated.body.manifest).toMatchObject({
      project: 'other-project',
      agents: ['support'],
      platforms: [],
    });
    expect(Date.parse(updated.body.manifest.appliedAt)).toBeGreaterThanOrEqual(Date.parse(before.appliedAt));
    // Only the project's name changes: that is a change too.
    expect((await put({ ...MANIFEST, project: 'shop' })).body.result).toBe('updated');
    expect((await put({ ...MANIFEST, project: null })).body.manifest.project).toBeNull();
  });

  it('takes an absent project as null, and empty lists (a project that declares nothing)', async () => {
    const empty = { agents: [], platforms: [], entityTypes: [], relationshipTypes: [], watchers: [] };
    const res = await put(empty);
    expect(res.status).toBe(200);
    expect(res.body.manifest).toMatchObject({ project: null, ...empty });
  });

  it("finds a platform's agent by its slugified ID, as stable IDs are built", async () => {
    const res = await put({
      agents: ['eu--ops'],
      platforms: [stablePlatformId('eu--ops', 'team_chat')],
      entityTypes: [],
      relationshipTypes: [],
      watchers: [],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.manifest.platforms).toEqual(['eu-ops-team-chat']);
  });
});

describe('what it refuses (400 validation_failed, nothing stored)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['an agentId with a capital', { agents: ['Support'] }, '/body/agents/0'],
    ['an empty agentId, beside a platform', { agents: ['', '!!!'] }, '/body/agents/0'],
    ['an agentId that is not a string', { agents: [7] }, '/body/agents/0'],
    ['a stable ID that is not a string', { platforms: [null] }, '/body/platforms/0'],
    ['lists that are not lists', { agents: 'support', platforms: {} }, '/body/agents'],
    ['a stable ID that is no slug', { platforms: ['support_team_chat'] }, '/body/platforms/0'],
    ['a stable ID of one segment', { agents: ['support'], platforms: ['support'] }, '/body/platforms/0'],
    ['a platform of no declared agent', { platforms: ['billing-team-chat'] }, '/body/platforms/0'],
    ['an id listed twice', { watchers: ['daily', 'weekly', 'daily'] }, '/body/watchers/2'],
    ['a slug with a space', { entityTypes: ['a person'] }, '/body/entityTypes/0'],
    ['a missing list', { relationshipTypes: undefined }, '/body/relationshipTypes'],
    ['an unknown key', { secrets: ['OPENAI_API_KEY'] }, '/body/secrets'],
    ['a project name with a newline', { project: 'shop\nevil' }, '/body/project'],
    ['an empty project name', { project: '' }, '/body/project'],
    [
      'more ids of a kind than allowed',
      { entityTypes: Array.from({ length: APPLY_MANIFEST_MAX_IDS + 1 }, (_, i) => `t${i}`) },
      '/body/entityTypes',
    ],
  ];

  it.each(cases)('%s', async (_name, change, path) => {
    const before = await rowVersion('default');
    const res = await put({ ...MANIFEST, ...change });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await rowVersion('default')).toBe(before);
  });
});

describe('orgs and scopes', () => {
  it("keeps each org's manifest apart", async () => {
    expect((await get('other')).body).toEqual({ manifest: null });
    expect((await put({ ...MANIFEST, project: 'theirs' }, 'other')).status).toBe(201);
    expect((await get('other')).body.manifest.project).toBe('theirs');
    expect((await get()).body.manifest.project).not.toBe('theirs');
  });

  it('lets a read token read it but not write it; a token of another org sees no org', async () => {
    const reader = (await createToken(server, 'default', ['read'])).secret;
    expect((await get('default', reader)).status).toBe(200);
    const refused = await put(MANIFEST, 'default', reader);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    const outsider = (await createToken(server, 'other', ['write'])).secret;
    expect((await put(MANIFEST, 'default', outsider)).status).toBe(404);
    expect((await get('default', outsider)).status).toBe(404);
  });
});
