import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
});

const notes = (version: string, extra = '') => `
import { type ActionResult, ConnectorRuntime, type SyncResult } from '@svc/connector-sdk';
export default class Notes extends ConnectorRuntime {
  readonly definition = {
    key: 'acme.notes',
    name: 'Acme Notes',
    version: '${version}',
    feeds: { notes: { key: 'notes', name: 'Notes' } },
    ${extra}
  };
  async sync(): Promise<SyncResult> { return { events: [], checkpoint: null }; }
  async execute(): Promise<ActionResult> { return { success: false, error: 'no actions' }; }
}`;

const install = (body: unknown, token?: string) =>
  server.call('POST', '/api/default/connectors', { body, ...(token ? { token } : {}) });

describe('POST /api/:org/connectors', () => {
  it('installs a bundled connector by name, once', async () => {
    const first = await install({ package: 'rss' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({
      result: 'created',
      connector: { connectorKey: 'rss', package: 'rss', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
    });
    expect(first.body.connector.definition.feeds).toBeDefined();
    expect((await install({ package: 'rss' })).body.result).toBe('unchanged');
  });

  it("installs TypeScript source written for Lobu's SDK, and upgrades it in place", async () => {
    const created = await install({ source: notes('1.0.0') });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.connector).toMatchObject({
      connectorKey: 'acme.notes',
      version: '1.0.0',
      package: null,
    });
    const upgraded = await install({
      source: notes('1.1.0'),
      entityLinkOverrides: { author: { maskIdentities: ['email'] } },
    });
    expect(upgraded.body).toMatchObject({ result: 'updated', connector: { version: '1.1.0' } });
    // Overrides absent from a later install stay as they were.
    const again = await install({ source: notes('1.1.0') });
    expect(again.body).toMatchObject({
      result: 'unchanged',
      connector: { entityLinkOverrides: { author: { maskIdentities: ['email'] } } },
    });
    const list = await server.call('GET', '/api/default/connectors');
    expect(list.body.connectors.map((c: { connectorKey: string }) => c.connectorKey)).toEqual([
      'acme.notes',
      'rss',
    ]);
    expect((await server.call('GET', '/api/default/connectors/acme.notes')).body.connector.version).toBe(
      '1.1.0',
    );
    expect((await server.call('GET', '/api/default/connectors/nope')).status).toBe(404);
  });

  it('lists every problem of a definition at once, and installs nothing', async () => {
    const res = await install({
      source: notes('one', "feeds: { notes: { key: 'other', name: 'Notes' } },").replace(
        "feeds: { notes: { key: 'notes', name: 'Notes' } },",
        '',
      ),
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    const paths = res.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['/definition/version', '/definition/feeds/notes/key']));
    expect((await server.call('GET', '/api/default/connectors/acme.notes')).body.connector.version).toBe(
      '1.1.0',
    );
  });

  it('says why code could not be loaded: a syntax error, a throw, an incomplete class, nix packages the workers lack', async () => {
    const broken = await install({
      source: "import { Connector } from '@svc/connector-sdk';\nconst a = ;\n",
    });
    expect(broken).toMatchObject({ status: 422, body: { errors: [{ path: '/body/source' }] } });
    expect(broken.body.detail).toMatch(/line 2:11: Unexpected ";"/);
    const thrown = await install({ source: "throw new Error('needs a config file');" });
    expect(thrown).toMatchObject({ status: 422, body: { errors: [{ path: '/body/source' }] } });
    expect(thrown.body.detail).toMatch(/needs a config file/);
    const incomplete = await install({
      source: notes('1.0.0').replace(/async sync\(\)[^\n]*\n/, ''),
    });
    expect(incomplete.body.detail).toMatch(
      /Notes is not a complete connector: it has no `sync\(ctx\)` method/,
    );
    const nix = await install({
      source: notes('2.0.0', "runtime: { platforms: ['linux'], nix: { packages: ['ffmpeg', 'yt-dlp'] } },"),
    });
    expect(nix).toMatchObject({
      status: 422,
      body: { errors: [{ path: '/definition/runtime/nix/packages' }] },
    });
    expect(nix.body.detail).toMatch(/ffmpeg, yt-dlp/);
    expect((await install({ package: 'left-pad' })).body.errors[0].path).toBe('/body/package');
  });

  it('takes posted source only where the operator allows it', async () => {
    const locked = await startTestServer();
    const res = await locked.call('POST', '/api/default/connectors', { body: { source: notes('1.0.0') } });
    expect(res).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(res.body.detail).toMatch(/SVC_CONNECTOR_SOURCE_INSTALLS=on/);
    expect((await locked.call('POST', '/api/default/connectors', { body: { package: 'rss' } })).status).toBe(
      201,
    );
  });

  it('is for admins: a write token may not install code', async () => {
    const { secret } = await createToken(server, 'default', ['write', 'read']);
    expect((await install({ package: 'rss' }, secret)).status).toBe(403);
  });
});

describe('on a host where the OS sandbox cannot start', () => {
  it('refuses posted source, saying what is missing, and still installs bundled connectors', async () => {
    const was = process.env.SVC_BWRAP_PATH;
    process.env.SVC_BWRAP_PATH = '/nonexistent/bwrap';
    try {
      const bare = await startTestServer({ connectorSourceInstalls: 'on' });
      const posted = await bare.call('POST', '/api/default/connectors', { body: { source: notes('1.0.0') } });
      expect(posted.status).toBe(403);
      expect(posted.body).toMatchObject({
        code: 'sandbox_unavailable',
        detail:
          'posted connector source runs only in the OS sandbox, and bubblewrap is not at /nonexistent/bwrap (SVC_BWRAP_PATH); or run bundled connectors only',
      });
      expect((await bare.call('GET', '/api/default/connectors')).body.connectors).toEqual([]);
      const bundled = await bare.call('POST', '/api/default/connectors', { body: { package: 'rss' } });
      expect(bundled.status, JSON.stringify(bundled.body)).toBe(201);
      await bare.close();
    } finally {
      if (was === undefined) delete process.env.SVC_BWRAP_PATH;
      else process.env.SVC_BWRAP_PATH = was;
    }
  }, 60_000);
});

describe('GET /api/:org/connector-packages', () => {
  it('lists the bundled connectors with their auth methods, and which the org has installed', async () => {
    const fresh = await startTestServer();
    expect((await fresh.call('POST', '/api/orgs', { body: { slug: 'elsewhere' } })).status).toBe(201);
    const list = async (org = 'default', token?: string) => {
      const res = await fresh.call('GET', `/api/${org}/connector-packages`, token ? { token } : {});
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.packages;
    };
    const before = await list();
    expect(before).toEqual([
      {
        package: 'code-host',
        key: 'code-host',
        name: 'Code host',
        description: expect.stringContaining('Issues and pull requests'),
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        authMethods: ['oauth'],
        installed: false,
        installedVersion: null,
      },
      {
        package: 'rss',
        key: 'rss',
        name: 'RSS and Atom',
        description: expect.any(String),
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        authMethods: ['none'],
        installed: false,
        installedVersion: null,
      },
    ]);

    // Each is installed by the name it is listed under, in one org only.
    const [, rss] = before;
    expect(
      (await fresh.call('POST', '/api/default/connectors', { body: { package: rss.package } })).status,
    ).toBe(201);
    const reader = await createToken(fresh, 'default', ['read']);
    expect(await list('default', reader.secret)).toMatchObject([
      { package: 'code-host', installed: false, installedVersion: null },
      { package: 'rss', installed: true, installedVersion: rss.version },
    ]);
    expect((await list('elsewhere')).map((p: { installed: boolean }) => p.installed)).toEqual([false, false]);

    // An older version installed shows as such: the listing tells an upgrade from a first install.
    await fresh.pool.query("UPDATE connector_definitions SET version = '0.0.1' WHERE connector_key = 'rss'");
    expect((await list()).find((p: { key: string }) => p.key === 'rss')).toMatchObject({
      installed: true,
      installedVersion: '0.0.1',
      version: rss.version,
    });

    const messages = await createToken(fresh, 'default', ['messages']);
    const refused = await fresh.call('GET', '/api/default/connector-packages', { token: messages.secret });
    expect(refused).toMatchObject({ status: 403, body: { code: 'forbidden' } });
  }, 60_000);
});
