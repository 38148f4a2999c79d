import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunWorkers } from '../../../server/src/runs/worker.js';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { startTestRunWorkers } from '../../../server/test/runtime.js';
import { type RecordingProxy, startRecordingProxy } from '../../test/recording-proxy.js';
import { exited, svc } from '../../test/run-svc.js';
import { actionRun } from './actions.js';
import type { RuntimeIo } from './api.js';
import {
  connectionCreate,
  connectionCredentials,
  connectionList,
  connectionSetStatus,
} from './connections.js';
import { connectorInstall, connectorList } from './connectors.js';
import { feedConfigure, feedList, feedSetStatus, feedSync } from './feeds.js';
import { runsLogs } from './logs.js';
import { runsDecide, runsList, runsShow } from './runs.js';

/**
 * The connector-runtime commands against a real server and a real run worker: what an operator
 * does without curl, from installing a connector to approving an action and reading its log.
 */

const CANARY = 'canary-7f3a91-shop-token';

/** An env_keys connector: a feed that logs its token (the server redacts it), one that fails, an action needing approval. */
const SHOP = `
import { defineConnector, log } from '@svc/connector-sdk';
export default defineConnector({
  key: 'shop', name: 'Shop', version: '1.0.0',
  authSchema: { methods: [{ type: 'env_keys', fields: [{ key: 'token', secret: true }] }] },
  optionsSchema: { type: 'object', properties: { region: { type: 'string' }, pageSize: { type: 'integer' } } },
  feeds: {
    orders: { key: 'orders', name: 'Orders', async sync(ctx) {
      log.info('fetching orders', { page: 1 });
      log.warn('calling the API with ' + ctx.config.token);
      return {
        events: [{ origin_id: 'o-1', payload_text: 'order 1', occurred_at: '2026-01-01T00:00:00Z' }],
        checkpoint: { page: 1 },
      };
    } },
    broken: { key: 'broken', name: 'Broken', async sync() {
      log.error('about to fail');
      throw new Error('the shop API answered 503');
    } },
  },
  actions: {
    refund: {
      key: 'refund', name: 'Refund', requiresApproval: true,
      inputSchema: { type: 'object', required: ['order'], properties: { order: { type: 'string' } } },
      async execute(ctx) {
        log.info('refunding', { order: ctx.input.order });
        return { success: true, output: { refunded: ctx.input.order } };
      },
    },
  },
});`;

let server: TestServer;
let proxy: RecordingProxy;
let workers: RunWorkers;
let admin: string;
let reader: string;
let dir: string;
let shopFile: string;

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  proxy = await startRecordingProxy(server.url);
  admin = (await createToken(server, 'default', ['admin'])).secret;
  reader = (await createToken(server, 'default', ['read'])).secret;
  dir = await mkdtemp(join(tmpdir(), 'svc-runtime-'));
  shopFile = join(dir, 'shop.ts');
  await writeFile(shopFile, SHOP);
  workers = await startTestRunWorkers(server);
}, 60_000);

afterAll(async () => {
  await workers?.close(1000);
  await proxy?.close();
  await rm(dir, { recursive: true, force: true });
});

type TestIo = RuntimeIo & { lines: string[]; errors: string[]; all: () => string };

