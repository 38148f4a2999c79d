import { randomBytes } from 'node:crypto';
import { SCOPES, type Scope, stablePlatformId } from '@svc/core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  createToken,
  startTestServer,
  type TestServer,
  testAppOptions,
} from '../../test/harness.js';
import { SLACK_CONFIG, TELEGRAM_CONFIG } from '../../test/platform-configs.js';
import { buildApp, type RegisteredRoute } from '../app.js';
import type { RouteAuth } from '../http/types.js';

/**
 * The authorization matrix, generated from the server's own route table: every protected route is
 * sent with every kind of credential, and the answer must follow section 7 of the design (401 for
 * missing or bad credentials, 404 for another org, 403 for a missing scope). A route added later
 * is picked up without touching this file.
 */

/** The org whose routes are exercised. */
const ORG = 'default';
/** An org whose tokens must not see ORG at all. */
const OTHER = 'other';
/** The agent that path params and bodies refer to. */
const AGENT = 'matrix';

// The route table is read while the tests are collected, so that each route gets its own cases.
// One client sends every bad credential to every route: far more failures than the throttle's
// budget of a real client, which tokens.test.ts checks.
const server: TestServer = await startTestServer({ authFailuresPerMinute: 1_000_000 });

type Guard = Exclude<RouteAuth, 'public'>;
type GuardedRoute = RegisteredRoute & { auth: Guard };

const label = (route: RegisteredRoute) => `${route.method} ${route.url}`;
const allRoutes = server.routes();

/** Every protected route, without the HEAD twins Fastify adds to GET routes. */
const guarded: GuardedRoute[] = allRoutes.filter(
  (route): route is GuardedRoute =>
    route.auth !== undefined &&
    route.auth !== 'public' &&
    !(route.method === 'HEAD' && allRoutes.some((r) => r.method === 'GET' && r.url === route.url)),
);

// ---- credentials ------------------------------------------------------------------------------

/** Who the server should take a credential's bearer for. */
type Caller =
  | { kind: 'invalid' }
  | { kind: 'admin_password' }
  | { kind: 'token'; org: string; scopes: Scope[] };

interface Credential {
  name: string;
  caller: Caller;
  /** Makes whatever the credential needs (a token, an expiry) and answers its Authorization header. */
  header: () => Promise<string | undefined>;
}

const bearer = (value: string) => `Bearer ${value}`;

/** Every non-empty combination of scopes, so that the implication rules are checked exhaustively. */
const scopeSets: Scope[][] = Array.from({ length: 2 ** SCOPES.length - 1 }, (_, i) =>
  SCOPES.filter((_scope, bit) => ((i + 1) >> bit) & 1),
);

const invalid = (name: string, header: () => Promise<string | undefined>): Credential => ({
  name,
  caller: { kind: 'invalid' },
  header,
});
const tokenOf = (name: string, org: string, scopes: Scope[]): Credential => ({
  name,
  caller: { kind: 'token', org, scopes },
  header: async () => bearer((await createToken(server, org, scopes)).secret),
});

const CREDENTIALS: Credential[] = [
  invalid('no Authorization header', async () => undefined),
  invalid(
    'another auth scheme',
    async () => `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`,
  ),
  invalid('a malformed bearer value', async () => 'Bearer garbage'),
  invalid('a well-formed unknown token', async () => bearer(`svc_${randomBytes(32).toString('base64url')}`)),
  invalid('an expired admin token', async () => bearer(await expiredToken())),
  invalid('a revoked admin token', async () => bearer(await revokedToken())),
  tokenOf(`a token of org ${OTHER} with every scope`, OTHER, [...SCOPES]),
  ...scopeSets.map((scopes) => tokenOf(scopeSetName(scopes), ORG, scopes)),
  {
    name: 'the admin password',
    caller: { kind: 'admin_password' },
    header: async () => bearer(ADMIN_PASSWORD),
  },
];

function scopeSetName(scopes: Scope[]): string {
  return `a token with [${scopes.join(', ')}]`;
}

