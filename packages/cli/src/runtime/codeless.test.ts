import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMcpHttp } from '../../../server/test/fakes/mcp-http.js';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { type RecordingProxy, startRecordingProxy } from '../../test/recording-proxy.js';
import { exited, svc } from '../../test/run-svc.js';
import type { RuntimeIo } from './api.js';
import { connectorRefresh } from './codeless.js';
import { connectorInstall, connectorList } from './connectors.js';

/**
 * Connectors without code from the command line, against a real server: a definition file
 * (an OpenAPI description by URL, an MCP server) installed, its generated actions shown, the
 * upstream changed and read again with `svc connector refresh`.
 */

/** An OpenAPI description the test changes between install and refresh, served on 127.0.0.1. */
let description = '';
const petstoreSpec = (operations: string) => `openapi: 3.0.3
info: { title: Petstore, version: 1.0.0 }
servers: [{ url: https://pets.example/v1 }]
components:
  securitySchemes:
    api_key: { type: apiKey, in: header, name: X-Api-Key }
security: [{ api_key: [] }]
paths:
${operations}`;
const LIST_AND_CREATE = `  /pets:
    get:
      operationId: listPets
      tags: [pets]
      responses: { '200': { description: the pets } }
    post:
      operationId: createPet
      tags: [pets]
      requestBody:
        content: { application/json: { schema: { type: object, properties: { name: { type: string } } } } }
      responses: { '201': { description: created } }
  /pets/{petId}/photo:
    post:
      operationId: uploadPhoto
      tags: [pets]
      parameters:
        - { name: petId, in: path, required: true, schema: { type: string } }
        - { name: session, in: cookie, required: true, schema: { type: string } }
      responses: { '200': { description: uploaded } }
  /store:
    get:
      operationId: storeInventory
      tags: [store]
      responses: { '200': { description: the stock } }
`;
const LIST_AND_DELETE = `  /pets:
    get:
      operationId: listPets
      tags: [pets]
      responses: { '200': { description: the pets } }
  /pets/{petId}:
    delete:
      operationId: deletePet
      tags: [pets]
      parameters: [{ name: petId, in: path, required: true, schema: { type: string } }]
      responses: { '204': { description: gone } }
`;

let server: TestServer;
let proxy: RecordingProxy;
let admin: string;
let reader: string;
let dir: string;
let specUrl: string;

