import { Writable } from 'node:stream';
import { PROBLEM_CODES } from '@svc/core';
import fc from 'fast-check';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { fingerprinter } from '../../test/fuzz/fingerprint.js';
import { KNOWN_CASES } from '../../test/fuzz/known-cases.js';
import { probesFor } from '../../test/fuzz/probes.js';
import {
  type Answer,
  type Caller,
  type Fixtures,
  type FuzzRequest,
  type Operation,
  operationsOf,
  requestsFor,
  send,
} from '../../test/fuzz/requests.js';
import { ADMIN_PASSWORD, createToken, startTestServer, type TestServer } from '../../test/harness.js';
import { SLACK_CONFIG } from '../../test/platform-configs.js';

/**
 * DESIGN.md section 13: "Bad input gets a clear problem answer and changes nothing", for every
 * operation of the server's own OpenAPI document, so that a new route is walked the day it is
 * added. Each operation gets requests broken in one place (path, query, header or body); each answer
 * must be below 500, a problem with a stable code when it is an error, and a 4xx must leave the
 * database as it was. Deterministic: FUZZ_SEED and FUZZ_RUNS change the walk; a failure prints both.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const CODES = new Set<string>(PROBLEM_CODES);

let server: TestServer;
let doc: any;
let fixtures: Fixtures;
let bearer: Record<Caller, string>;
/** What the server logged at warn and above: the guard for data exceptions logs there. */
const logged: { msg: string; err?: { message?: string } }[] = [];

async function must(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const res = await server.call(method, path, { body, headers });
  if (res.status >= 300)
    throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Something of each kind that path parameters name, so that broken requests meet real rows. */
async function makeFixtures(): Promise<Fixtures> {
  await must('POST', '/api/default/agents', { agentId: 'helper', name: 'Helper' });
  await must('PUT', '/api/default/agents/helper/platforms/by-stable-id/helper-team-chat', {
    type: 'team_chat',
    config: SLACK_CONFIG,
  });
  // The platform's secrets are set, so that a webhook call meets its signature check.
  for (const name of ['FUZZ_SECRET', 'SLACK_SIGNING_SECRET', 'SLACK_BOT_TOKEN']) {
    await must('PUT', `/api/default/secrets/${name}`, { value: 'hidden' });
  }
  await must('POST', '/api/default/connectors', { package: 'rss' });
  const { connection, feeds } = await must('POST', '/api/default/connections', {
    connectorKey: 'rss',
    displayName: 'News',
  });
  const feedId = String(feeds[0].id);
  await must('PATCH', `/api/default/feeds/${feedId}`, { config: { url: 'https://example.com/feed.xml' } });
  const { run } = await must('POST', `/api/default/feeds/${feedId}/sync`, {});
  const form = new FormData();
  form.set('platform', 'api');
  form.set('content', 'read this');
  form.append('files', new Blob(['some notes'], { type: 'text/plain' }), 'notes.txt');
  const sent = await fetch(`${server.url}/api/v1/agents/helper/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_PASSWORD}` },
    body: form,
  });
  const message = (await sent.json()) as { id: string; conversationId: string };
  if (sent.status !== 202) throw new Error(`the message with a file answered ${sent.status}`);
  const { files } = await must('GET', `/api/v1/agents/helper/messages/${message.id}`);
  return {
    org: 'default',
    id: 'helper',
    agentId: 'helper',
    stableId: 'helper-team-chat',
    name: 'FUZZ_SECRET',
    key: 'rss',
    connectionId: String(connection.id),
    feedId,
    runId: String(run.id),
    messageId: message.id,
    conversationId: message.conversationId,
    fileId: files[0].id,
  };
}

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line));
      done();
    },
  });
  server = await startTestServer({
    logger: pino({ level: 'warn' }, sink),
    messageRateLimit: null,
    authFailuresPerMinute: 1_000_000,
  });
  doc = (await server.call('GET', '/openapi.json', { token: null })).body;
  fixtures = await makeFixtures();
  const admin = await createToken(server, 'default', ['admin']);
  const reader = await createToken(server, 'default', ['read']);
  bearer = { admin_password: ADMIN_PASSWORD, admin_token: admin.secret, read_token: reader.secret };
});

/** The statuses the document declares for `op`: a client generated from it knows no others. */
const declaredStatuses = (op: Operation): string[] =>
  Object.keys(doc.paths[op.path][op.method.toLowerCase()].responses);