/** The Authorization header of each credential, filled in by `beforeAll`. */
const authorization = new Map<Credential, string | undefined>();

function credentialNamed(name: string): Credential {
  const credential = CREDENTIALS.find((c) => c.name === name);
  if (!credential) throw new Error(`no credential named ${name}`);
  return credential;
}

/** The header of a credential, for the hand-written tests below the matrix. */
const headerOf = (name: string) => authorization.get(credentialNamed(name)) as string;

// ---- expectations -----------------------------------------------------------------------------

type Outcome = 'unauthorized' | 'not_found' | 'forbidden' | 'allowed';

/** Scope rules of section 7, written out here rather than imported, so that the code is checked. */
function grants(scopes: Scope[], needed: Guard['scope']): boolean {
  if (needed === 'deployment_admin') return false; // the admin password only, never an API token
  if (needed === 'authenticated') return true; // any valid token, whatever its scopes
  if (scopes.includes('admin')) return true;
  if (needed === 'read' && scopes.includes('write')) return true;
  return scopes.includes(needed);
}

function expectedOutcome(auth: Guard, caller: Caller): Outcome {
  if (caller.kind === 'invalid') return 'unauthorized';
  if (caller.kind === 'admin_password') return 'allowed';
  // The org is resolved before the scope is checked: another org is simply not there.
  if (auth.org && caller.org !== ORG) return 'not_found';
  return grants(caller.scopes, auth.scope) ? 'allowed' : 'forbidden';
}

const PROBLEM = { unauthorized: 401, forbidden: 403, not_found: 404 } as const;

// ---- requests ---------------------------------------------------------------------------------

/** Resources the path params point at; they exist in ORG so allowed requests reach real work. */
const fixtures = {
  tokenId: '',
  messageId: '',
  conversationId: '',
  fileId: '',
  connectionId: '',
  feedId: '',
  entityId: '',
  // rss has no actions: the action route gets a code-host connection (its add_label needs no approval).
  actionConnectionId: '',
  // A connector with browser auth for the browser-session route (no bundled connector has it).
  browserConnectionId: '',
  runId: '',
  eventId: '',
  // Interactive auth: a connection of a connector with an `interactive` method, and its open auth run.
  authConnectionId: '',
  authRunId: '',
  /** An OAuth attempt of the code-host connection. */
  attemptId: '',
  /** A window of the watcher `matrix-watcher`. */
  windowId: '',
};

function paramValue(name: string): string {
  switch (name) {
    case 'org':
      return ORG;
    case 'id':
    case 'agentId':
      return AGENT;
    case 'stableId':
      return stablePlatformId(AGENT, 'team_chat');
    case 'tokenId':
      return fixtures.tokenId; // already revoked: revoking it again is a harmless "unchanged"
    case 'messageId':
      return fixtures.messageId;
    case 'conversationId':
      return fixtures.conversationId;
    case 'fileId':
      return fixtures.fileId;
    case 'approvalId':
      return '00000000-0000-4000-8000-000000000000'; // authentication runs first: any id tests the guard
    case 'name':
      return 'MATRIX_SECRET'; // PUT stores it; a repeat is "unchanged"
    case 'key':
      return 'rss'; // installed before the tests
    case 'connectionId':
      return fixtures.connectionId;
    case 'feedId':
      return fixtures.feedId;
    case 'entityId':
      return fixtures.entityId;
    case 'actionKey':
      return 'add_label';
    case 'runId':
      return fixtures.runId; // a finished sync; the routes that change a run get a fresh one
    case 'eventId':
      return fixtures.eventId;
    case 'attemptId':
      return fixtures.attemptId;
    case 'slug':
      return 'matrix-watcher';
    case 'windowId':
      return fixtures.windowId;
    default:
      // Authentication runs before params are validated, so any value tests the guard.
      return 'x';
  }
}

async function createAgent(agentId: string): Promise<void> {
  const res = await server.call('POST', `/api/${ORG}/agents`, { body: { agentId, name: agentId } });
  if (res.status >= 300) throw new Error(`agent creation failed: ${JSON.stringify(res.body)}`);
}