/** A session over the recording proxy, its stdout and stderr kept apart. */
function io(options: { env?: Record<string, string>; token?: string } = {}): TestIo {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    env: {
      SVC_URL: proxy.url,
      SVC_API_TOKEN: options.token ?? admin,
      XDG_CONFIG_HOME: dir,
      ...options.env,
    },
    out: (line) => lines.push(line),
    err: (line) => errors.push(line),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    pollMs: 100,
    lines,
    errors,
    all: () => [...lines, ...errors].join('\n'),
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

/**
 * One connection for the tests that only read from it: each connection's feeds are synced by the
 * scheduler too, and on a busy machine every extra run slows the ones a test waits for.
 */
let shared: ReturnType<typeof shopConnection> | undefined;
const sharedShop = () => {
  shared ??= shopConnection('Shared shop');
  return shared;
};

/** A shop connection made through the command; answers its id and its feeds' ids by key. */
async function shopConnection(name: string) {
  const session = io({ env: { SHOP_TOKEN: CANARY } });
  await connectionCreate('shop', { name, credential: ['token=SHOP_TOKEN'], json: true }, session);
  const { connection, feeds } = JSON.parse(session.lines.join('\n'));
  const feed = (key: string) => String(feeds.find((f: { feedKey: string }) => f.feedKey === key).id);
  return { id: String(connection.id), orders: feed('orders'), broken: feed('broken') };
}

describe('svc connector install and list', () => {
  it('installs a bundled connector by name, then says unchanged, and lists it', async () => {
    const first = io();
    await connectorInstall('rss', {}, first);
    expect(first.lines).toEqual(['created connector rss 0.1.0 (RSS and Atom)']);
    expect(first.errors).toEqual(['connect it: svc connection create rss']);
    const again = io();
    await connectorInstall('rss', {}, again);
    expect(again.lines).toEqual(['unchanged connector rss 0.1.0 (RSS and Atom)']);
    expect(proxy.requests.at(-1)).toMatchObject({ method: 'POST', url: '/api/default/connectors' });
    expect(JSON.parse(proxy.requests.at(-1)!.body)).toEqual({ package: 'rss' });

    const list = io({ token: reader });
    await connectorList({}, list);
    expect(list.lines[0]).toMatch(/^KEY\s+VERSION\s+FROM\s+FEEDS\s+ACTIONS\s+CREDENTIALS\s+UPDATED\s+NAME$/);
    expect(list.lines).toContainEqual(
      expect.stringMatching(/^rss\s+0\.1\.0\s+bundled rss\s+items\s+-\s+-\s+\S+ \S+\s+RSS and Atom$/),
    );
  });

  it("installs a file's text as source, and says which credentials a connection takes", async () => {
    const session = io();
    await connectorInstall(shopFile, {}, session);
    expect(session.lines).toEqual(['created connector shop 1.0.0 (Shop)']);
    expect(session.errors).toEqual(['connect it: svc connection create shop --credential token=<ENV_VAR>']);
    expect(JSON.parse(proxy.requests.at(-1)!.body)).toEqual({ source: SHOP });
    const json = io();
    await connectorList({ json: true }, json);
    const { connectors } = JSON.parse(json.lines.join('\n'));
    expect(connectors.map((c: { connectorKey: string }) => c.connectorKey).sort()).toEqual(['rss', 'shop']);
  });

  it('points at the line of a syntax error in the file, as an editor jumps to it', async () => {
    const broken = join(dir, 'broken.ts');
    await writeFile(broken, SHOP.replace(/\n/, '\nconst oops = ;\n'));
    const message = await failure(() => connectorInstall(broken, {}, io()));
    expect(message.split('\n').slice(-2)).toEqual([
      `${broken}:2:14: Unexpected ";"`,
      'fix the connector (svc connector sync <file> --feed <key> runs it on this machine) and install it again',
    ]);
  });

  it('says the server must allow source installs when it answers 403', async () => {
    const bundledOnly = await startTestServer();
    try {
      const token = (await createToken(bundledOnly, 'default', ['admin'])).secret;
      const session = io();
      session.env.SVC_URL = bundledOnly.url;
      session.env.SVC_API_TOKEN = token;
      const message = await failure(() => connectorInstall(shopFile, {}, session));
      expect(message).toMatch(
        /^POST \/api\/default\/connectors: this server installs bundled connectors only.*\(forbidden\)\n/,
      );
      expect(message).toMatch(
        /\nthe server must allow source installs: its operator starts it with SVC_CONNECTOR_SOURCE_INSTALLS=on .* svc connector install rss$/,
      );
    } finally {
      await bundledOnly.close();
    }
  }, 120_000);

  it('shows the server’s problem with its errors list and what to do; a missing scope is named', async () => {
    const unknown = await failure(() => connectorInstall('nope', {}, io()));
    expect(unknown.split('\n')).toEqual([
      'POST /api/default/connectors: "nope" is not a bundled connector (validation_failed)',
      `  /body/package: must be one of "rss", "code-host", or post the connector's code as "source"`,
      'bundled connectors are rss and code-host; to install a file, give its path (./connector.ts, ./petstore.yaml)',
    ]);
    const scope = await failure(() => connectorInstall('rss', {}, io({ token: reader })));
    expect(scope.split('\n')).toEqual([
      'POST /api/default/connectors: this token lacks the "admin" scope (forbidden)',
      'installing a connector needs an admin token: svc login --token <ADMIN_TOKEN>',
    ]);
    expect(await failure(() => connectorInstall('./missing.ts', {}, io()))).toBe(
      "no file ./missing.ts; give the path of the connector's module, or a bundled name (rss, code-host)",
    );
  });
});

describe('svc connection', () => {
  it('reads a credential from the environment variable it names, and never prints it', async () => {
    const before = proxy.requests.length;
    const session = io({ env: { SHOP_TOKEN: CANARY } });
    await connectionCreate('shop', { name: 'Main shop', credential: ['token=SHOP_TOKEN'] }, session);
    expect(session.lines[0]).toMatch(
      /^created connection \d+: shop "Main shop" \(active, credentials: token\)$/,
    );
    expect(session.lines).toHaveLength(3);
    expect(session.lines.slice(1)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ {2}feed \d+ broken: active, syncs every 1h$/),
        expect.stringMatching(/^ {2}feed \d+ orders: active, syncs every 1h$/),
      ]),
    );
    expect(session.errors).toEqual([expect.stringMatching(/^sync now: svc feed sync \d+ --follow$/)]);
    expect(session.all()).not.toContain(CANARY);
    const requests = proxy.requests.slice(before);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /api/default/connectors/shop',
      'POST /api/default/connections',
    ]);
    expect(JSON.parse(requests[1]!.body)).toEqual({
      connectorKey: 'shop',
      displayName: 'Main shop',
      credentials: { token: CANARY },
    });
    const list = io({ token: reader });
    await connectionList({}, list);
    expect(list.lines[0]).toMatch(/^ID\s+CONNECTOR\s+STATUS\s+CREDENTIALS\s+CREATED\s+NAME\s+ERROR$/);
    expect(list.lines).toContainEqual(
      expect.stringMatching(/^\d+\s+shop\s+active\s+token\s+\S+ \S+\s+Main shop\s+-$/),
    );
    const json = io();
    await connectionList({ json: true }, json);
    expect(JSON.parse(json.lines.join('\n')).connections).toContainEqual(
      expect.objectContaining({ connectorKey: 'shop', credentialKeys: ['token'] }),
    );
    expect(json.all()).not.toContain(CANARY);
  });

  it('refuses a missing or empty variable, or a value where a variable name goes, sending nothing', async () => {
    const before = proxy.requests.length;
    expect(await failure(() => connectionCreate('shop', { credential: ['token=SHOP_TOKEN'] }, io()))).toBe(
      'the environment variable SHOP_TOKEN (for credential "token") is not set: export it in this shell, or name another variable',
    );
    expect(
      await failure(() =>
        connectionCreate('shop', { credential: ['token=SHOP_TOKEN'] }, io({ env: { SHOP_TOKEN: '' } })),
      ),
    ).toBe('the environment variable SHOP_TOKEN (for credential "token") is empty: set it to the value');
    const typed = await failure(() => connectionCreate('shop', { credential: [`token=${CANARY}`] }, io()));
    expect(typed).toMatch(/^--credential token=…: after "=" goes the name of the environment variable/);
    expect(typed).not.toContain(CANARY);
    const bare = await failure(() => connectionCreate('shop', { credential: [CANARY] }, io()));
    expect(bare).toMatch(/^--credential number 1 is not FIELD=ENV_VAR \(not shown/);
    expect(bare).not.toContain(CANARY);
    expect(proxy.requests.length).toBe(before);
  });

  it('refuses a credential given as config, and lists what the server finds wrong with what to add', async () => {
    const before = proxy.requests.length;
    const asConfig = await failure(() => connectionCreate('shop', { config: [`token=${CANARY}`] }, io()));
    expect(asConfig).toMatch(
      /^token is a credential of shop, not config: pass --credential token=<ENV_VAR> /,
    );
    expect(asConfig).not.toContain(CANARY);
    // Only the connector was read.
    expect(proxy.requests.slice(before).map((r) => r.method)).toEqual(['GET']);

    const missing = await failure(() => connectionCreate('shop', { config: ['pageSize=50'] }, io()));
    expect(missing.split('\n')).toEqual([
      'POST /api/default/connections: the connection cannot be made as asked (validation_failed)',
      expect.stringMatching(/^ {2}\/body\/config\/pageSize: /),
      '  /body/credentials/token: is required',
      'pageSize was sent as a string; key=value sets a string; key:=JSON sets a number, boolean, list or object (maxItems:=50); add --credential token=<ENV_VAR>',
    ]);
    expect(await failure(() => connectionCreate('jira', {}, io()))).toBe(
      'GET /api/default/connectors/jira: connector "jira" does not exist (not_found)\n' +
        'connector "jira" is not installed in org default: svc connector install jira',
    );
  });

  it('pauses and resumes a connection, saying when nothing changed', async () => {
    const { id } = await shopConnection('Paused shop');
    const pause = io();
    await connectionSetStatus(id, 'paused', {}, pause);
    expect(pause.lines).toEqual([`paused connection ${id} (shop): it is paused`]);
    const again = io();
    await connectionSetStatus(id, 'paused', {}, again);
    expect(again.lines).toEqual([`connection ${id} (shop) is paused already: nothing to do`]);
    // A paused connection runs no action: the server's 409, and the step that fixes it.
    expect(
      (await failure(() => actionRun(id, 'refund', { input: '{"order":"o-1"}' }, io()))).split('\n'),
    ).toEqual([
      `POST /api/default/connections/${id}/actions/refund: connection ${id} is paused: its actions run only while it is active (conflict)`,
      `resume it first: svc connection resume ${id}`,
    ]);
    const resume = io();
    await connectionSetStatus(id, 'active', {}, resume);
    expect(resume.lines).toEqual([`resumed connection ${id} (shop): it is active`]);
    expect(await failure(() => connectionSetStatus('abc', 'active', {}, io()))).toBe(
      '"abc" is not a connection id: ids are numbers ("svc connection list" shows them)',
    );
    expect(await failure(() => connectionSetStatus('999999', 'active', {}, io()))).toBe(
      'PATCH /api/default/connections/999999: connection 999999 does not exist (not_found)\n' +
        'org default has no connection 999999: "svc connection list" shows them',
    );
  });
  it('replaces credentials from the environment; an error connection comes back with them', async () => {
    const { id } = await shopConnection('Rotated shop');
    await server.pool.query(
      `UPDATE connections SET status = 'error', error_message = 'refused' WHERE id = $1`,
      [id],
    );
    const before = proxy.requests.length;
    const session = io({ env: { NEW_SHOP_TOKEN: `${CANARY}-2` } });
    await connectionCredentials(id, { credential: ['token=NEW_SHOP_TOKEN'] }, session);
    expect(session.lines).toEqual([`connection ${id} (shop) has new credentials (token): it is active`]);
    expect(session.all()).not.toContain(CANARY);
    const [request] = proxy.requests.slice(before);
    expect(JSON.parse(request!.body)).toEqual({ credentials: { token: `${CANARY}-2` } });
    expect(await failure(() => connectionCredentials(id, {}, io()))).toMatch(/--credential FIELD=ENV_VAR/);
  });
});

