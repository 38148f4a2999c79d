/**
 * A few plainly wrong requests for an operation of the OpenAPI document, the ones any client sends
 * some day: no credentials, a token that may only read, a body where none is taken, a body of the
 * wrong type or too large, an id that names nothing, a query value of the wrong kind. The server's
 * answer to each must be among the statuses the document declares for the operation.
 */
import { JSON_BODY_LIMIT_BYTES } from '@svc/core';
import type { Fixtures, FuzzRequest, Operation } from './requests.js';
import { resolver, sampleOf } from './schema-values.js';

/** The probes of `op`, each with what it changes in an otherwise plain request. */
export function probesFor(op: Operation, doc: any, fixtures: Fixtures): FuzzRequest[] {
  const resolve = resolver(doc);
  const params = Object.fromEntries(
    op.parameters
      .filter((p) => p.in === 'path')
      .map((p) => [p.name, fixtures[p.name] ?? encodeURIComponent(String(sampleOf(p.schema, resolve)))]),
  );
  const query = op.parameters
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => `${p.name}=${encodeURIComponent(String(sampleOf(p.schema, resolve)))}`)
    .join('&');
  const body = op.json ? JSON.stringify(sampleOf(op.json, resolve) ?? {}) : undefined;
  const json: Record<string, string> = op.json ? { 'content-type': 'application/json' } : {};
  const plain: FuzzRequest = { broken: '', params, query, headers: json, body, caller: 'admin_password' };
  const probes: FuzzRequest[] = [
    { ...plain, broken: 'no credentials', headers: { ...json, authorization: '' } },
    { ...plain, broken: 'a token that may only read', caller: 'read_token' },
    {
      ...plain,
      broken: 'an unknown token',
      headers: { ...json, authorization: `Bearer svc_${'A'.repeat(43)}` },
    },
  ];
  for (const p of op.parameters.filter((p) => p.in === 'path')) {
    const schema = resolve(p.schema);
    const unknown =
      schema.type === 'integer'
        ? '999999999'
        : schema.format === 'uuid'
          ? crypto.randomUUID()
          : 'nothing-here';
    probes.push(
      { ...plain, broken: `path ${p.name} names nothing`, params: { ...params, [p.name]: unknown } },
      { ...plain, broken: `path ${p.name} of the wrong kind`, params: { ...params, [p.name]: 'x.y' } },
      { ...plain, broken: `path ${p.name} too long`, params: { ...params, [p.name]: 'a'.repeat(1001) } },
    );
  }
  for (const p of op.parameters.filter((p) => p.in === 'query')) {
    const wrong = `${p.name}=${encodeURIComponent('not a value {}')}`;
    probes.push({
      ...plain,
      broken: `query ${p.name} of the wrong kind`,
      query: [query, wrong].filter(Boolean).join('&'),
    });
  }
  const big = `{"a":"${'x'.repeat(JSON_BODY_LIMIT_BYTES)}"}`;
  if (op.json) {
    probes.push(
      { ...plain, broken: 'a body that is not JSON', body: '{"a":' },
      {
        ...plain,
        broken: 'a body of another type',
        headers: { 'content-type': 'text/plain' },
        body: 'hello',
      },
      { ...plain, broken: 'a body over the limit', body: big },
      { ...plain, broken: 'an empty JSON object', body: '{}' },
    );
  } else if (op.method !== 'GET') {
    probes.push(
      {
        ...plain,
        broken: 'a JSON body where none is taken',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      },
      {
        ...plain,
        broken: 'a text body where none is taken',
        headers: { 'content-type': 'text/plain' },
        body: 'hello',
      },
      {
        ...plain,
        broken: 'a body over the limit where none is taken',
        headers: { 'content-type': 'application/json' },
        body: big,
      },
    );
  }
  return probes;
}
