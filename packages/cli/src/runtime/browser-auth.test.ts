import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BrowserAuthIo, browserAuth, findChromium } from './browser-auth.js';

/**
 * `svc memory browser-auth` before any browser starts: which Chromium, and that a machine without
 * one sends nothing. The capture itself runs with Debian's Chromium in
 * packages/server/e2e/browser-session.e2e.ts.
 */

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const io = (env: Record<string, string>): BrowserAuthIo => ({
  env,
  out: () => {},
  err: () => {},
  sleep: async () => {},
  pollMs: 1,
  waitForEnter: async () => {},
});

describe('which Chromium', () => {
  it('is SVC_CHROMIUM_PATH when it names an executable, and an error naming it when not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-chromium-'));
    dirs.push(dir);
    const fake = join(dir, 'chromium');
    await writeFile(fake, '#!/bin/sh\n');
    await expect(findChromium({ SVC_CHROMIUM_PATH: fake })).rejects.toThrow(
      /SVC_CHROMIUM_PATH is .*not an executable/,
    );
    await chmod(fake, 0o755);
    expect(await findChromium({ SVC_CHROMIUM_PATH: fake })).toBe(fake);
    await expect(findChromium({ SVC_CHROMIUM_PATH: join(dir, 'none') })).rejects.toThrow(
      /SVC_CHROMIUM_PATH is .*apt-get install chromium/,
    );
  });

  it('is checked before any request: without one, nothing is sent', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests++;
      response.end('{}');
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      await expect(
        browserAuth(
          { connection: '7' },
          io({ SVC_URL: url, SVC_API_TOKEN: 'svc_test', SVC_CHROMIUM_PATH: '/nonexistent/chromium' }),
        ),
      ).rejects.toThrow(/SVC_CHROMIUM_PATH/);
      await expect(
        browserAuth({ connection: 'seven' }, io({ SVC_URL: url, SVC_API_TOKEN: 'svc_test' })),
      ).rejects.toThrow(/"seven" is not a connection id/);
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });
});