/** A DELETE consumes what it names, so each allowed one gets a target of its own. */
const freshTargets: Record<string, () => Promise<string>> = {
  id: async () => {
    const agentId = `doomed-${randomBytes(4).toString('hex')}`;
    await createAgent(agentId);
    return agentId;
  },
  tokenId: async () => (await createToken(server, ORG, ['read'])).id,
  connectionId: async () => {
    const res = await server.call('POST', `/api/${ORG}/connections`, { body: { connectorKey: 'rss' } });
    if (res.status >= 300) throw new Error(`connection creation failed: ${JSON.stringify(res.body)}`);
    return String(res.body.connection.id);
  },
  // An action run waiting for approval, as the action route leaves one: cancelled, approved or rejected once.
  runId: async () => {
    const { rows } = await server.pool.query<{ id: string }>(
      `INSERT INTO runs (org_id, run_type, connection_id, action_key, action_input, approval_status, connector_key)
       SELECT org_id, 'action', id, 'add_label', '{}', 'pending', connector_key FROM connections WHERE id = $1
       RETURNING id`,
      [fixtures.actionConnectionId],
    );
    return rows[0]?.id as string;
  },
  // A pending approval of the fixture message, as a paused turn would leave it.
  approvalId: async () => {
    const { rows } = await server.pool.query<{ id: string }>(
      `INSERT INTO approvals (message_id, conversation_id, org_id, agent_id, sdk_approval_id, tool_call_id, tool, input, expires_at)
       SELECT m.id, m.conversation_id, m.org_id, m.agent_id, 'sdk', $2, 'kit.wipe', '{}', now() + interval '1 hour'
         FROM messages m WHERE m.id = $1
       RETURNING id`,
      [fixtures.messageId, randomBytes(4).toString('hex')],
    );
    return rows[0]?.id as string;
  },
  name: async () => {
    const name = `DOOMED_${randomBytes(4).toString('hex').toUpperCase()}`;
    const res = await server.call('PUT', `/api/${ORG}/secrets/${name}`, { body: { value: 'doomed' } });
    if (res.status >= 300) throw new Error(`secret creation failed: ${JSON.stringify(res.body)}`);
    return name;
  },
  relationshipId: async () => {
    const { rows } = await server.pool.query<{ id: string }>(
      `INSERT INTO relationships (org_id, relationship_type, source_entity_id, target_entity_id)
       SELECT org_id, 'matrix-knows', id, id FROM entities WHERE id = $1
       ON CONFLICT (org_id, relationship_type, source_entity_id, target_entity_id) DO UPDATE SET metadata = relationships.metadata
       RETURNING id`,
      [fixtures.entityId],
    );
    return rows[0]?.id as string;
  },
  // Named messenger platforms: the fixture's unnamed one is a team_chat, so names never clash.
  stableId: async () => {
    const name = `doomed-${randomBytes(4).toString('hex')}`;
    const stableId = stablePlatformId(AGENT, 'messenger', name);
    const res = await server.call('PUT', `/api/${ORG}/agents/${AGENT}/platforms/by-stable-id/${stableId}`, {
      body: { type: 'messenger', name, config: TELEGRAM_CONFIG },
    });
    if (res.status >= 300) throw new Error(`platform creation failed: ${JSON.stringify(res.body)}`);
    return stableId;
  },
};

