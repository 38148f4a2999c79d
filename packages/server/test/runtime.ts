/**
 * Test helpers for the connector runtime: run workers on a test server's database, the spec's
 * Run fields, and a list read to its last page.
 */
import { expect } from 'vitest';
import { type RunWorkerSettings, startSvc } from '../src/app.js';
import { DEFAULT_RUN_LIMITS, type RunWorkers } from '../src/runs/worker.js';
import { type TestServer, testSourceInstalls } from './harness.js';

/**
 * Run workers on `server`'s database as `svc worker` starts them (`startSvc`, connector runs only,
 * on a small pool of their own, with the server's key and environment): quiet, polling every
 * 100 ms; `options` override.
 */
export async function startTestRunWorkers(
  server: TestServer,
  options: RunWorkerSettings = {},
): Promise<RunWorkers> {
  const svc = await startSvc({
    env: server.env,
    databaseUrl: server.databaseUrl,
    encryptionKey: server.options.encryptionKey,
    poolSize: 4,
    turns: false,
    runs: {
      pollMs: 100,
      ...options,
      // The test's own limits, with what its children may reach and run in as the server's.
      limits: {
        ...DEFAULT_RUN_LIMITS,
        egress: server.options.egress.policy,
        unsandboxedSource: testSourceInstalls() === 'unsandboxed',
        ...options.limits,
      },
    },
  });
  const runs = svc.runs;
  if (!runs) throw new Error('startTestRunWorkers: concurrency 0 starts no run worker');
  return {
    get running() {
      return runs.running;
    },
    close: (graceMs) => svc.close(graceMs),
  };
}

/** The spec's Run record, as the API names its fields. */
export const SPEC_RUN_FIELDS = [
  'id',
  'organizationId',
  'runType',
  'feedId',
  'connectionId',
  'actionKey',
  'actionInput',
  'actionOutput',
  'approvalStatus',
  'status',
  'claimedBy',
  'claimedAt',
  'lastHeartbeatAt',
  'completedAt',
  'connectorKey',
  'connectorVersion',
  'checkpoint',
  'itemsCollected',
  'errorMessage',
  'createdAt',
];

/**
 * Every item of a cursor-paged list (`path`, its filters as `&name=value...` in `query`, `key` the
 * array in each page), page by page; fails on a page that is not 200 or holds more than `limit`.
 */
export async function everyPage<T>(
  server: TestServer,
  path: string,
  query: string,
  key: string,
  limit: number,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: { status: number; body: any } = await server.call(
      'GET',
      `${path}?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body[key].length).toBeLessThanOrEqual(limit);
    items.push(...res.body[key]);
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor);
  return { items, pages };
}