beforeAll(async () => {
  const upstream = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/yaml' });
    res.end(description);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
  specUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/openapi.yaml`;
  description = petstoreSpec(LIST_AND_CREATE);
  server = await startTestServer();
  proxy = await startRecordingProxy(server.url);
  admin = (await createToken(server, 'default', ['admin'])).secret;
  reader = (await createToken(server, 'default', ['read'])).secret;
  dir = await mkdtemp(join(tmpdir(), 'svc-codeless-'));
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await rm(dir, { recursive: true, force: true });
});

type TestIo = RuntimeIo & { lines: string[]; errors: string[] };

function io(token = admin): TestIo {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    env: { SVC_URL: proxy.url, SVC_API_TOKEN: token, XDG_CONFIG_HOME: dir },
    out: (line) => lines.push(line),
    err: (line) => errors.push(line),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    pollMs: 100,
    lines,
    errors,
  };
}

async function failure(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the command to fail');
}

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

const petstoreYaml = () => `# The petstore's pets, without code: the actions come from its description.
key: petstore
name: Petstore
version: 1.0.0
openapiConfig:
  specUrl: ${specUrl}
  includeTags: [pets]
authSchema:
  methods:
    - type: env_keys
      fields:
        - { key: api_key, secret: true }
requiresApproval:
  listPets: true
`;

describe('svc connector install <definition file>', () => {
  it('installs an OpenAPI definition: posts {definition, requiresApproval}, prints the actions, what was skipped and how to connect', async () => {
    const path = await file('petstore.yaml', petstoreYaml());
    const session = io();
    await connectorInstall(path, {}, session);
    expect(JSON.parse(proxy.requests.at(-1)!.body)).toEqual({
      definition: {
        key: 'petstore',
        name: 'Petstore',
        version: '1.0.0',
        openapiConfig: { specUrl, includeTags: ['pets'] },
        authSchema: { methods: [{ type: 'env_keys', fields: [{ key: 'api_key', secret: true }] }] },
      },
      requiresApproval: { listPets: true },
    });
    // listPets is a GET, which needs no approval unless the file says so; createPet is a POST.
    expect(session.lines).toEqual([
      'created connector petstore 1.0.0 (Petstore)',
      'ACTION     APPROVAL  HINTS',
      'listPets   required  idempotent,open-world',
      'createPet  required  open-world',
    ]);
    expect(session.errors[0]).toBe('2 actions generated from its OpenAPI description');
    expect(session.errors).toContainEqual(
      expect.stringMatching(/^skipped uploadPhoto: .*cookie parameter "session"/),
    );
    expect(session.errors.at(-1)).toBe(
      'connect it: svc connection create petstore --credential api_key=<ENV_VAR>',
    );

    const again = io();
    await connectorInstall(path, {}, again);
    expect(again.lines[0]).toBe('unchanged connector petstore 1.0.0 (Petstore)');

    const list = io(reader);
    await connectorList({}, list);
    expect(list.lines).toContainEqual(
      expect.stringMatching(/^petstore\s+1\.0\.0\s+openapi\s+-\s+listPets,createPet\s+api_key\s+/),
    );
  });

  it('refreshes it after the description changed: the actions added and removed', async () => {
    description = petstoreSpec(LIST_AND_DELETE);
    const session = io();
    await connectorRefresh('petstore', {}, session);
    expect(JSON.parse(proxy.requests.at(-1)!.body)).toEqual({});
    expect(session.lines).toEqual([
      'updated connector petstore 1.0.0 (Petstore): 1 action added, 1 removed',
      'added    deletePet',
      'removed  createPet',
    ]);
    const json = io();
    await connectorRefresh('petstore', { json: true }, json);
    const answer = JSON.parse(json.lines.join('\n'));
    expect(answer).toMatchObject({ result: 'unchanged', added: [], removed: [] });
    expect(Object.keys(answer.connector.definition.actions)).toEqual(['listPets', 'deletePet']);
    expect(answer.connector.definition.actions.deletePet).toMatchObject({
      requiresApproval: true,
      annotations: { destructiveHint: true },
    });
  });

  it("installs an MCP server's tools as actions", async () => {
    const mcp = await startFakeMcpHttp();
    const path = await file(
      'notes.json',
      JSON.stringify(
        { key: 'notes-mcp', name: 'Notes', version: '1.0.0', mcpConfig: { upstreamUrl: mcp.url } },
        null,
        2,
      ),
    );
    const session = io();
    await connectorInstall(path, { json: true }, session);
    const { result, connector } = JSON.parse(session.lines.join('\n'));
    expect(result).toBe('created');
    expect(connector).toMatchObject({
      package: null,
      generated: { kind: 'mcp', skipped: [], warning: null },
    });
    expect(Object.keys(connector.definition.actions).sort()).toEqual(['add', 'lookup', 'wipe']);
  });

  it("prints the server's problems at the file's lines: a definition with feeds", async () => {
    const path = await file(
      'feedy.yaml',
      `key: feedy\nname: Feedy\nversion: 1.0.0\nopenapiConfig:\n  specUrl: ${specUrl}\nfeeds:\n  items: { key: items, name: Items }\n`,
    );
    const message = await failure(() => connectorInstall(path, {}, io()));
    expect(message.split('\n')).toEqual([
      expect.stringMatching(/^POST \/api\/default\/connectors: .* \(validation_failed\)$/),
      expect.stringMatching(
        new RegExp(`^  ${path}:6:1: /(body/)?definition/feeds: feeds are synced by code`),
      ),
      `fix the definition in ${path} and install it again (svc connector install ${path})`,
    ]);
  });

  it("points at the URL's line when the server cannot read the upstream", async () => {
    const path = await file(
      'gone.yaml',
      'key: gone\nname: Gone\nversion: 1.0.0\nopenapiConfig:\n  specUrl: http://127.0.0.1:1/openapi.yaml\n',
    );
    const message = await failure(() => connectorInstall(path, {}, io()));
    expect(message).toMatch(new RegExp(`\\n  ${path}:5:3: /definition/openapiConfig/specUrl: `));
    expect(message.split('\n').at(-1)).toBe(
      `check the upstream's URL in ${path}, and that the server may reach it (its operator's SVC_EGRESS_ALLOW); then install it again`,
    );
  });

  it('sends nothing for a file with a syntax error', async () => {
    const from = proxy.requests.length;
    const path = await file('broken.yaml', 'key: broken\nname: [Broken\nversion: 1.0.0\n');
    expect((await failure(() => connectorInstall(path, {}, io()))).split('\n')[0]).toMatch(
      new RegExp(`^${path}:3:1: `),
    );
    expect(proxy.requests.length).toBe(from);
  });
});

describe('svc connector refresh', () => {
  it('says why a connector with code, an unknown one, or a read token is refused', async () => {
    const rss = io();
    await connectorInstall('rss', {}, rss);
    const code = await failure(() => connectorRefresh('rss', {}, io()));
    expect(code).toMatch(/^POST \/api\/default\/connectors\/rss\/refresh: .*\(validation_failed\)\n/);
    expect(code.split('\n').at(-1)).toBe(
      'only a connector installed from a definition (openapiConfig or mcpConfig) is refreshed; one with code changes when its code is installed again (svc connector install ./connector.ts)',
    );
    const unknown = await failure(() => connectorRefresh('nope', {}, io()));
    expect(unknown).toMatch(/\(not_found\)\nsvc connector list shows the org's connectors$/);
    const scope = await failure(() => connectorRefresh('petstore', {}, io(reader)));
    expect(scope.split('\n').at(-1)).toBe(
      'refreshing a connector needs an admin token: svc login --token <ADMIN_TOKEN>',
    );
    expect(await failure(() => connectorRefresh('petstore', { connection: 'first' }, io()))).toBe(
      '"first" is not a connection id: ids are numbers (svc connection list)',
    );
  });

  it('as a process: exit 0 with the changes, exit 1 with the reason', async () => {
    const env = { SVC_URL: proxy.url, SVC_API_TOKEN: admin, XDG_CONFIG_HOME: dir };
    const ok = svc(['connector', 'refresh', 'petstore'], env);
    expect(await exited(ok), ok.output()).toBe(0);
    expect(ok.output()).toMatch(
      /^unchanged connector petstore 1\.0\.0 \(Petstore\): 0 actions added, 0 removed$/m,
    );
    const refused = svc(['connector', 'refresh', 'rss'], env);
    expect(await exited(refused)).toBe(1);
    expect(refused.output()).toMatch(
      /^svc connector refresh: POST \/api\/default\/connectors\/rss\/refresh: /,
    );
  });
});