describe('svc feed', () => {
  it('lists feeds; a feed paused for want of config starts once configure gives it', async () => {
    const made = io();
    await connectionCreate('rss', { name: 'News' }, made);
    const id = made.lines[0]!.match(/^created connection (\d+)/)![1]!;
    expect(made.lines[1]).toMatch(
      /^ {2}feed \d+ items: paused: needs config before it can sync: url is required.*\(PATCH the feed's config\)$/,
    );
    expect(made.errors).toEqual([
      expect.stringMatching(/^set a feed's config: svc feed configure \d+ --config key=value \.\.\.$/),
    ]);
    const feedId = made.lines[1]!.match(/feed (\d+)/)![1]!;

    const list = io({ token: reader });
    await feedList(id, {}, list);
    expect(list.lines[0]).toMatch(
      /^ID\s+FEED\s+STATUS\s+EVERY\s+LAST SYNC\s+RESULT\s+ITEMS\s+FAILURES\s+NAME\s+ERROR$/,
    );
    expect(list.lines[1]).toMatch(
      new RegExp(`^${feedId}\\s+items\\s+paused\\s+1h\\s+-\\s+-\\s+0\\s+0\\s+-\\s+needs config`),
    );

    // A number typed as key=value is a string; the answer says how to give a number.
    const typed = await failure(() =>
      feedConfigure(feedId, { config: ['url=http://127.0.0.1:9/feed.xml', 'maxItems=5'] }, io()),
    );
    expect(typed).toMatch(
      /^PATCH \/api\/default\/feeds\/\d+: the config is not what feed "items" takes \(validation_failed\)\n {2}\/body\/config\/maxItems: .*\nkey=value sets a string; key:=JSON/,
    );
    const resume = await failure(() => feedSetStatus(feedId, 'active', {}, io()));
    expect(resume).toMatch(
      /\n {2}\/body\/config\/url: .*\nset its config first: svc feed configure \d+ --config key=value \.\.\.$/,
    );

    const configure = io();
    await feedConfigure(
      feedId,
      { config: ['url=http://127.0.0.1:9/feed.xml', 'maxItems:=5'], every: 86_400_000 },
      configure,
    );
    expect(configure.lines).toEqual([
      `updated feed ${feedId} items "Feed http://127.0.0.1:9/feed.xml": active, syncs every 1d`,
    ]);
    const pause = io();
    await feedSetStatus(feedId, 'paused', {}, pause);
    expect(pause.lines).toEqual([`paused feed ${feedId} items "Feed http://127.0.0.1:9/feed.xml": paused`]);
    const json = io();
    await feedList(id, { json: true }, json);
    expect(JSON.parse(json.lines.join('\n')).feeds[0]).toMatchObject({
      status: 'paused',
      config: { url: 'http://127.0.0.1:9/feed.xml', maxItems: 5 },
      syncIntervalMs: 86_400_000,
    });
    expect(await failure(() => feedConfigure(feedId, {}, io()))).toMatch(/^nothing to change: give --config/);
  });

  it('syncs a feed and follows its log to the end: time level msg {fields}, the token redacted', async () => {
    const { orders } = await sharedShop();
    const sync = io();
    expect(await feedSync(orders, { follow: true }, sync)).toBe(0);
    const text = sync.lines.join('\n');
    expect(sync.lines).toContainEqual(
      expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info {2}fetching orders \{"page":1\}$/),
    );
    expect(text).toMatch(/ warn {2}calling the API with \[redacted\]/);
    expect(text).not.toContain(CANARY);
    expect(sync.errors[0]).toMatch(
      /^(queued sync run \d+ of feed \d+|feed \d+ has a sync open already: run \d+ \(\w+\), not a second one)$/,
    );
    expect(sync.errors.at(-1)).toMatch(/^run \d+ completed: 1 item collected$/);
    const runId = sync.errors.at(-1)!.match(/^run (\d+)/)![1]!;

    // Not followed: the id on stdout, alone, for scripts.
    const plain = io();
    expect(await feedSync(orders, {}, plain)).toBe(0);
    expect(plain.lines).toEqual([expect.stringMatching(/^\d+$/)]);
    expect(plain.errors.at(-1)).toBe(`follow it: svc runs logs ${plain.lines[0]} --follow`);

    // The log of an ended run, read again, is the same lines.
    const logs = io({ token: reader });
    expect(await runsLogs(runId, {}, logs)).toBe(0);
    expect(logs.lines.filter((l) => /fetching orders|calling the API/.test(l))).toEqual(
      sync.lines.filter((l) => /fetching orders|calling the API/.test(l)),
    );

    const list = io({ token: reader });
    await runsList({ feed: orders }, list);
    expect(list.lines[0]).toMatch(/^ID\s+TYPE\s+OF\s+STATUS\s+APPROVAL\s+ITEMS\s+CREATED\s+ERROR$/);
    expect(list.lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^${runId}\\s+sync\\s+feed ${orders}\\s+completed\\s+auto\\s+1\\s+\\S+ \\S+\\s+-$`),
      ),
    );
    const show = io();
    await runsShow(runId, {}, show);
    expect(show.lines).toContain(`status:      completed`);
    expect(show.lines).toContain(`items:       1 collected, 0 rejected`);
    expect(show.lines).toContain(`checkpoint:  {"page":1}`);
    const json = io();
    await runsShow(runId, { json: true }, json);
    expect(JSON.parse(json.lines.join('\n')).run).toMatchObject({ id: Number(runId), status: 'completed' });
  }, 120_000);

  it('following a failed sync exits 2 with its error; list filters by status', async () => {
    const { broken } = await sharedShop();
    const sync = io();
    expect(await feedSync(broken, { follow: true }, sync)).toBe(2);
    expect(sync.lines.join('\n')).toMatch(/ error about to fail/);
    expect(sync.errors.at(-1)).toMatch(/^run \d+ failed: 0 items collected; the shop API answered 503$/);
    const failed = io();
    await runsList({ feed: broken, status: 'failed', json: true }, failed);
    const { runs } = JSON.parse(failed.lines.join('\n'));
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r: { status: string }) => r.status === 'failed')).toBe(true);
    const none = io();
    await runsList({ feed: broken, status: 'timeout' }, none);
    expect(none.lines).toEqual(['No runs match: try fewer filters.']);
  }, 120_000);
});

describe('svc action run and svc runs approve|reject|cancel', () => {
  it('an action that requires approval waits, is approved while followed, then runs', async () => {
    const { id } = await sharedShop();
    const asked = io();
    expect(await actionRun(id, 'refund', { input: '{"order":"o-7"}' }, asked)).toBe(0);
    const runId = asked.lines[0]!;
    expect(runId).toMatch(/^\d+$/);
    expect(asked.errors[0]).toBe(
      `action run ${runId} waits for approval: svc runs approve ${runId} (or svc runs reject ${runId})`,
    );
    const show = io();
    await runsShow(runId, {}, show);
    expect(show.lines).toContain('approval:    pending');
    expect(show.lines).toContain('input:       {"order":"o-7"}');
    expect(show.errors).toEqual([
      `it waits for approval: svc runs approve ${runId}, or svc runs reject ${runId}`,
    ]);

    // Followed before the decision: it says why nothing happens, and ends once the approved run has.
    const followed = io();
    const following = runsLogs(runId, { follow: true }, followed);
    await expect.poll(() => followed.errors.join('\n'), { timeout: 10_000 }).toContain('waits for approval');
    const approve = io();
    await runsDecide('approve', runId, {}, approve);
    // A worker may take it between the decision and the answer's read of it.
    expect(approve.lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^approved run ${runId} \\(action refund of connection ${id}\\): it is (pending|running|completed)$`,
        ),
      ),
    ]);
    expect(await following).toBe(0);
    expect(followed.lines.join('\n')).toMatch(/ info {2}refunding \{"order":"o-7"\}/);
    expect(followed.errors.at(-1)).toBe(`run ${runId} completed, output {"refunded":"o-7"}`);

    const twice = await failure(() => runsDecide('approve', runId, {}, io()));
    expect(twice.split('\n')).toEqual([
      `POST /api/default/runs/${runId}/approve: run ${runId} is not waiting for approval: its approvalStatus is approved and its status completed (conflict)`,
      `only an action run waiting for approval can be approved ("svc runs show ${runId}" shows it)`,
    ]);
    const cancel = await failure(() => runsDecide('cancel', runId, {}, io()));
    expect(cancel).toMatch(/\(conflict\)\nit has ended already: nothing to stop/);
  }, 120_000);

  it('a rejected action never runs: following it exits 2', async () => {
    const { id } = await sharedShop();
    const asked = io();
    await actionRun(id, 'refund', { input: '{"order":"o-8"}' }, asked);
    const runId = asked.lines[0]!;
    const reject = io();
    await runsDecide('reject', runId, {}, reject);
    expect(reject.lines).toEqual([
      `rejected run ${runId} (action refund of connection ${id}): it is cancelled`,
    ]);
    const followed = io();
    expect(await runsLogs(runId, { follow: true }, followed)).toBe(2);
    expect(followed.errors.at(-1)).toBe(`run ${runId} cancelled: rejected, it never ran`);
  });

  it('checks --input before sending, and shows the server’s problems with the input', async () => {
    const { id } = await sharedShop();
    const before = proxy.requests.length;
    expect(await failure(() => actionRun(id, 'refund', { input: '{order: 1}' }, io()))).toMatch(
      /^--input is not JSON \(.*\); give an object, e.g. --input '\{"a": 1\}'$/,
    );
    expect(await failure(() => actionRun(id, 'refund', { input: '[1]' }, io()))).toBe(
      `--input must be a JSON object, e.g. --input '{"a": 1}'`,
    );
    expect(proxy.requests.length).toBe(before);
    const invalid = await failure(() => actionRun(id, 'refund', {}, io()));
    expect(invalid.split('\n')).toEqual([
      `POST /api/default/connections/${id}/actions/refund: the input is not what action "refund" of connector "shop" takes (validation_failed)`,
      expect.stringMatching(/^ {2}\/body\/input(\/order)?: /),
      `give --input as the action's inputSchema asks ("svc connector list --json" shows it)`,
    ]);
    const unknown = await failure(() => actionRun(id, 'ship', {}, io()));
    expect(unknown).toBe(
      `POST /api/default/connections/${id}/actions/ship: connector "shop" has no action "ship" (its actions: "refund") (not_found)`,
    );
  });
});

