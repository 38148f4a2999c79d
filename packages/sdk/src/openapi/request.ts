/**
 * The HTTP request for one call: the URL from the server and the path template, parameters
 * serialised as their `style` says, the body in its media type, the credentials on top. Throws
 * with a message for the agent when the input cannot make a request.
 */

import type { AppliedCredentials } from './credentials.js';
import type { OpenApiOperation, OpenApiParameter } from './types.js';

export interface BuiltRequest {
  url: string;
  headers: Record<string, string>;
  body?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export function buildRequest(
  operation: OpenApiOperation,
  input: Record<string, unknown>,
  serverUrl: string | undefined,
  credentials: AppliedCredentials,
): BuiltRequest {
  const base = serverBase(serverUrl);
  const missing = operation.parameters.filter((p) => p.required && input[p.property] == null);
  if (missing.length > 0) {
    throw new Error(`input is missing ${missing.map((p) => `${p.in} parameter "${p.property}"`).join(', ')}`);
  }

  const path = operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const param = operation.parameters.find((p) => p.in === 'path' && p.name === name);
    if (!param) throw new Error(`the path's "{${name}}" is not a declared parameter`);
    return pathSegment(param, input[param.property]);
  });
  const url = new URL(base.href.replace(/\/+$/, '') + path);
  // The path can only have grown under the server's: a value cannot lead elsewhere.
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname.replace(/\/+$/, ''))) {
    throw new Error('the path parameters lead outside the server URL');
  }

  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' };
  for (const param of operation.parameters) {
    const value = input[param.property];
    if (value == null || param.in === 'path') continue;
    if (param.in === 'query') appendQuery(url.searchParams, param, value);
    else headers[param.name.toLowerCase()] = headerValue(param, value);
  }
  for (const [name, value] of Object.entries(credentials.query)) url.searchParams.set(name, value);
  for (const [name, value] of Object.entries(credentials.headers)) headers[name.toLowerCase()] = value;

  const request: BuiltRequest = { url: url.href, headers };
  const body = operation.body;
  const value = body ? input[body.property] : undefined;
  if (body && value === undefined && body.required)
    throw new Error(`input is missing the request body "${body.property}"`);
  if (body && value !== undefined) {
    headers['content-type'] = body.mediaType;
    request.body = encodeBody(body.mediaType, value);
  }
  return request;
}

function serverBase(serverUrl: string | undefined): URL {
  if (!serverUrl) {
    throw new Error(
      'no server URL: the description has no absolute servers entry, so openapiConfig needs serverUrl',
    );
  }
  const base = URL.canParse(serverUrl) ? new URL(serverUrl) : undefined;
  if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:')) {
    throw new Error(`the server URL "${serverUrl.split(/[?#]/)[0]}" is not an http(s) URL`);
  }
  base.search = '';
  base.hash = '';
  return base;
}

/** `simple` style; `.` and `..` are refused, as a URL parser would climb out of the path with them. */
function pathSegment(param: OpenApiParameter, value: unknown): string {
  const raw = Array.isArray(value)
    ? value.map(text).join(',')
    : isObject(value)
      ? Object.entries(value)
          .flatMap(([k, v]) => (param.explode ? [`${k}=${text(v)}`] : [k, text(v)]))
          .join(',')
      : text(value);
  if (raw === '' || raw === '.' || raw === '..') {
    throw new Error(`path parameter "${param.property}" cannot be ${JSON.stringify(raw)}`);
  }
  return encodeURIComponent(raw);
}

function appendQuery(query: URLSearchParams, param: OpenApiParameter, value: unknown): void {
  if (param.json) {
    query.append(param.name, JSON.stringify(value));
    return;
  }
  const style = param.style ?? 'form';
  const explode = param.explode ?? style === 'form';
  if (Array.isArray(value)) {
    if (explode) for (const item of value) query.append(param.name, text(item));
    else
      query.append(
        param.name,
        value.map(text).join(style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : ','),
      );
  } else if (isObject(value)) {
    if (style === 'deepObject')
      for (const [k, v] of Object.entries(value)) query.append(`${param.name}[${k}]`, text(v));
    else if (explode) for (const [k, v] of Object.entries(value)) query.append(k, text(v));
    else
      query.append(
        param.name,
        Object.entries(value)
          .flatMap(([k, v]) => [k, text(v)])
          .join(','),
      );
  } else query.append(param.name, text(value));
}

function headerValue(param: OpenApiParameter, value: unknown): string {
  const raw = param.json
    ? JSON.stringify(value)
    : Array.isArray(value)
      ? value.map(text).join(',')
      : isObject(value)
        ? Object.entries(value)
            .flatMap(([k, v]) => (param.explode ? [`${k}=${text(v)}`] : [k, text(v)]))
            .join(',')
        : text(value);
  if (/[\r\n\0]/.test(raw)) throw new Error(`header parameter "${param.property}" cannot hold line breaks`);
  return raw;
}

function encodeBody(mediaType: string, value: unknown): string {
  const type = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/x-www-form-urlencoded') {
    if (!isObject(value)) throw new Error('the form body must be an object');
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(value)) {
      for (const item of Array.isArray(v) ? v : [v]) if (item != null) form.append(k, text(item));
    }
    return form.toString();
  }
  if (type.startsWith('text/')) return text(value);
  return JSON.stringify(value);
}
