/**
 * Requests for every operation of an OpenAPI document, each broken in one place: a path segment, a
 * query parameter, a header, or the body. Everything else about the request is as valid as the
 * document lets us make it, so that the broken part reaches the code that reads it.
 */
import fc from 'fast-check';
import {
  brokenForms,
  CONTENT_TYPES,
  headerValue,
  MALFORMED_JSON_TEXT,
  nastyJson,
  nastyText,
  percentEncode,
  toJson,
} from './malformed.js';
import { resolver, type Schema, sampleOf, valuesOf } from './schema-values.js';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  id: string;
  method: string;
  /** OpenAPI's template, `{name}` for path parameters. */
  path: string;
  parameters: Parameter[];
  json?: Schema;
  multipart: boolean;
}

export function operationsOf(doc: any): Operation[] {
  const resolve = resolver(doc);
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      id: op.operationId ?? `${method} ${path}`,
      method: method.toUpperCase(),
      path,
      parameters: (op.parameters ?? []).map((p: any) => ({ ...p, schema: resolve(p.schema) })),
      json: op.requestBody?.content?.['application/json']?.schema,
      multipart: Boolean(op.requestBody?.content?.['multipart/form-data']),
    })),
  );
}

/**
 * Who sends: the deployment's admin password, an org's admin token (another code path), or a
 * token that may only read (its refusals must be problems too).
 */
export type Caller = 'admin_password' | 'admin_token' | 'read_token';

export interface FuzzRequest {
  /** What is broken, for the report. */
  broken: string;
  /** Path parameters, already percent-encoded. */
  params: Record<string, string>;
  /** The query string without `?`, as sent. */
  query: string;
  headers: Record<string, string>;
  body?: string;
  caller: Caller;
}

/** Values of path parameters that name what the fixtures made; other parameters get a sample. */
export type Fixtures = Record<string, string>;

/** One way to break a request, weighted by how many places of that kind the operation has. */
type Part = { weight: number; arbitrary: fc.Arbitrary<Partial<FuzzRequest>> };

/** Every node of a JSON value, as paths: the root first. */
function pathsOf(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const here = [at];
  if (Array.isArray(value)) return here.concat(value.flatMap((v, i) => pathsOf(v, [...at, i])));
  if (value !== null && typeof value === 'object') {
    return here.concat(Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...at, k])));
  }
  return here;
}

type Edit =
  | { kind: 'replace'; value: unknown }
  | { kind: 'remove' }
  | { kind: 'add'; key: string; value: unknown };

/** A key set as an own property: `__proto__` too, as JSON.parse makes it. A list gets one more item. */
function addKey(target: any, key: string, value: unknown): void {
  if (Array.isArray(target)) target.push(value);
  else Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `value` with one node replaced, removed, or given an unknown key. */
function edit(value: unknown, pick: number, change: Edit): unknown {
  const paths = pathsOf(value);
  const path = paths[pick % paths.length]!;
  const copy = structuredClone(value);
  if (path.length === 0) {
    if (change.kind === 'add' && copy !== null && typeof copy === 'object') {
      addKey(copy, change.key, change.value);
      return copy;
    }
    return change.kind === 'replace' ? change.value : undefined;
  }
  const parent = path.slice(0, -1).reduce((node: any, key) => node[key], copy) as any;
  const key = path.at(-1)!;
  if (change.kind === 'replace') parent[key] = change.value;
  else if (change.kind === 'remove')
    Array.isArray(parent) ? parent.splice(Number(key), 1) : delete parent[key];
  else if (parent[key] !== null && typeof parent[key] === 'object')
    addKey(parent[key], change.key, change.value);
  else parent[key] = Object.defineProperty({}, change.key, { value: change.value, enumerable: true });
  return copy;
}

const nastyEdit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 4, arbitrary: nastyJson.map((value) => ({ kind: 'replace' as const, value })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'remove' as const }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('unknown', '__proto__', 'constructor', ''), nastyJson)
      .map(([key, value]) => ({ kind: 'add' as const, key, value })),
  },
);

/** Headers that any route may meet, or that the server reads without the document naming them. */
const COMMON_HEADERS = [
  'accept',
  'accept-encoding',
  'content-encoding',
  'last-event-id',
  'x-request-id',
  'x-forwarded-for',
  'cookie',
  'origin',
  'range',
];

const AUTHORIZATIONS = [
  '',
  'Bearer',
  'Bearer ',
  'Basic dXNlcjpwYXNz',
  'Bearer svc_',
  `Bearer svc_${'A'.repeat(43)}`,
  `Bearer ${'x'.repeat(5000)}`,
  'Bearer test-admin-password-0123456789 extra',
];