/** Why `answer` breaks the rule, or null. `stored` tells whether the database changed. */
function violation(op: Operation, answer: Answer, stored: boolean): string | null {
  if (answer.status >= 500) return `answered ${answer.status}: ${JSON.stringify(answer.body)}`;
  if (!declaredStatuses(op).includes(String(answer.status))) {
    return `answered ${answer.status}, which the document does not declare: ${JSON.stringify(answer.body)}`;
  }
  if (answer.status < 400) return null;
  if (!answer.contentType.startsWith('application/problem+json')) {
    return `answered ${answer.status} as ${answer.contentType || 'no content type'}`;
  }
  if (!CODES.has(answer.body?.code) || answer.body?.status !== answer.status) {
    return `answered ${answer.status} without a problem code: ${JSON.stringify(answer.body)}`;
  }
  if (stored) return `answered ${answer.status} (${answer.body.code}) but changed the database`;
  return null;
}

/** Deletes are walked against what the fixtures did not make: a valid one would remove them. */
const fixturesFor = (op: Operation): Fixtures => (op.method === 'DELETE' ? { org: 'default' } : fixtures);

describe('every operation of /openapi.json, with malformed input', () => {
  it('answers below 500, with a problem and its code on errors, and stores nothing on a 4xx', async () => {
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThan(40);
    const fingerprint = await fingerprinter(server.pool);
    const failures: string[] = [];
    for (const op of operations) {
      let before = await fingerprint();
      const property = fc.asyncProperty(requestsFor(op, doc, fixturesFor(op)), async (request) => {
        const seen = logged.length;
        const answer = await send(server.url, op, request, bearer);
        const after = await fingerprint();
        const stored = JSON.stringify(after) !== JSON.stringify(before);
        before = after;
        // The last line of defence is for what no one foresaw: a cause the walk finds is fixed at its root.
        const guarded = logged.slice(seen).find((line) => /data exception/.test(line.msg));
        const problem =
          violation(op, answer, stored && answer.status >= 400 && answer.status < 500) ??
          (guarded ? `only the guard for data exceptions answered it: ${guarded.err?.message}` : null);
        if (problem) throw new Error(`${request.broken}: ${problem}`);
      });
      const examples = KNOWN_CASES.filter((c) => c.operationId === op.id).map(
        (c) => [c.request(fixtures)] as [FuzzRequest],
      );
      const result = await fc.check(property, { seed: SEED, numRuns: RUNS, examples, endOnFailure: true });
      if (result.failed) {
        const why = (result.errorInstance as Error | null)?.message;
        failures.push(`${op.method} ${op.path}: ${why}\n${fc.defaultReportMessage(result)}`);
      }
    }
    expect(failures, `FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}`).toEqual([]);
  }, 120_000);
});

describe('every operation of /openapi.json, with plainly wrong requests', () => {
  it('answers only statuses that the document declares for it', async () => {
    const undeclared: string[] = [];
    for (const op of operationsOf(doc)) {
      for (const request of probesFor(op, doc, fixturesFor(op))) {
        const answer = await send(server.url, op, request, bearer);
        if (!declaredStatuses(op).includes(String(answer.status))) {
          undeclared.push(
            `${op.method} ${op.path} with ${request.broken}: ${answer.status} ${answer.body?.code ?? ''}`,
          );
        }
      }
    }
    expect(undeclared).toEqual([]);
  }, 120_000);
});

describe('the walk itself', () => {
  it('has the 13 requests of issue 16 that answered 500 among its examples', () => {
    expect(KNOWN_CASES).toHaveLength(13);
  });

  it('notices a stored change, logged or not (control)', async () => {
    const fingerprint = await fingerprinter(server.pool);
    const before = await fingerprint();
    await must('POST', '/api/default/agents', { agentId: 'control', name: 'Control' });
    const created = await fingerprint();
    expect(created).not.toEqual(before);
    await server.pool.query("UPDATE agents SET name = 'Changed' WHERE agent_id = 'control'");
    const updated = await fingerprint();
    expect(updated).not.toEqual(created);
    // An unlogged table writes no WAL: it is read every time.
    await server.pool.query("INSERT INTO rate_limits (key, tat) VALUES ('control', now())");
    expect(await fingerprint()).not.toEqual(updated);
    await server.pool.query("DELETE FROM rate_limits WHERE key = 'control'");
    await must('DELETE', '/api/default/agents/control');
  });
});

describe('malformed requests that once answered 500', () => {
  it.each(KNOWN_CASES)('$name: $status $code', async (c) => {
    const op = operationsOf(doc).find((o) => o.id === c.operationId);
    expect(op, c.operationId).toBeDefined();
    const fingerprint = await fingerprinter(server.pool);
    const before = await fingerprint();
    const answer = await send(server.url, op!, c.request(fixtures), bearer);
    expect(await fingerprint()).toEqual(before);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ status: c.status, code: c.code });
    if (c.errorPath) expect(answer.body.errors?.map((e: { path: string }) => e.path)).toContain(c.errorPath);
  });
});
