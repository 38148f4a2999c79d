import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { startTestRunWorkers } from '../../test/runtime.js';
import { parseEgressAllow } from '../egress/policy.js';
import { ensureOrg } from '../orgs/routes.js';
import { requestSync } from '../runs/queue.js';
import type { RunWorkers } from '../runs/worker.js';
import { findBubblewrap } from './bubblewrap.js';
import { connectorsRoot, installedSourceFile } from './compile.js';

/**
 * Connector code written to break out (DESIGN.md section 10), posted as source to a server with the
 * OS sandbox, each attack run as a sync: it reads the server's secrets, signals its processes,
 * reaches its database and metadata addresses, listens, eats memory and speaks the parent's
 * protocol itself. Each must fail, the run say why, the server's memory stay bounded and nothing
 * be stored. Runs only where bubblewrap works (`.ci/run` installs it).
 */

const { missing } = findBubblewrap();
const ADMIN_SECRET = 'admin-password-of-the-server-0123';
const OTHER_ORG_MARKER = 'OTHER-ORG-SECRET-MARKER-7f3a';

let server: TestServer;
let workers: RunWorkers;
let orgId: string;
let dataDir: string;
let listener: Server;

const probe = (key: string, body: string) => `
import { defineConnector, log } from '@svc/connector-sdk';
import { readFileSync, readdirSync, writeSync } from 'node:fs';
import { connect, createServer } from 'node:net';
const read = (path) => { try { return 'READ ' + readFileSync(path, 'utf8').slice(0, 300); } catch (e) { return 'refused ' + e.code; } };
const tcp = (host, port) => new Promise((resolve) => {
  const s = connect({ host, port });
  s.once('connect', () => { s.destroy(); resolve('CONNECTED'); });
  s.once('error', (e) => resolve('refused ' + e.code));
  setTimeout(() => { s.destroy(); resolve('refused timeout'); }, 3000);
});
const get = async (url) => {
  try { const r = await fetch(url); return 'FETCHED ' + r.status; }
  catch (e) { return 'refused ' + String(e.cause?.message ?? e.message); }
};
const signal = (pid, name) => { try { process.kill(pid, name); return 'SIGNALLED'; } catch (e) { return 'refused ' + e.code; } };
// The channel is non-blocking: a large frame goes in as many writes as it takes.
const writeAll = async (bytes) => {
  for (let at = 0; at < bytes.length; ) {
    try { at += writeSync(3, bytes, at); } catch (e) { if (e.code !== 'EAGAIN') throw e; await new Promise((r) => setTimeout(r, 5)); }
  }
};
const frame = (message) => { const body = Buffer.from(JSON.stringify(message)); const head = Buffer.alloc(4); head.writeUInt32BE(body.length); return Buffer.concat([head, body]); };
export default defineConnector({
  key: '${key}', name: '${key}', version: '1.0.0',
  feeds: { probe: { key: 'probe', name: 'Probe', async sync(ctx) {
    ${body}
  } } },
});`;

