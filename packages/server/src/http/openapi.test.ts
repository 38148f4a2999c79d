import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

/** OpenAPI writes `:param` as `{param}`. */
const toOpenApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

describe.each([
  ['at the root', ''],
  ['under a mount prefix', '/svc'],
])('the OpenAPI document %s', (_label, basePath) => {
  let server: TestServer;
  let doc: any;
  beforeAll(async () => {
    server = await startTestServer({ basePath });
    const res = await server.call('GET', '/openapi.json', { token: null });
    expect(res.status).toBe(200);
    doc = res.body;
  });

  it('passes the OpenAPI 3.1 schema validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('lists every registered route with its schemas, and the bearer scheme on protected ones', () => {
    const documented = server
      .routes()
      .filter((r) => r.method !== 'HEAD' && !r.url.includes('/docs') && !r.url.endsWith('/openapi.json'));
    expect(documented.length).toBeGreaterThan(15);
    for (const route of documented) {
      const path = toOpenApiPath(route.url.slice(basePath.length) || '/');
      const operation = doc.paths[path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${path}`).toBeDefined();
      expect(operation.operationId, `${route.method} ${path}`).toBeTruthy();
      if (route.auth !== 'public') {
        expect(operation.security, `${route.method} ${path}`).toEqual([{ bearerAuth: [] }]);
        expect(operation.responses['401'], `${route.method} ${path}`).toBeDefined();
      }
      if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
        expect(
          operation.requestBody?.content?.['application/json']?.schema,
          `${route.method} ${path}`,
        ).toBeDefined();
      }
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('names the mount prefix as its server and keeps it out of the paths', () => {
    expect(doc.servers).toEqual([{ url: basePath || '/' }]);
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/svc'))).toBe(false);
    expect(doc.paths['/api/{org}/agents']).toBeDefined();
  });

  it('serves the interactive reference and its script under the prefix', async () => {
    const page = await fetch(`${server.url}/docs/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`${basePath}/openapi.json`);
    const script = await fetch(`${server.url}/docs/js/scalar.js`);
    expect(script.status).toBe(200);
  });
});
