import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../../test/harness.js';

/** A built console as Vite writes one: a page and hashed assets. */
async function fakeBuild(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-console-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'assets'));
  await writeFile(
    join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="./assets/index-AbC123.js"></script></head><body></body></html>',
  );
  await writeFile(join(dir, 'assets', 'index-AbC123.js'), 'console.log("svc")');
  await writeFile(join(dir, '.env'), 'SECRET=1');
  return dir;
}

const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('the console, served under SVC_BASE_PATH', async () => {
  const server = await startTestServer({ basePath: '/svc', consoleDir: await fakeBuild() });
  const origin = new URL(server.url).origin;

  it('serves its page at {base}/ with a strict CSP and a <base> that mounts it', async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(await response.text()).toContain('<head><base href="/svc/">');
  });

  it("answers every page's URL with the page when a browser asks, so links can be shared", async () => {
    for (const path of ['/agents/support', '/o/default/runs/123', '/settings']) {
      const response = await fetch(`${server.url}${path}`, { headers: html });
      expect(response.status, path).toBe(200);
      expect(await response.text()).toContain('./assets/index-AbC123.js');
    }
  });

  it('keeps the API, the docs and unknown non-HTML requests as they were', async () => {
    const api = await fetch(`${server.url}/api/nothing-here`, { headers: html });
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(((await api.json()) as { code: string }).code).toBe('route_not_found');
    const json = await fetch(`${server.url}/agents/support`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(404);
    expect(((await json.json()) as { code: string }).code).toBe('route_not_found');
    expect(
      (await fetch(`${server.url}/openapi.json`, { headers: html })).headers.get('content-type'),
    ).toMatch(/json/);
    // Outside the base path is not the console either.
    expect((await fetch(`${origin}/agents`, { headers: html })).status).toBe(404);
  });

  it('serves hashed assets for a year, and nothing outside its folder', async () => {
    const asset = await fetch(`${server.url}/assets/index-AbC123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    for (const path of [
      '/assets/..%2f.env',
      '/assets/%2e%2e/.env',
      '/assets/../.env',
      '/assets/missing.js',
    ]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(await response.text(), path).not.toContain('SECRET');
    }
  });
});

describe('a server whose console is not built', async () => {
  const server = await startTestServer({ consoleDir: null });
  it('says so at its address, and how to build it', async () => {
    const response = await fetch(`${server.url}/`, { headers: html });
    expect(response.status).toBe(503);
    expect(await response.text()).toMatch(/npm run build/);
  });
});
