import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../../test/harness.js';

/**
 * A client generated from the served document, the way a user makes one: openapi-typescript for
 * the types, openapi-fetch for the calls. The program below must type-check without a cast, a
 * variant that sends a wrong field must not, and the program must work against the server.
 */
const PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Problem = components['schemas']['Problem'];
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export async function run(baseUrl: string, adminPassword: string) {
  const admin = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${adminPassword}\` } });
  const token = await admin.POST('/api/{org}/tokens', {
    params: { path: { org: 'default' } },
    body: { name: 'generated-client', scopes: ['read', 'write', 'messages'] },
  });
  if (!token.data) throw new Error(token.error.detail);
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token.data.secret}\` } });

  const agent = await client.POST('/api/{org}/agents', {
    params: { path: { org: 'default' } },
    body: { agentId: 'support', name: 'Support' },
  });
  const settings = await client.PATCH('/api/{org}/agents/{id}/config', {
    params: { path: { org: 'default', id: 'support' } },
    body: { 'IDENTITY.md': '# Support', guardrails: null },
  });
  const platform = await client.PUT('/api/{org}/agents/{id}/platforms/by-stable-id/{stableId}', {
    params: { path: { org: 'default', id: 'support', stableId: 'support-team-chat-main' } },
    body: { type: 'team_chat', name: 'Main', config: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN', channel: 'C1' } },
  });
  const listed = await client.GET('/api/{org}/agents', {
    params: { path: { org: 'default' }, query: { include: ['config', 'platforms'] } },
  });
  const message = await client.POST('/api/v1/agents/{agentId}/messages', {
    params: { path: { agentId: 'support' } },
    body: { platform: 'api', content: 'hello' },
  });

  const org = { org: 'default' };

  // One call or more of every group of operations, each id passed on as an answer gave it.
  const healthy = await client.GET('/healthz');
  const whoami = await client.GET('/api/whoami');
  const orgs = await admin.GET('/api/orgs');
  const session = await client.GET('/api/session');
  // The platform's signing secret: secrets are the admin's.
  const secret = await admin.PUT('/api/{org}/secrets/{name}', {
    params: { path: { ...org, name: 'SLACK_SIGNING_SECRET' } },
    body: { value: 'not shown again' },
  });
  const platforms = await client.GET('/api/{org}/agents/{id}/platforms', {
    params: { path: { ...org, id: 'support' } },
  });
  const stableId = platforms.data?.platforms[0]?.stableId ?? 'none';
  // WhatsApp's subscription check, asked of a team chat platform: there is no such WhatsApp platform.
  const webhook = await client.GET('/api/v1/webhooks/{stableId}', { params: { path: { stableId } } });
  if (!message.data) throw new Error(message.error.detail);
  const sent = await client.GET('/api/v1/agents/{agentId}/messages/{messageId}', {
    params: { path: { agentId: 'support', messageId: message.data.id } },
  });
  const conversation = await client.GET('/api/v1/agents/{agentId}/conversations/{conversationId}/messages', {
    params: { path: { agentId: 'support', conversationId: message.data.conversationId } },
  });
  const approvals = await client.GET('/api/{org}/approvals', { params: { path: org } });
  // Installing code on the server is the admin's (the token may read, write and send messages).
  const connector = await admin.POST('/api/{org}/connectors', { params: { path: org }, body: { package: 'rss' } });
  const created = await client.POST('/api/{org}/connections', {
    params: { path: org },
    body: { connectorKey: 'rss', displayName: 'News' },
  });
  if (!created.data) throw new Error(created.error.detail);
  const connectionId = created.data.connection.id;
  const feedId = created.data.feeds[0]!.id;
  const connection = await client.GET('/api/{org}/connections/{connectionId}', {
    params: { path: { ...org, connectionId } },
  });
  const feed = await client.PATCH('/api/{org}/feeds/{feedId}', {
    params: { path: { ...org, feedId } },
    body: { config: { url: 'https://example.com/feed.xml' } },
  });
  const sync = await client.POST('/api/{org}/feeds/{feedId}/sync', { params: { path: { ...org, feedId } } });
  if (!sync.data) throw new Error(sync.error.detail);
  const run = await client.GET('/api/{org}/runs/{runId}', { params: { path: { ...org, runId: sync.data.run.id } } });
  const runs = await client.GET('/api/{org}/runs', { params: { path: org, query: { connectionId, feedId } } });
  // A sync run is not an auth run: the id is of the right type, and names none.
  const authRun = await client.GET('/api/{org}/auth-runs/{runId}', {
    params: { path: { ...org, runId: sync.data.run.id } },
  });
  const events = await client.GET('/api/{org}/events', { params: { path: org, query: { connectionId, feedId } } });
  const search = await client.GET('/api/{org}/search', { params: { path: org, query: { q: 'news', connectionId } } });
  const entities = await client.GET('/api/{org}/entities', { params: { path: org } });
  const relationships = await client.GET('/api/{org}/relationships', { params: { path: org } });
  const memory = await client.POST('/api/{org}/operations/manage_entity_schema', {
    params: { path: org },
    body: { action: 'list', kind: 'entity_type' },
  });
  // A watcher (yearly: nothing runs it here), a window of it now, read by the id the run-now
  // answer gave; the window's run, once it has one, is read by the id the window gave.
  const watcher = await client.POST('/api/{org}/operations/manage_entity_schema', {
    params: { path: org },
    body: {
      action: 'upsert',
      kind: 'watcher',
      item: { slug: 'digest', name: 'Digest', schedule: '0 0 1 1 *', prompt: 'Summarise.', agent: 'support' },
    },
  });
  if (!watcher.data) throw new Error(watcher.error.detail);
  const ranNow = await client.POST('/api/{org}/watchers/{slug}/run', { params: { path: { ...org, slug: 'digest' } } });
  if (!ranNow.data) throw new Error(ranNow.error.detail);
  const watchers = await client.GET('/api/{org}/watchers', { params: { path: org } });
  const window = await client.GET('/api/{org}/watchers/{slug}/windows/{windowId}', {
    params: { path: { ...org, slug: 'digest', windowId: ranNow.data.window.id } },
  });
  const windowRunId = window.data?.window.runId;
  const windowRun = windowRunId
    ? await client.GET('/api/{org}/runs/{runId}', { params: { path: { ...org, runId: windowRunId } } })
    : null;
  const windowEvents = await Promise.all(
    (window.data?.window.eventIds ?? []).map((eventId) =>
      client.GET('/api/{org}/events/{eventId}', { params: { path: { ...org, eventId } } }),
    ),
  );
  const manifest = await client.GET('/api/{org}/apply-manifest', { params: { path: org } });
  const groups = {
    agents: listed.response.status,
    operations: healthy.response.status,
    tokens: whoami.response.status,
    orgs: orgs.response.status,
    sessions: session.response.status,
    secrets: secret.response.status,
    platforms: platforms.response.status,
    webhooks: webhook.response.status,
    messages: sent.response.status,
    conversations: conversation.data?.messages.map((m) => m.id === message.data.id),
    approvals: approvals.response.status,
    connectors: connector.response.status,
    connections: connection.data?.connection.id === connectionId,
    feeds: feed.response.status,
    runs: [run.data?.run.id === sync.data.run.id, runs.data?.runs.map((r) => r.feedId === feedId)],
    'auth runs': authRun.response.status,
    events: events.response.status,
    search: search.response.status,
    entities: entities.response.status,
    relationships: relationships.response.status,
    memory: memory.response.status,
    watchers: [
      watchers.data?.watchers.map((w) => w.lastWindow?.id === ranNow.data.window.id),
      window.data?.window.id === ranNow.data.window.id,
      windowRun?.data?.run.id ?? null,
      windowEvents.length,
    ],
    apply: manifest.data?.manifest,
  };

  const missing = await client.GET('/api/{org}/agents/{id}', {
    params: { path: { org: 'default', id: 'nobody' } },
  });
  // Every error answer of an operation is the one problem type, whatever its status.
  const errorIsProblem: Same<NonNullable<typeof missing.error>, Problem> = true;
  let problem: Problem | undefined;
  if (missing.error) problem = missing.error;

  return {
    errorIsProblem,
    agent: { status: agent.response.status, result: agent.data?.result },
    settings: { status: settings.response.status, changed: settings.data?.changed },
    platform: { status: platform.response.status, config: platform.data?.platform.config },
    listed: {
      status: listed.response.status,
      identity: listed.data?.agents[0]?.config?.['IDENTITY.md'],
      platforms: listed.data?.agents[0]?.platforms?.map((p) => p.stableId),
    },
    message: { status: message.response.status, state: message.data?.status },
    groups,
    missing: {
      status: missing.response.status,
      contentType: missing.response.headers.get('content-type'),
      code: problem?.code,
    },
  };
}
`;

/**
 * Each changes one thing that the document says the server refuses. (An extra field is not among
 * them: openapi-fetch infers the body's type, so TypeScript's excess-property check does not run.)
 */
const WRONG: [string, string, string][] = [
  [
    'a platform config that is not a table',
    "config: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN', channel: 'C1' }",
    "config: 'C1'",
  ],
  ['a scope that does not exist', "scopes: ['read', 'write', 'messages']", "scopes: ['read', 'root']"],
  ['an include that does not exist', "include: ['config', 'platforms']", "include: ['config', 'secrets']"],
  ['an include as a comma string', "include: ['config', 'platforms']", "include: 'config,platforms'"],
  ['an agent name that is not a string', "name: 'Support' }", 'name: 42 }'],
  ['a setting of the wrong type', "'IDENTITY.md': '# Support'", "'IDENTITY.md': ['# Support']"],
  [
    'a path parameter by the wrong name',
    "{ org: 'default', id: 'support' }",
    "{ org: 'default', agent: 'support' }",
  ],
  ['a message without content', "content: 'hello'", "text: 'hello'"],
  [
    "a row's id as text",
    'params: { path: { ...org, connectionId } }',
    'params: { path: { ...org, connectionId: String(connectionId) } }',
  ],
  ['a filter id as text', "query: { q: 'news', connectionId }", "query: { q: 'news', connectionId: '1' }"],
  ["a window's id as text", 'windowId: ranNow.data.window.id', 'windowId: String(ranNow.data.window.id)'],
  ["a window's run id as text", 'runId: windowRunId }', 'runId: String(windowRunId) }'],
];

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

function errorsOf(program: ts.Program, file: string): string[] {
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${file} is not part of the program`);
  return ts
    .getPreEmitDiagnostics(program, source)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('a client generated from the OpenAPI document', () => {
  let server: TestServer;
  let dir: string;
  let program: ts.Program;
  let tags: string[];
  beforeAll(async () => {
    server = await startTestServer({ secretEnv: { SLACK_BOT_TOKEN: 'xoxb-test' } });
    const res = await server.call('GET', '/openapi.json', { token: null });
    expect(res.status).toBe(200);
    tags = res.body.tags.map((tag: { name: string }) => tag.name);
    dir = await mkdtemp(join(tmpdir(), 'svc-openapi-client-'));
    // The generated program resolves openapi-fetch as a user's project would: from node_modules.
    await symlink(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await writeFile(join(dir, 'api.ts'), astToString(await openapiTS(res.body)));
    await writeFile(join(dir, 'client.ts'), PROGRAM);
    for (const [index, [, from, to]] of WRONG.entries()) {
      expect(PROGRAM, `the program to change for wrong-${index}`).toContain(from);
      await writeFile(join(dir, `wrong-${index}.ts`), PROGRAM.replace(from, to));
    }
    program = ts.createProgram(
      [join(dir, 'client.ts'), ...WRONG.map((_, index) => join(dir, `wrong-${index}.ts`))],
      {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        types: [],
        // The libraries' own declarations are theirs to check; the generated api.ts is checked.
        skipLibCheck: true,
      },
    );
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('type-checks a program that calls every group of operations, passing ids as answers gave them', () => {
    expect(errorsOf(program, join(dir, 'api.ts'))).toEqual([]);
    expect(errorsOf(program, join(dir, 'client.ts'))).toEqual([]);
  });

  it.each(WRONG.map(([label], index) => [label, index] as const))('refuses %s', (_label, index) => {
    expect(errorsOf(program, join(dir, `wrong-${index}.ts`)).length).toBeGreaterThan(0);
  });

  it('runs that program against the server', async () => {
    const file = join(dir, 'client.mjs');
    const js = ts.transpileModule(PROGRAM, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    }).outputText;
    await writeFile(file, js);
    const { run } = await import(/* @vite-ignore */ pathToFileURL(file).href);
    const result = await run(server.url, ADMIN_PASSWORD);
    // A group the document gains is a group the program must call.
    expect(Object.keys(result.groups).sort()).toEqual([...tags].sort());
    expect(result).toEqual({
      errorIsProblem: true,
      agent: { status: 201, result: 'created' },
      settings: { status: 200, changed: ['IDENTITY.md'] },
      platform: {
        status: 201,
        config: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN', channel: 'C1' },
      },
      listed: { status: 200, identity: '# Support', platforms: ['support-team-chat-main'] },
      message: { status: 202, state: 'queued' },
      missing: { status: 404, contentType: 'application/problem+json', code: 'not_found' },
      groups: {
        agents: 200,
        operations: 200,
        tokens: 200,
        orgs: 200,
        // A bearer token is not a console session.
        sessions: 404,
        secrets: 201,
        platforms: 200,
        webhooks: 404,
        messages: 200,
        conversations: [true],
        approvals: 200,
        connectors: 201,
        connections: true,
        feeds: 200,
        runs: [true, [true]],
        'auth runs': 404,
        events: 200,
        search: 200,
        entities: 200,
        relationships: 200,
        memory: 200,
        // The window is the watcher's last; new, it has no run or events yet.
        watchers: [[true], true, null, 0],
        apply: null,
      },
    });
  });
});