/** Requests for `op`, each broken in one place. */
export function requestsFor(op: Operation, doc: any, fixtures: Fixtures): fc.Arbitrary<FuzzRequest> {
  const resolve = resolver(doc);
  const params = Object.fromEntries(
    op.parameters
      .filter((p) => p.in === 'path')
      .map((p) => [p.name, fixtures[p.name] ?? percentEncode(String(sampleOf(p.schema, resolve)))]),
  );
  const required = (where: Parameter['in']) => op.parameters.filter((p) => p.in === where && p.required);
  const query = required('query')
    .map((p) => `${p.name}=${percentEncode(String(sampleOf(p.schema, resolve)))}`)
    .join('&');
  const headers = Object.fromEntries(
    required('header').map((p) => [p.name, headerValue(String(sampleOf(p.schema, resolve)))]),
  );
  const body: fc.Arbitrary<string | undefined> = op.json
    ? valuesOf(op.json, resolve).map(toJson)
    : fc.constant(undefined);
  const jsonType: Record<string, string> = op.json ? { 'content-type': 'application/json' } : {};

  const named = (where: Parameter['in']) => op.parameters.filter((p) => p.in === where).map((p) => p.name);
  const parts: Part[] = [];
  const pathNames = named('path');
  if (pathNames.length > 0) {
    parts.push({
      weight: pathNames.length,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...pathNames),
          fc.oneof(nastyText.map(percentEncode), fc.constantFrom('%', '%E0%A4%A', '%00', '..', '.')),
        )
        .map(([name, value]) => ({ broken: `path ${name}`, params: { ...params, [name]: value } })),
    });
  }
  const declared = named('query');
  const undeclared = fc.constantFrom('__proto__', 'unknown');
  const queryName =
    declared.length > 0
      ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...declared) }, { weight: 1, arbitrary: undeclared })
      : undeclared;
  const shape = fc.oneof(
    { weight: 6, arbitrary: fc.constant('once' as const) },
    { weight: 1, arbitrary: fc.constantFrom('twice' as const, 'bare' as const, 'bad escape' as const) },
    { weight: 1, arbitrary: fc.constant('bracketed' as const) },
  );
  parts.push({
    weight: declared.length + 1,
    arbitrary: fc.tuple(queryName, nastyText, shape).map(([name, value, shape]) => {
      const pair = `${percentEncode(name)}=${percentEncode(value)}`;
      const text = {
        once: pair,
        twice: `${pair}&${pair}`,
        bare: percentEncode(name),
        'bad escape': `${percentEncode(name)}=%E0%A4%A${value.length > 0 ? '%' : ''}`,
        bracketed: `${percentEncode(name)}[a]=${percentEncode(value)}`,
      }[shape];
      return { broken: `query ${name} (${shape})`, query: [query, text].filter(Boolean).join('&') };
    }),
  });
  const headerNames = named('header');
  const headerParts: fc.Arbitrary<Partial<FuzzRequest>>[] = [
    fc.constantFrom(...AUTHORIZATIONS).map((value) => ({
      broken: 'header authorization',
      headers: { ...headers, authorization: value },
    })),
  ];
  headerParts.push(
    fc.tuple(fc.constantFrom(...headerNames, ...COMMON_HEADERS), nastyText).map(([name, value]) => ({
      broken: `header ${name}`,
      headers: { ...headers, [name]: headerValue(value) },
    })),
  );
  parts.push({ weight: headerParts.length, arbitrary: fc.oneof(...headerParts) });
  if (op.json) {
    const valid = valuesOf(op.json, resolve);
    const fields = sampleOf(op.json, resolve) as Record<string, unknown>;
    const formFields = Object.fromEntries(
      Object.entries(fields ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
    );
    const oneValue = fc.tuple(valid, fc.nat(), nastyEdit).map(([value, pick, change]) => ({
      broken: 'body (one value)',
      body: toJson(edit(value, pick, change)),
    }));
    parts.push({
      weight: 4,
      arbitrary: fc.oneof(
        { weight: 4, arbitrary: oneValue },
        nastyJson.map((value) => ({ broken: 'body (whole)', body: toJson(value) })),
        fc.oneof(fc.constantFrom(...MALFORMED_JSON_TEXT), fc.string({ maxLength: 30 })).map((text) => ({
          broken: 'body (not JSON)',
          body: text,
        })),
        fc.tuple(fc.constantFrom(...CONTENT_TYPES), valid).map(([type, value]) => ({
          broken: `content-type ${type}`,
          headers: { ...headers, 'content-type': type },
          body: toJson(value),
        })),
        fc.constantFrom(...brokenForms(formFields)).map(([type, text]) => ({
          broken: `multipart ${type}`,
          headers: { ...headers, 'content-type': type },
          body: text,
        })),
      ),
    });
  }
  return fc
    .tuple(
      fc.oneof(...parts),
      body,
      fc.constantFrom<Caller>('admin_password', 'admin_token', 'admin_password', 'admin_token', 'read_token'),
    )
    .map(([part, validBody, caller]) => ({
      params,
      query,
      body: validBody,
      ...part,
      headers: { ...jsonType, ...(part.headers ?? headers) },
      broken: part.broken ?? '',
      caller,
    }));
}

export interface Answer {
  status: number;
  contentType: string;
  body: any;
}

/** Sends `request` for `op` to `baseUrl`; an event stream is answered by its head alone. */
export async function send(
  baseUrl: string,
  op: Operation,
  request: FuzzRequest,
  bearer: Record<Caller, string>,
): Promise<Answer> {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => request.params[name] ?? '');
  const url = `${baseUrl}${path}${request.query ? `?${request.query}` : ''}`;
  const headers = { authorization: `Bearer ${bearer[request.caller]}`, ...request.headers };
  const response = await fetch(url, {
    method: op.method,
    headers,
    body: request.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/event-stream')) {
    await response.body?.cancel();
    return { status: response.status, contentType, body: null };
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, contentType, body };
}