describe('the commands as a process', () => {
  const env = (extra: Record<string, string> = {}) => ({
    SVC_URL: proxy.url,
    SVC_API_TOKEN: admin,
    XDG_CONFIG_HOME: dir,
    ...extra,
  });

  it('a credential travels only in the POST body: not in argv, not in any output, not in any other request', async () => {
    const from = proxy.requests.length;
    const create = svc(
      [
        'connection',
        'create',
        'shop',
        '--name',
        'From a process',
        '--credential',
        'token=SHOP_TOKEN',
        '--json',
      ],
      env({ SHOP_TOKEN: CANARY }),
    );
    expect(await exited(create), create.output()).toBe(0);
    expect(create.spawnargs.join(' ')).not.toContain(CANARY);
    const { connection, feeds } = JSON.parse(create.output());
    const orders = feeds.find((f: { feedKey: string }) => f.feedKey === 'orders').id;
    const list = svc(['connection', 'list'], env());
    expect(await exited(list), list.output()).toBe(0);
    expect(list.output()).toMatch(
      new RegExp(`^${connection.id}\\s+shop\\s+active\\s+token\\s+.*From a process`, 'm'),
    );
    const sync = svc(['feed', 'sync', String(orders), '--follow'], env());
    expect(await exited(sync), sync.output()).toBe(0);
    expect(sync.output()).toMatch(/ warn {2}calling the API with \[redacted\]/);
    expect(sync.output()).toMatch(/^run \d+ completed: 1 item collected$/m);
    for (const run of [create, list, sync]) expect(run.output()).not.toContain(CANARY);

    const requests = proxy.requests.slice(from);
    const carrying = requests.filter((r) => JSON.stringify(r).includes(CANARY));
    expect(carrying.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /api/default/connections']);
    expect(JSON.stringify(carrying[0]!.headers)).not.toContain(CANARY);
    expect(JSON.parse(carrying[0]!.body).credentials).toEqual({ token: CANARY });
  }, 120_000);

  it('exits 1 naming a missing variable, sending nothing; --help states the exit codes', async () => {
    const from = proxy.requests.length;
    const create = svc(['connection', 'create', 'shop', '--credential', 'token=UNSET_SHOP_TOKEN'], env());
    expect(await exited(create)).toBe(1);
    expect(create.output()).toBe(
      'svc connection create: the environment variable UNSET_SHOP_TOKEN (for credential "token") is not set: export it in this shell, or name another variable\n',
    );
    expect(proxy.requests.length).toBe(from);
    const help = svc(['runs', 'logs', '--help'], {});
    expect(await exited(help)).toBe(0);
    expect(help.output().replace(/\s+/g, ' ')).toContain(
      'Exit codes: 0 done (with --follow: the run completed), 1 any error, 2 with --follow: the run ended failed, timed out, cancelled or rejected.',
    );
  });

  it('svc feed sync without --follow prints only the run id on stdout', async () => {
    const { orders } = await sharedShop();
    const sync = svc(['feed', 'sync', orders], env());
    let stdout = '';
    sync.stdout?.on('data', (c) => (stdout += c));
    expect(await exited(sync), sync.output()).toBe(0);
    expect(stdout).toMatch(/^\d+\n$/);
  });
});