async function install(code: string) {
  const res = await server.call('POST', '/api/default/connectors', { body: { source: code } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** Installs `code`, connects it with `config` on its feed, syncs it once: the run once it ended. */
async function attack(key: string, body: string, config: Record<string, unknown> = {}) {
  await install(probe(key, body));
  const connected = await server.call('POST', '/api/default/connections', { body: { connectorKey: key } });
  expect(connected.status, JSON.stringify(connected.body)).toBe(201);
  const feedId = String(connected.body.feeds[0].id);
  await server.pool.query(
    `UPDATE feeds SET config = $2, next_sync_at = now() + interval '1 day' WHERE id = $1`,
    [feedId, JSON.stringify(config)],
  );
  const requested = await requestSync(server.pool, orgId, feedId);
  if (!requested) throw new Error('no run');
  for (let i = 0; i < 600; i++) {
    const { rows } = await server.pool.query('SELECT * FROM runs WHERE id = $1', [requested.id]);
    if (!['pending', 'running'].includes(rows[0].status)) {
      const events = await server.pool.query('SELECT count(*)::int AS n FROM events WHERE feed_id = $1', [
        feedId,
      ]);
      return { run: rows[0], stored: events.rows[0].n as number };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${requested.id} did not end`);
}

/** What the probe found: it fails its sync with the outcomes as JSON, so that nothing is stored. */
const outcomes = (run: { error_message: string }) =>
  JSON.parse(String(run.error_message).replace(/^[^{]*/, '')) as Record<string, string>;

const REPORT = `throw new Error(JSON.stringify(found));`;

describe.skipIf(missing !== null)('hostile connector code in the sandbox', () => {
  beforeAll(async () => {
    server = await startTestServer({ connectorSourceInstalls: 'on' });
    orgId = String((await server.pool.query(`SELECT id FROM orgs WHERE slug = 'default'`)).rows[0].id);
    // A data dir as `svc server` keeps one, and another org's compiled connector beside ours.
    dataDir = await mkdtemp(join(tmpdir(), 'svc-hostile-data-'));
    await writeFile(join(dataDir, 'admin-password'), ADMIN_SECRET, { mode: 0o600 });
    await writeFile(join(dataDir, 'encryption-key'), 'ab'.repeat(32), { mode: 0o600 });
    await ensureOrg({ pool: server.pool }, 'other', 'Other');
    await installedSourceFile(`export const secret = '${OTHER_ORG_MARKER}'; export default {};`);
    // A service on the host's loopback, as svc's own port and a database are.
    listener = createHttpServer((_req, res) => res.end('host service')).listen(0, '127.0.0.1');
    await new Promise((resolve) => listener.once('listening', resolve));
    // The deployment's policy: public addresses only.
    workers = await startTestRunWorkers(server, {
      limits: { timeoutMs: 30_000, memoryMb: 128, egress: parseEgressAllow('') },
    });
  }, 120_000);

  afterAll(async () => {
    await workers?.close(1000);
    listener?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("reads none of the host's files: secrets, /etc, a path through a link, another org's code", async () => {
    const { run, stored } = await attack(
      'reader',
      `const found = {
        adminPassword: read(ctx.config.dataDir + '/admin-password'),
        encryptionKey: read(ctx.config.dataDir + '/encryption-key'),
        passwd: read('/etc/passwd'),
        // As a string: a URL would drop the '..' before the kernel follows the link.
        throughLink: read(new URL('.', import.meta.url).pathname + 'node_modules/@svc/connector-sdk/' + '../'.repeat(12) + 'etc/passwd'),
        parentEnviron: read('/proc/' + process.ppid + '/environ'),
        serverEnviron: read('/proc/' + ctx.config.serverPid + '/environ'),
        otherOrg: (() => { try { return readdirSync(ctx.config.root).map((name) => read(ctx.config.root + '/' + name + '/connector.mjs')).join(' | '); } catch (e) { return 'refused ' + e.code; } })(),
      };
      ${REPORT}`,
      { dataDir, serverPid: process.pid, root: connectorsRoot() },
    );
    expect(run.status).toBe('failed');
    const found = outcomes(run);
    for (const key of ['adminPassword', 'encryptionKey', 'passwd', 'throughLink', 'serverEnviron']) {
      expect(found[key], key).toMatch(/^refused /);
    }
    // The parent it sees is the sandbox's own init, whose environment is the bare one svc gave.
    expect(found.parentEnviron).not.toContain(ADMIN_SECRET);
    expect(found.parentEnviron).not.toMatch(/DATABASE_URL|SVC_ADMIN|SVC_ENCRYPTION/);
    expect(found.otherOrg).not.toContain(OTHER_ORG_MARKER);
    expect(stored).toBe(0);
  }, 120_000);

  it('signals no process of the host: not its parent, not the server; the server still answers', async () => {
    const { run } = await attack(
      'signaller',
      `const found = {
        parent: signal(process.ppid, 'SIGSTOP'),
        server: signal(ctx.config.serverPid, 'SIGSTOP'),
        init: signal(1, 'SIGKILL'),
      };
      ${REPORT}`,
      { serverPid: process.pid },
    );
    const found = outcomes(run);
    expect(found.server).toMatch(/^refused /);
    // Inside its own PID namespace the parent and init are the sandbox's, never a host process.
    expect((await server.call('GET', '/api/whoami')).status).toBe(200);
    expect(run.status).toMatch(/failed/);
  }, 120_000);

  it('reaches no host port and no internal address: database, loopback service, metadata, svc itself', async () => {
    const svcPort = Number(new URL(server.url).port);
    const dbPort = Number(new URL(String(server.pool.options.connectionString)).port || 5432);
    const { run, stored } = await attack(
      'network',
      `const found = {
        postgres: await tcp('127.0.0.1', 5432),
        database: await tcp('127.0.0.1', ctx.config.dbPort),
        hostService: await tcp('127.0.0.1', ctx.config.hostPort),
        fetchMetadata: await get('http://169.254.169.254/latest/meta-data/'),
        fetchSvc: await get('http://127.0.0.1:' + ctx.config.svcPort + '/api/whoami'),
        fetchHostService: await get('http://127.0.0.1:' + ctx.config.hostPort + '/'),
        fetchClosedPort: await get('http://127.0.0.1:4/'),
      };
      ${REPORT}`,
      { dbPort, svcPort, hostPort: (listener.address() as { port: number }).port },
    );
    const found = outcomes(run);
    for (const key of ['postgres', 'database', 'hostService']) expect(found[key], key).toMatch(/^refused /);
    expect(found.fetchMetadata).toBe(
      'refused refused by the egress policy: 169.254.169.254 is a cloud metadata address',
    );
    // One answer for an open port and a closed one: the policy is no port scanner.
    expect(found.fetchSvc).toBe('refused refused by the egress policy: 127.0.0.1 is a loopback address');
    expect(found.fetchHostService).toBe(found.fetchSvc);
    expect(found.fetchClosedPort).toBe(found.fetchSvc);
    expect(stored).toBe(0);
  }, 120_000);

  it('listens on no port of the host', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const running = attack(
      'listener',
      `await new Promise((resolve) => createServer((s) => s.end('inside')).listen(ctx.config.port, '0.0.0.0', resolve));
      log.info('listening');
      await new Promise((resolve) => setTimeout(resolve, 3000));
      throw new Error('{"done":"listened"}');`,
      { port },
    );
    let reached = false;
    const until = Date.now() + 5000;
    while (Date.now() < until) {
      reached ||= await new Promise<boolean>((resolve) => {
        const socket = tcpConnect({ host: '127.0.0.1', port });
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const { run } = await running;
    expect(outcomes(run)).toEqual({ done: 'listened' });
    expect(reached).toBe(false);
  }, 120_000);

  it('is stopped by the OS past its memory, Buffers included, and the server does not grow', async () => {
    const before = process.memoryUsage().rss;
    const { run } = await attack(
      'hoarder',
      `const kept = []; for (let i = 0; i < 2048; i++) kept.push(Buffer.alloc(1024 * 1024, 1));
      throw new Error('{"kept":"' + kept.length + ' MB"}');`,
    );
    expect(run.status).toBe('failed');
    expect(run.error_message).toMatch(/memory|allocation failed/i);
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
  }, 120_000);

  it("gains nothing by speaking the parent's protocol: a javascript: link is refused, a bad message ends the run", async () => {
    const { run, stored } = await attack(
      'forger',
      `// Straight to the channel's file descriptor, as the child's own frames go.
      writeSync(3, frame({ type: 'events', seq: 999, rejected: [], events: [
        { origin_id: 'x', payload_text: 'click me', occurred_at: '2026-01-01T00:00:00Z', source_url: 'javascript:alert(document.cookie)' },
      ] }));
      writeSync(3, frame({ type: 'synced', events: 'not a list', rejected: [], auth_update: null }));
      await new Promise((resolve) => setTimeout(resolve, 5000));
      return { events: [], checkpoint: null };`,
    );
    expect(stored).toBe(0);
    expect(run.status).toBe('failed');
    expect(run.error_message).toMatch(/sent a message the server does not take \(events/);
    const logs = await server.pool.query('SELECT msg FROM run_logs WHERE run_id = $1', [run.id]);
    expect(JSON.stringify(logs.rows)).toMatch(/source_url: must be an absolute http\(s\) URL/);
  }, 120_000);

  it('is stopped for a 150 MB message, and the server keeps none of it', async () => {
    const before = process.memoryUsage().rss;
    const { run, stored } = await attack(
      'shouter',
      `const huge = Buffer.alloc(150 * 1024 * 1024, 97);
      const head = Buffer.alloc(4); head.writeUInt32BE(huge.length + 40);
      writeSync(3, head); writeSync(3, '{"type":"log","entry":{"level":"info","msg":"');
      try { writeSync(3, huge); } catch {}
      await new Promise((resolve) => setTimeout(resolve, 10000));
      return { events: [], checkpoint: null };`,
    );
    expect(run.status).toBe('failed');
    expect(run.error_message).toBe(
      "the connector's process sent a message of 150 MB, over the 16 MB limit and was stopped",
    );
    expect(stored).toBe(0);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
    const lines = await server.pool.query(
      'SELECT sum(length(msg))::int AS chars FROM run_logs WHERE run_id = $1',
      [run.id],
    );
    expect(lines.rows[0].chars ?? 0).toBeLessThan(10_000);
  }, 120_000);

  it('is stopped for a message nested past the cap, or with more items than a message holds', async () => {
    const deep = await attack(
      'nester',
      `const body = Buffer.from('{"type":"log","entry":{"level":"info","msg":"x","f":' + '['.repeat(200000) + ']'.repeat(200000) + '}}');
      const head = Buffer.alloc(4); head.writeUInt32BE(body.length);
      await writeAll(Buffer.concat([head, body]));
      await new Promise((resolve) => setTimeout(resolve, 10000));
      return { events: [], checkpoint: null };`,
    );
    expect(deep.run.error_message).toBe(
      "the connector's process sent a message nested deeper than 64 levels and was stopped",
    );
    const many = await attack(
      'flooder',
      `await writeAll(frame({ type: 'events', seq: 1, rejected: [], events: Array.from({ length: 300000 }, () => ({})) }));
      await new Promise((resolve) => setTimeout(resolve, 10000));
      return { events: [], checkpoint: null };`,
    );
    expect(many.run.status).toBe('failed');
    expect(many.run.error_message).toMatch(/sent a message the server does not take \(events: Too big/);
    expect(many.stored).toBe(0);
    expect((await server.call('GET', '/api/whoami')).status).toBe(200);
  }, 120_000);

  it('splits an honest batch larger than a message holds, and stores every item', async () => {
    const { run, stored } = await attack(
      'bulk',
      `await ctx.emitEvents(Array.from({ length: 12000 }, (_, i) => ({ origin_id: 'e' + i, payload_text: 'item ' + i, occurred_at: '2026-01-01T00:00:00Z' })));
      return { events: Array.from({ length: 6000 }, (_, i) => ({ origin_id: 'r' + i, payload_text: 'item ' + i, occurred_at: '2026-01-01T00:00:00Z' })), checkpoint: { done: true } };`,
    );
    expect(run.status).toBe('completed');
    expect(stored).toBe(18000);
  }, 120_000);
});
