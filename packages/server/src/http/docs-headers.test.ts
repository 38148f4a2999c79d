import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

/** The API reference is a page in a browser: it gets a browser's protections (the e2e test renders it). */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ basePath: '/svc' });
});

describe('/docs', () => {
  it('sends a Content-Security-Policy allowing only its own script and configuration, and no framing', async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("connect-src 'self'");
    // The inline configuration runs because its hash is listed; nothing else inline would.
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(inline).toHaveLength(1);
    const hash = createHash('sha256')
      .update(inline[0] ?? '')
      .digest('base64');
    const scripts = policy.split('; ').find((d) => d.startsWith('script-src '));
    expect(scripts).toBe(`script-src 'self' 'sha256-${hash}'`);
    expect(policy).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
  });

  it('sends the same protections with its script', async () => {
    const res = await fetch(`${server.url}/docs/js/scalar.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    await res.arrayBuffer();
  });
});

describe('every other answer', () => {
  it('is no-store and nosniff, problems included', async () => {
    for (const [path, status] of [
      ['/api/default/agents', 200],
      ['/api/default/nothing-here', 404],
      ['/openapi.json', 200],
      // Refused by the router before any hook runs.
      ['/api/default/agents/%zz', 400],
      [`/api/default/agents/${'a'.repeat(1200)}`, 414],
    ] as const) {
      const res = await server.call('GET', path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('cache-control'), path).toBe('no-store');
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      // A refused URL is not sent back: it may be long, or hold what should not travel again.
      if (status >= 400) expect(JSON.stringify(res.body)).not.toContain('aaaaaaaaaa');
    }
  });
});
