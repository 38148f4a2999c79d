import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeChatCompletions,
  startFakeChatCompletions,
} from '../../../server/test/fakes/chat-completions.js';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { exited, svc } from '../../test/run-svc.js';
import type { RuntimeIo } from './api.js';
import { watchersList, watchersRun, watchersSetStatus, watchersWindows } from './watchers.js';

/** `svc watchers` against a real server whose workers run the windows through a fake model. */

let server: TestServer;
let model: FakeChatCompletions;
let admin: string;
let reader: string;
let dir: string;

beforeAll(async () => {
  model = await startFakeChatCompletions();
  model.answer = () => ({ text: 'All quiet on the shop front.' });
  server = await startTestServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-cli-watchers' },
    workers: { concurrency: 2, reapMs: 200 },
  });
  admin = (await createToken(server, 'default', ['admin'])).secret;
  reader = (await createToken(server, 'default', ['read'])).secret;
  dir = await mkdtemp(join(tmpdir(), 'svc-watchers-'));
  await server.call('POST', '/api/default/agents', {
    body: { agentId: 'ops', name: 'Ops', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  // Once a year: only a run asked for makes a window in this test.
  const made = await server.call('POST', '/api/default/operations/manage_entity_schema', {
    body: {
      action: 'upsert',
      kind: 'watcher',
      item: {
        slug: 'shop-digest',
        name: 'Shop digest',
        schedule: '0 0 1 1 *',
        prompt: 'Digest.',
        agent: 'ops',
      },
    },
  });
  expect(made.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type TestIo = RuntimeIo & { lines: string[]; errors: string[] };

function io(token = admin): TestIo {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    env: { SVC_URL: server.url, SVC_API_TOKEN: token, XDG_CONFIG_HOME: dir },
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

describe('svc watchers', () => {
  it('runs a window now, lists it, and shows its result', async () => {
    const run = io();
    await watchersRun('shop-digest', {}, run);
    const windowId = run.lines[0] as string;
    expect(windowId).toMatch(/^\d+$/);
    expect(run.errors[0]).toContain('started window');
    const windows = io();
    for (let i = 0; i < 200; i++) {
      windows.lines.length = 0;
      await watchersWindows('shop-digest', {}, windows);
      if (windows.lines.some((line) => line.includes('completed'))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(windows.lines[0]).toMatch(/^WINDOW\s+FROM\s+TO\s+STATUS\s+RUN\s+ERROR$/);
    expect(windows.lines[1]).toMatch(new RegExp(`^${windowId}\\s+.*completed, 0 events`));
    const one = io();
    await watchersWindows('shop-digest', { window: windowId }, one);
    expect(one.lines.join('\n')).toContain('reply:\nAll quiet on the shop front.');
    // --json shows the ids as the API gives them: integers, the run's one that `svc runs` takes.
    const json = io();
    await watchersWindows('shop-digest', { window: windowId, json: true }, json);
    const { window } = JSON.parse(json.lines.join('\n'));
    expect(window).toMatchObject({ id: Number(windowId), eventIds: [] });
    expect(window.runId).toEqual(expect.any(Number));
    const list = io(reader);
    await watchersList({}, list);
    expect(list.lines[1]).toMatch(/^shop-digest\s+ops\s+0 0 1 1 \* UTC\s+active\s+.*completed/);
  }, 60_000);

  it('pauses and resumes, and says what to do when a run is asked of a paused watcher', async () => {
    const paused = io();
    await watchersSetStatus('shop-digest', 'paused', {}, paused);
    expect(paused.lines).toEqual([
      'paused watcher "shop-digest": it makes no window until "svc watchers resume shop-digest"',
    ]);
    expect(await failure(() => watchersRun('shop-digest', {}, io()))).toContain(
      'resume it first with "svc watchers resume shop-digest"',
    );
    const resumed = io();
    await watchersSetStatus('shop-digest', 'active', {}, resumed);
    expect(resumed.lines[0]).toMatch(/^resumed watcher "shop-digest": next run \d{4}-01-01 00:00:\d\d UTC$/);
  });

  it('names an unknown watcher and how to find them, and a read token cannot run one', async () => {
    expect(await failure(() => watchersRun('nope', {}, io()))).toContain(
      'org default has no watcher "nope": "svc watchers list" shows them',
    );
    expect(await failure(() => watchersRun('Bad Slug', {}, io()))).toContain('is not a watcher slug');
    expect(await failure(() => watchersRun('shop-digest', {}, io(reader)))).toMatch(/write/);
  });

  it('is a command of the svc binary, exit 0 on success and 1 on an error', async () => {
    const env = { SVC_URL: server.url, SVC_API_TOKEN: admin, XDG_CONFIG_HOME: dir };
    const list = svc(['watchers', 'list', '--json'], env);
    expect(await exited(list), list.output()).toBe(0);
    expect(JSON.parse(list.output()).watchers[0].slug).toBe('shop-digest');
    const missing = svc(['watchers', 'pause', 'nope'], env);
    expect(await exited(missing)).toBe(1);
    expect(missing.output()).toContain('has no watcher "nope"');
  }, 60_000);
});
