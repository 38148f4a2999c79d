import { Validator } from '@seriousme/openapi-schema-validator';
import { PROBLEM_CODES } from '@svc/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { REQUEST_EXAMPLES } from './openapi-examples.js';

/** Every operation of the document, with where it is. */
const operationsOf = (doc: any) =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods as Record<string, any>).map(([method, operation]) => ({
      where: `${method.toUpperCase()} ${path}`,
      operation,
    })),
  );

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

  it('documents both bodies of a message: JSON, and multipart with its files', () => {
    const content = doc.paths['/api/v1/agents/{agentId}/messages'].post.requestBody.content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'multipart/form-data']);
    expect(content['application/json'].schema).toBeDefined();
    expect(content['multipart/form-data'].schema.properties.files).toMatchObject({
      type: 'array',
      items: { type: 'string', format: 'binary' },
    });
  });

  it('lists every registered route with its schemas, and the bearer scheme on protected ones', () => {
    const documented = server
      .routes()
      .filter((r) => r.method !== 'HEAD' && !r.url.includes('/docs') && !r.url.endsWith('/openapi.json'))
      // The console's page and assets are not API operations.
      .filter((r) => !/^\/(\*|assets\/\*)?$/.test(r.url.slice(basePath.length) || '/'));
    expect(documented.length).toBeGreaterThan(15);
    for (const route of documented) {
      const path = toOpenApiPath(route.url.slice(basePath.length) || '/');
      const operation = doc.paths[path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${path}`).toBeDefined();
      expect(operation.operationId, `${route.method} ${path}`).toBeTruthy();
      if (route.auth === 'public') {
        expect(operation.security, `${route.method} ${path}`).toEqual([]);
      } else {
        expect(operation.security, `${route.method} ${path}`).toEqual([{ bearerAuth: [] }]);
        expect(operation.responses['401'], `${route.method} ${path}`).toBeDefined();
        expect(operation.responses['503'], `${route.method} ${path}`).toBeDefined();
      }
      if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
        expect(
          operation.requestBody?.content?.['application/json']?.schema,
          `${route.method} ${path}`,
        ).toBeDefined();
      }
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect(doc.paths[path].get.security, path).toEqual([]);
    }
  });

  it('declares every error answer as application/problem+json with the one Problem schema', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, any>).map(([method, operation]) => ({
        where: `${method.toUpperCase()} ${path}`,
        operation,
      })),
    );
    for (const { where, operation } of operations) {
      const statuses = Object.keys(operation.responses);
      expect(statuses, where).toContain('500');
      if (operation.requestBody) expect(statuses, where).toEqual(expect.arrayContaining(['413', '415']));
      for (const status of statuses.filter((s) => !s.startsWith('2'))) {
        expect(operation.responses[status].content, `${where} ${status}`).toEqual({
          'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
        });
      }
    }
    expect(doc.components.schemas.Problem).toMatchObject({
      type: 'object',
      required: ['type', 'title', 'status', 'detail', 'code'],
      properties: { code: { enum: [...PROBLEM_CODES] } },
    });
  });

  it('declares what /readyz and /metrics answer', () => {
    expect(Object.keys(doc.paths['/readyz'].get.responses).sort()).toEqual(['200', '431', '500', '503']);
    expect(doc.paths['/metrics'].get.responses['200'].content).toEqual({
      'text/plain': { schema: { type: 'string' } },
    });
  });

  it('gives every operation a summary, a description, a unique id and one tag that it declares', () => {
    const declared = doc.tags.map((t: { name: string; description: string }) => {
      expect(t.description, t.name).toBeTruthy();
      return t.name;
    });
    expect(new Set(declared).size).toBe(declared.length);
    const ids = new Set<string>();
    const used = new Set<string>();
    for (const { where, operation } of operationsOf(doc)) {
      expect(operation.summary, where).toBeTruthy();
      expect(operation.description, where).toBeTruthy();
      expect(operation.tags, where).toHaveLength(1);
      expect(declared, where).toContain(operation.tags[0]);
      used.add(operation.tags[0]);
      expect(ids.has(operation.operationId), `${where} ${operation.operationId}`).toBe(false);
      ids.add(operation.operationId);
    }
    expect([...used].sort()).toEqual([...declared].sort());
  });

  it('types the id of a stored row as the integer its record carries, wherever a request names one', () => {
    const rowIds = ['connectionId', 'feedId', 'runId', 'eventId', 'entityId', 'relationshipId', 'attemptId'];
    let seen = 0;
    for (const { where, operation } of operationsOf(doc)) {
      for (const parameter of operation.parameters ?? []) {
        if (!rowIds.includes(parameter.name)) continue;
        seen++;
        expect(parameter.schema, `${where} ${parameter.name}`).toEqual({ type: 'integer', minimum: 1 });
      }
    }
    expect(seen).toBeGreaterThan(25);
    const connection =
      doc.paths['/api/{org}/connections/{connectionId}'].get.responses['200'].content['application/json']
        .schema.properties.connection;
    expect(connection.properties.id).toMatchObject({ type: 'integer', minimum: 1 });
    const message = doc.paths['/api/v1/agents/{agentId}/messages/{messageId}'].get;
    expect(message.parameters.find((p: { name: string }) => p.name === 'messageId').schema).toMatchObject({
      type: 'string',
      format: 'uuid',
    });
  });

  it('has no bound or example that no value can have, such as the smallest safe integer', () => {
    const found: string[] = [];
    const walk = (value: unknown, at: string): void => {
      if (value === Number.MIN_SAFE_INTEGER) found.push(at);
      if (value !== null && typeof value === 'object') {
        for (const [key, child] of Object.entries(value)) walk(child, `${at}/${key}`);
      }
    };
    walk(doc, '');
    expect(found).toEqual([]);
  });

  it('gives every operation that takes fields an example body to start a test request from', () => {
    const withExample: string[] = [];
    for (const { where, operation } of operationsOf(doc)) {
      const media = operation.requestBody?.content?.['application/json'];
      if (!media) continue;
      // A body that may be left out and has no fields (approve, cancel, sync...) needs none.
      const fieldless = JSON.stringify(media.schema).includes('"properties":{}');
      if (fieldless) continue;
      expect(media.example, where).toBeDefined();
      withExample.push(operation.operationId);
    }
    expect(withExample.sort()).toEqual(Object.keys(REQUEST_EXAMPLES).sort());
  });

  it('declares the event streams as text/event-stream, with an example of what comes', () => {
    for (const path of [
      '/api/v1/agents/{agentId}/conversations/{conversationId}/events',
      '/api/{org}/auth-runs/{runId}/events',
    ]) {
      const content = doc.paths[path].get.responses['200'].content;
      expect(Object.keys(content), path).toEqual(['text/event-stream']);
      expect(content['text/event-stream'].example, path).toMatch(/^retry: 1000\n\nid: \d+\nevent: /);
    }
  });

  it('describes include as a list of config and platforms', () => {
    for (const path of ['/api/{org}/agents', '/api/{org}/agents/{id}']) {
      const include = doc.paths[path].get.parameters.find((p: { name: string }) => p.name === 'include');
      expect(include, path).toMatchObject({
        in: 'query',
        required: false,
        style: 'form',
        explode: true,
        schema: { type: 'array', items: { type: 'string', enum: ['config', 'platforms'] } },
      });
    }
  });

  it('has only components that operations use, none of them referring to itself', () => {
    const text = JSON.stringify(doc.paths);
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      const ref = `"#/components/schemas/${name}"`;
      expect(JSON.stringify(schema), name).not.toContain(ref);
      expect(text, name).toContain(ref);
    }
    // What a generated client needs to accept an ordinary table such as {bot_token, channel}.
    expect(doc.components.schemas.PlatformConfigValueInput.anyOf).toContainEqual({
      type: 'object',
      propertyNames: { type: 'string', maxLength: 200 },
      additionalProperties: {},
    });
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