async function pathOf(route: RegisteredRoute, fresh: boolean): Promise<string> {
  const names = [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
  // A DELETE consumes what it names, and an approval or a run is decided (or cancelled) once:
  // each gets a fresh target.
  const once =
    route.method === 'DELETE' ||
    route.url.includes('/approvals/') ||
    (route.method === 'POST' && /\/runs\/:runId\/\w+$/.test(route.url)) ||
    // A revoke leaves the connection revoked: the fixture's must stay connected for the others.
    route.url.endsWith('/revoke');
  const target = once && fresh ? names.at(-1) : undefined;
  let path = route.url;
  for (const name of names) {
    const fresher = name === target ? freshTargets[name] : undefined;
    const value =
      name === 'connectionId' && (route.url.includes('/actions/') || route.url.includes('/oauth/'))
        ? fixtures.actionConnectionId
        : name === 'connectionId' && route.url.endsWith('/browser-session')
          ? fixtures.browserConnectionId
          : name === 'key' && route.url.endsWith('/refresh')
            ? 'matrix-inline' // a connector without code: one with code has nothing to refresh
            : name === 'connectionId' && route.url.includes('/auth-runs')
              ? fixtures.authConnectionId
              : name === 'runId' && route.url.includes('/auth-runs/')
                ? fixtures.authRunId
                : paramValue(name);
    path = path.replace(`:${name}`, fresher ? await fresher() : value);
  }
  return path + (QUERIES[label(route)] ?? '');
}

/** Query strings a route needs to reach its handler's success (a search needs words). */
const QUERIES: Record<string, string> = {
  'GET /api/:org/search': '?q=matrix',
  // Every status, so that what the fixtures left (an approval, action runs) is read too.
  'GET /api/:org/approvals': '?status=all',
  // A search that finds the fixture message.
  'GET /api/v1/agents/:agentId/conversations': '?q=FIXTURE',
};

/** Valid bodies, so that an allowed request is not turned away by validation either. */
const BODIES: Record<string, () => unknown> = {
  'POST /api/orgs': () => ({ slug: 'matrix-org' }),
  'POST /api/:org/tokens': () => ({ name: `matrix-${randomBytes(4).toString('hex')}`, scopes: ['read'] }),
  'POST /api/:org/agents': () => ({ agentId: AGENT, name: 'Matrix' }),
  'PATCH /api/:org/agents/:id/config': () => ({ 'SOUL.md': 'steady' }),
  'POST /api/:org/agents/:id/config/check': () => ({ 'SOUL.md': 'steady' }),
  'PUT /api/:org/agents/:id/platforms/by-stable-id/:stableId': () => ({
    type: 'team_chat',
    config: SLACK_CONFIG,
  }),
  'POST /api/:org/operations/manage_entity_schema': () => ({ action: 'list' }),
  // The same declaration again is "unchanged".
  'PUT /api/:org/apply-manifest': () => ({
    project: 'matrix',
    agents: [AGENT],
    platforms: [stablePlatformId(AGENT, 'team_chat')],
    entityTypes: ['person'],
    relationshipTypes: ['matrix-knows'],
    watchers: ['matrix-watcher'],
  }),
  'PUT /api/:org/secrets/:name': () => ({ value: 'matrix-value' }),
  'PATCH /api/:org/watchers/:slug': () => ({ status: 'active' }),
  // Made again, it is "unchanged".
  'POST /api/:org/relationships': () => ({
    type: 'matrix-knows',
    sourceEntityId: Number(fixtures.entityId),
    targetEntityId: Number(fixtures.entityId),
  }),
  // Installing it again is "unchanged".
  'POST /api/:org/connectors': () => ({ package: 'rss' }),
  'POST /api/:org/connections': () => ({ connectorKey: 'rss' }),
  'PATCH /api/:org/feeds/:feedId': () => ({ syncIntervalMs: 120_000 }),
  // Queued only: this server runs no connector workers.
  'POST /api/:org/connections/:connectionId/actions/:actionKey': () => ({
    input: { number: 1, labels: ['matrix'] },
  }),
  'POST /api/:org/connections/:connectionId/browser-session': () => ({
    cookies: [{ name: 'sid', value: 'matrix-session', domain: '.example.test' }],
  }),
  'POST /api/v1/agents/:agentId/approvals/:approvalId': () => ({ decision: 'approve' }),
  'POST /api/v1/agents/:agentId/messages': () => ({ platform: 'api', content: 'hello' }),
};

function bodyOf(route: RegisteredRoute): unknown {
  const body = BODIES[label(route)];
  if (body) return body();
  // The harness sends `content-type: application/json` with any body.
  return ['POST', 'PUT', 'PATCH'].includes(route.method) ? {} : undefined;
}

/** Sends `route` with the Authorization header of `credential`. */
async function send(route: GuardedRoute, credential: Credential) {
  const path = await pathOf(route, expectedOutcome(route.auth, credential.caller) === 'allowed');
  const header = authorization.get(credential);
  if (route.url.endsWith('/events')) return openStream(path, header);
  return server.call(route.method, path, {
    token: null,
    headers: header === undefined ? {} : { authorization: header },
    body: bodyOf(route),
  });
}

/**
 * The console session's own routes answer only a session (a bearer value has none: 404): the
 * credential is exchanged for one first, as the console does, and the request carries its cookie
 * and CSRF token instead.
 */
const SESSION_ROUTES = '/api/session';
async function sendAsSession(route: GuardedRoute, credential: Credential) {
  const header = authorization.get(credential) ?? '';
  const signIn = await server.call('POST', '/api/session', {
    token: null,
    body: { credential: header.replace(/^Bearer /, '') },
  });
  expect(signIn.status, JSON.stringify(signIn.body)).toBe(201);
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return server.call(route.method, route.url, {
    token: null,
    headers: { cookie, 'x-csrf-token': signIn.body.session.csrfToken },
    body: route.method === 'PATCH' ? { org: ORG } : bodyOf(route),
  });
}

/** An event stream never ends by itself: its status and headers are the answer; then it is closed. */
async function openStream(path: string, header: string | undefined) {
  const controller = new AbortController();
  const res = await fetch(`${server.url}${path}`, {
    headers: header === undefined ? {} : { authorization: header },
    signal: controller.signal,
  });
  const body = res.headers.get('content-type')?.startsWith('text/event-stream') ? null : await res.json();
  controller.abort();
  return { status: res.status, headers: res.headers, body };
}

// ---- setup ------------------------------------------------------------------------------------

async function expiredToken(): Promise<string> {
  const token = await createToken(server, ORG, ['admin'], { expiresInDays: 1 });
  // Expired before its first use, so no cached copy of the old expiry exists anywhere.
  await server.pool.query(`UPDATE api_tokens SET expires_at = now() - interval '1 hour' WHERE id = $1`, [
    token.id,
  ]);
  return token.secret;
}

async function revokedToken(): Promise<string> {
  const token = await createToken(server, ORG, ['admin']);
  // Used once first, so that the revocation must also evict the server's cached copy.
  expect((await server.call('GET', '/api/whoami', { token: token.secret })).status).toBe(200);
  expect((await server.call('DELETE', `/api/${ORG}/tokens/${token.id}`)).status).toBe(200);
  return token.secret;
}

beforeAll(async () => {
  expect((await server.call('POST', '/api/orgs', { body: { slug: OTHER } })).status).toBe(201);
  await createAgent(AGENT);
  expect((await server.call('POST', `/api/${ORG}/connectors`, { body: { package: 'rss' } })).status).toBe(
    201,
  );
  const connected = await server.call('POST', `/api/${ORG}/connections`, { body: { connectorKey: 'rss' } });
  expect(connected.status).toBe(201);
  fixtures.connectionId = String(connected.body.connection.id);
  fixtures.feedId = String(connected.body.feeds[0].id);
  // A finished sync of the feed and an event it collected, as a worker would have left them.
  const run = await server.pool.query<{ id: string }>(
    `INSERT INTO runs (org_id, run_type, feed_id, connection_id, connector_key, status, completed_at)
     SELECT org_id, 'sync', id, connection_id, 'rss', 'completed', now() FROM feeds WHERE id = $1 RETURNING id`,
    [fixtures.feedId],
  );
  fixtures.runId = run.rows[0]?.id as string;
  const event = await server.pool.query<{ id: string }>(
    `INSERT INTO events (org_id, connection_id, feed_id, run_id, origin_id, payload_text, occurred_at)
     SELECT org_id, connection_id, id, $2, 'matrix-1', 'matrix', now() FROM feeds WHERE id = $1 RETURNING id`,
    [fixtures.feedId, fixtures.runId],
  );
  fixtures.eventId = event.rows[0]?.id as string;
  const entity = await server.pool.query<{ id: string }>(
    `INSERT INTO entities (org_id, entity_type) SELECT id, 'person' FROM orgs WHERE slug = $1 RETURNING id`,
    [ORG],
  );
  fixtures.entityId = entity.rows[0]?.id as string;
  const knows = await server.call('POST', `/api/${ORG}/operations/manage_entity_schema`, {
    body: { action: 'upsert', kind: 'relationship_type', item: { slug: 'matrix-knows', name: 'Knows' } },
  });
  expect(knows.status, JSON.stringify(knows.body)).toBe(201);
  // A watcher (yearly: the scheduler never runs it here) and a window of it.
  const watcher = await server.call('POST', `/api/${ORG}/operations/manage_entity_schema`, {
    body: {
      action: 'upsert',
      kind: 'watcher',
      item: { slug: 'matrix-watcher', name: 'Matrix', schedule: '0 0 1 1 *', prompt: 'p', agent: AGENT },
    },
  });
  expect(watcher.status, JSON.stringify(watcher.body)).toBe(201);
  const window = await server.pool.query<{ id: string }>(
    `INSERT INTO watcher_windows (org_id, watcher_slug, window_start, window_end, status, completed_at)
     SELECT id, 'matrix-watcher', now() - interval '1 day', now() - interval '1 hour', 'completed', now()
       FROM orgs WHERE slug = $1 RETURNING id`,
    [ORG],
  );
  fixtures.windowId = window.rows[0]?.id as string;
  expect(
    (await server.call('POST', `/api/${ORG}/connectors`, { body: { package: 'code-host' } })).status,
  ).toBe(201);
  // A connector without code, its description given inline (refreshing it reads nothing remote).
  expect(
    (
      await server.call('POST', `/api/${ORG}/connectors`, {
        body: {
          definition: {
            key: 'matrix-inline',
            name: 'Matrix',
            version: '1.0.0',
            openapiConfig: {
              spec: { openapi: '3.1.0', info: { title: 'm', version: '1' }, paths: { '/m': { get: {} } } },
              serverUrl: 'https://api.example.com',
            },
          },
        },
      })
    ).status,
  ).toBe(201);
  // Made directly, active as if its OAuth grant were held.
  const codeHost = await server.pool.query<{ id: string }>(
    `INSERT INTO connections (org_id, connector_key, config) SELECT id, 'code-host', '{}' FROM orgs WHERE slug = $1
     RETURNING id`,
    [ORG],
  );
  fixtures.actionConnectionId = String(codeHost.rows[0]?.id);
  // Its OAuth app, so that starting the flow reaches real work (GitHub's is never called).
  for (const name of ['GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET']) {
    expect(
      (await server.call('PUT', `/api/${ORG}/secrets/${name}`, { body: { value: 'matrix' } })).status,
    ).toBe(201);
  }
  const attempt = await server.pool.query<{ id: string }>(
    `INSERT INTO oauth_attempts (state_hash, org_id, connection_id, redirect_uri, scopes, expires_at)
     SELECT 'matrix', org_id, id, 'http://127.0.0.1/cb', '{repo}', now() + interval '10 minutes' FROM connections WHERE id = $1
     RETURNING id`,
    [fixtures.actionConnectionId],
  );
  fixtures.attemptId = attempt.rows[0]?.id as string;
  const browser = await server.pool.query<{ id: string }>(
    `WITH d AS (
       INSERT INTO connector_definitions (org_id, connector_key, version, definition, source)
       SELECT id, 'matrix-browser', '1.0.0', $2, 'export default {}' FROM orgs WHERE slug = $1 RETURNING org_id)
     INSERT INTO connections (org_id, connector_key) SELECT org_id, 'matrix-browser' FROM d RETURNING id`,
    [
      ORG,
      JSON.stringify({
        key: 'matrix-browser',
        name: 'Matrix browser',
        version: '1.0.0',
        authSchema: { methods: [{ type: 'browser', requiredDomains: ['example.test'] }] },
      }),
    ],
  );
  fixtures.browserConnectionId = String(browser.rows[0]?.id);
  // An interactive connector (its code never runs: this server runs no connector workers), its
  // connection, and an auth run left pending: it takes signals, and starting one answers it.
  const interactive = await server.pool.query<{ id: string }>(
    `WITH org AS (SELECT id FROM orgs WHERE slug = $1),
          d AS (INSERT INTO connector_definitions (org_id, connector_key, version, definition, source)
                SELECT id, 'matrix-interactive', '1.0.0', $2, 'export default {}' FROM org)
     INSERT INTO connections (org_id, connector_key) SELECT id, 'matrix-interactive' FROM org RETURNING id`,
    [
      ORG,
      JSON.stringify({
        key: 'matrix-interactive',
        name: 'Matrix',
        version: '1.0.0',
        authSchema: { methods: [{ type: 'interactive' }] },
      }),
    ],
  );
  fixtures.authConnectionId = String(interactive.rows[0]?.id);
  const authRun = await server.call('POST', `/api/${ORG}/connections/${fixtures.authConnectionId}/auth-runs`);
  expect(authRun.status, JSON.stringify(authRun.body)).toBe(201);
  fixtures.authRunId = String(authRun.body.run.id);
  // In a shared conversation (a channel): the admin password's own would be 404 to a `messages` token.
  const message = await server.call('POST', `/api/v1/agents/${AGENT}/messages`, {
    body: { platform: 'api', content: 'fixture', channel: 'fixture' },
  });
  expect(message.status).toBe(202);
  fixtures.messageId = message.body.id;
  fixtures.conversationId = message.body.conversationId;
  const file = await server.pool.query<{ id: string }>(
    `INSERT INTO message_files (message_id, position, name, content_type, size, data)
     VALUES ($1, 0, 'notes.txt', 'text/plain', 5, 'notes') RETURNING id`,
    [fixtures.messageId],
  );
  fixtures.fileId = file.rows[0]?.id as string;
  const revoked = await createToken(server, ORG, ['read']);
  expect((await server.call('DELETE', `/api/${ORG}/tokens/${revoked.id}`)).status).toBe(200);
  fixtures.tokenId = revoked.id;

  for (const credential of CREDENTIALS) authorization.set(credential, await credential.header());
});

// ---- the matrix -------------------------------------------------------------------------------

describe('the route table', () => {
  it('is the real one: non-trivial, and every route declares its auth', () => {
    const labels = allRoutes.map(label);
    expect(labels).toContain('POST /api/:org/agents');
    expect(labels).toContain('PATCH /api/:org/agents/:id/config');
    expect(labels).toContain('GET /api/orgs');
    expect(labels).toEqual(expect.arrayContaining(['PUT /api/:org/secrets/:name', 'GET /api/:org/secrets']));
    expect(guarded.length).toBeGreaterThanOrEqual(15);
    expect(allRoutes.filter((r) => r.auth === undefined)).toEqual([]);
    for (const route of guarded) {
      expect([...SCOPES, 'authenticated', 'deployment_admin'], label(route)).toContain(route.auth.scope);
      // An org-scoped route must carry the org in its path, or the 404 check has nothing to compare.
      expect(route.url.includes('/:org/'), label(route)).toBe(route.auth.org);
    }
  });

  it('makes buildApp refuse to become ready while a route lacks an auth declaration', async () => {
    const options = { ...testAppOptions(server.pool), adminPassword: null };
    const { app } = await buildApp(options);
    try {
      app.get('/unguarded', async () => ({ ok: true }));
      await expect(app.ready()).rejects.toThrow(/GET \/unguarded/);
    } finally {
      await app.close().catch(() => {});
    }
    // The same route with a declaration is accepted: the refusal is about the declaration alone.
    const declared = await buildApp(options);
    try {
      declared.app.get('/unguarded', { config: { auth: 'public' } }, async () => ({ ok: true }));
      await expect(declared.app.ready()).resolves.toBeDefined();
    } finally {
      await declared.app.close();
    }
  });
});

for (const route of guarded) {
  describe(label(route), () => {
    for (const credential of CREDENTIALS) {
      const outcome = expectedOutcome(route.auth, credential.caller);
      it(`${credential.name}: ${outcome}`, async () => {
        const res = await send(route, credential);
        const context = `${label(route)} with ${credential.name}: ${res.status} ${JSON.stringify(res.body)}`;
        if (outcome === 'allowed') {
          expect([401, 403], context).not.toContain(res.status);
          // A 404 may come from the handler (the other org has no such agent), never from the guard.
          if (res.status === 404) expect(res.body.detail, context).not.toBe(`org "${ORG}" does not exist`);
          return;
        }
        expect(res.status, context).toBe(PROBLEM[outcome]);
        expect(res.headers.get('content-type'), context).toMatch(/^application\/problem\+json/);
        expect(res.body, context).toMatchObject({ status: PROBLEM[outcome], code: outcome });
        if (outcome === 'unauthorized')
          expect(res.headers.get('www-authenticate'), context).toMatch(/^Bearer\b/);
      });
    }

    it('reaches a working handler (2xx) with the admin password and with the least scope it needs', async () => {
      const callers = [credentialNamed('the admin password')];
      const scope = route.auth.scope;
      const session = route.url.endsWith(SESSION_ROUTES);
      // Only an admin's session may move to another org.
      const moves = session && route.method === 'PATCH';
      if (scope === 'authenticated' && !moves) callers.push(credentialNamed(scopeSetName(['messages'])));
      else if (scope !== 'deployment_admin' && scope !== 'authenticated') {
        callers.push(credentialNamed(scopeSetName([scope])));
      }
      for (const credential of callers) {
        const res = session ? await sendAsSession(route, credential) : await send(route, credential);
        // A failure here means the fixtures above lack a value for this route's params or body.
        expect(res.status, `${credential.name}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      }
    });
  });
}

describe('org privacy', () => {
  it('an org a token cannot see answers exactly like an org that does not exist', async () => {
    const token = headerOf(scopeSetName([...SCOPES]));
    const answer = async (org: string) => {
      const res = await server.call('GET', `/api/${org}/agents`, {
        token: null,
        headers: { authorization: token },
      });
      return { status: res.status, body: JSON.stringify(res.body).replaceAll(org, '<org>') };
    };
    const existing = await answer(OTHER);
    expect(existing.status).toBe(404);
    expect(await answer('no-such-org')).toEqual(existing);
  });

  it('the admin password sees every org, and gets 404 for one that does not exist', async () => {
    expect((await server.call('GET', `/api/${OTHER}/agents`)).status).toBe(200);
    const missing = await server.call('GET', '/api/no-such-org/agents');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
  });
});

describe('scopes checked inside a handler', () => {
  it('manage_entity_schema lets a read token list but not upsert or delete', async () => {
    const token = headerOf(scopeSetName(['read']));
    const run = (body: unknown) =>
      server.call('POST', `/api/${ORG}/operations/manage_entity_schema`, {
        token: null,
        headers: { authorization: token },
        body,
      });
    expect((await run({ action: 'list' })).status).toBe(200);
    const item = { slug: 'person', name: 'Person' };
    for (const body of [
      { action: 'upsert', kind: 'entity_type', item },
      { action: 'delete', kind: 'entity_type', slug: 'person' },
    ]) {
      const res = await run(body);
      expect(res.status, body.action).toBe(403);
      expect(res.body.code, body.action).toBe('forbidden');
    }
    // Nothing was written by the refused upsert.
    expect((await run({ action: 'list', kind: 'entity_type' })).body.entityTypes).toEqual([]);
    // A write token may: the route's "read" is only the floor.
    const upsert = await server.call('POST', `/api/${ORG}/operations/manage_entity_schema`, {
      token: null,
      headers: { authorization: headerOf(scopeSetName(['write'])) },
      body: { action: 'upsert', kind: 'entity_type', item },
    });
    expect(upsert.status).toBe(201);
  });
});
