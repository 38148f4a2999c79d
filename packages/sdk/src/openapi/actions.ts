/**
 * `actionsFromOpenApi`: each operation an `openapiConfig` allows becomes an action whose input is
 * one object: the path, query and header parameters by name, and the request body under `body`.
 * The body is not flattened into the parameters: its schema may be an `allOf`/`oneOf` or not an
 * object at all, and a property of it could share a parameter's name, so one fixed place is the
 * only mapping that stays the same across every operation.
 */

import { SCHEMA_LIMITS, schemaLimitProblems } from '../definition/json-schema.js';
import type { ActionDefinition, ConnectorOpenApiConfig, JsonSchema } from '../definition/types.js';
import { type OpenApiDocument, parseDescription } from './parse.js';
import { followRefs, inlineRefs } from './refs.js';
import { toJsonSchema } from './schema.js';
import { securityOf } from './security.js';
import { serverUrlOf } from './servers.js';
import type { OpenApiActions, OpenApiBody, OpenApiOperation, OpenApiParameter } from './types.js';
import { UnsupportedOperation } from './unsupported.js';

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const READS = new Set(['GET', 'HEAD']);
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
/** Tool names are `<connector>__<action>` in at most 64 characters for the models. */
const KEY_MAX = 64;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export type OpenApiActionsConfig = Pick<
  ConnectorOpenApiConfig,
  'includeOperations' | 'excludeOperations' | 'includeTags' | 'serverUrl'
> & {
  /** Where the description came from: relative `servers` URLs resolve against it. */
  specUrl?: string;
};

/**
 * `description`: the parsed object or its JSON or YAML text. Throws `OpenApiError` for a
 * description that cannot be used at all; an operation that cannot become an action (a cookie
 * parameter, a multipart body) is listed in `skipped` and the others go on.
 */
export function actionsFromOpenApi(description: unknown, config: OpenApiActionsConfig = {}): OpenApiActions {
  const doc = parseDescription(description);
  const version30 = String(doc.openapi).startsWith('3.0.');
  const result: OpenApiActions = { actions: {}, operations: {}, skipped: [] };
  const matched = new Set<string>();
  const taken = new Set<string>();

  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    // Only the operations chosen are inlined: one left out may hold what would be refused.
    const item = followRefs(doc, rawItem);
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const operationId = typeof op.operationId === 'string' ? op.operationId : undefined;
      const slug = slugOf(method, path);
      const names = operationId ? [operationId] : [slug];
      if (!allowed(config, names, op.tags)) continue;
      for (const name of names) matched.add(name);
      const label = operationId ?? `${method.toUpperCase()} ${path}`;
      const key = uniqueKey(operationId ? keyOf(operationId) : slug, taken);
      try {
        const built = buildOperation(doc, { key, method, path, item, op, version30, config });
        taken.add(key);
        result.actions[key] = built.action;
        result.operations[key] = built.operation;
      } catch (error) {
        if (!(error instanceof UnsupportedOperation)) throw error;
        result.skipped.push({ operation: label, reason: error.message });
      }
    }
  }
  for (const name of config.includeOperations ?? []) {
    if (!matched.has(name)) {
      result.skipped.push({
        operation: name,
        reason: 'named in includeOperations, but not in the description',
      });
    }
  }
  return result;
}

function allowed(config: OpenApiActionsConfig, names: string[], tags: unknown): boolean {
  if (config.includeOperations && !names.some((n) => config.includeOperations?.includes(n))) return false;
  if (config.excludeOperations && names.some((n) => config.excludeOperations?.includes(n))) return false;
  if (config.includeTags) {
    const own = Array.isArray(tags) ? tags : [];
    if (!own.some((tag) => config.includeTags?.includes(tag))) return false;
  }
  return true;
}

/** An operationId as a key: characters outside `[A-Za-z0-9_-]` become `_` (tool names allow no others). */
const keyOf = (operationId: string) =>
  operationId
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^[_-]+/, '')
    .slice(0, KEY_MAX) || 'operation';

/** `get /pets/{petId}` -> `get_pets_petId`: the same for the same operation in every version. */
const slugOf = (method: string, path: string) => keyOf(`${method}${path.replace(/[{}]/g, '')}`);

function uniqueKey(key: string, taken: Set<string>): string {
  if (!taken.has(key)) return key;
  for (let n = 2; ; n++) {
    const candidate = `${key.slice(0, KEY_MAX - String(n).length - 1)}_${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

interface BuildInput {
  key: string;
  method: string;
  path: string;
  item: Json;
  op: Json;
  version30: boolean;
  config: OpenApiActionsConfig;
}

function buildOperation(
  doc: OpenApiDocument,
  { key, method, path, item, op, version30, config }: BuildInput,
): { action: ActionDefinition; operation: OpenApiOperation } {
  const what = `${method.toUpperCase()} ${path}`;
  const resolved = inlineRefs(doc, op, what) as Json;
  const itemParameters = inlineRefs(doc, item.parameters, what);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];

  const parameters: OpenApiParameter[] = [];
  for (const param of mergeParameters(itemParameters, resolved.parameters)) {
    const location = param.in;
    const name = String(param.name);
    if (location === 'cookie') {
      if (param.required === true)
        throw new UnsupportedOperation(`cookie parameter "${name}" is not supported`);
      continue;
    }
    if (location !== 'path' && location !== 'query' && location !== 'header') continue;
    // Sent by fetch itself or by the credential; the description cannot set them.
    if (location === 'header' && /^(accept|content-type|authorization)$/i.test(name)) continue;
    const property = Object.hasOwn(properties, name) ? `${location}_${name}` : name;
    const mustHave = location === 'path' || param.required === true;
    const content = isObject(param.content) ? Object.values(param.content)[0] : undefined;
    const schema = toJsonSchema(isObject(content) ? content.schema : param.schema, version30);
    if (typeof param.description === 'string' && schema.description === undefined) {
      schema.description = param.description;
    }
    define(properties, property, schema);
    if (mustHave) required.push(property);
    parameters.push({
      name,
      in: location,
      property,
      required: mustHave,
      ...(typeof param.style === 'string' && { style: param.style }),
      ...(typeof param.explode === 'boolean' && { explode: param.explode }),
      ...(content !== undefined && { json: true }),
    });
  }

  const body = bodyOf(resolved.requestBody, Object.hasOwn(properties, 'body') ? 'requestBody' : 'body');
  if (body) {
    define(properties, body.property, toJsonSchema(body.schema, version30));
    if (body.required) required.push(body.property);
  }

  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
    if (!parameters.some((p) => p.in === 'path' && p.name === name)) {
      throw new UnsupportedOperation(`its path names {${name}}, which no parameter declares`);
    }
  }

  const inputSchema: JsonSchema = {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: false,
  };
  const tooBig = schemaLimitProblems(inputSchema)[0];
  if (tooBig)
    throw new UnsupportedOperation(
      `its input schema is beyond the limits (${SCHEMA_LIMITS.chars} characters): ${tooBig}`,
    );

  const upper = method.toUpperCase();
  const summary = typeof op.summary === 'string' ? op.summary.trim() : '';
  const description = typeof op.description === 'string' ? op.description.trim() : '';
  const action: ActionDefinition = {
    key,
    name: summary || (typeof op.operationId === 'string' ? op.operationId : what),
    requiresApproval: !READS.has(upper),
    ...((description || summary) && { description: description || summary }),
    annotations: {
      destructiveHint: upper === 'DELETE',
      idempotentHint: IDEMPOTENT.has(upper),
      openWorldHint: true,
    },
    inputSchema,
  };
  const servers = [op.servers, item.servers, doc.servers].find((s) => Array.isArray(s) && s.length > 0);
  const serverUrl = serverUrlOf((servers as unknown[]) ?? [], config.serverUrl, config.specUrl);
  const operation: OpenApiOperation = {
    key,
    method: upper,
    path,
    ...(serverUrl && { serverUrl }),
    parameters,
    ...(body && { body: { property: body.property, mediaType: body.mediaType, required: body.required } }),
    security: securityOf(doc, op),
  };
  return { action, operation };
}

/** As an own property even when a parameter is named `__proto__`. */
const define = (object: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });

/** The path item's parameters, each replaced by the operation's of the same name and location. */
function mergeParameters(fromItem: unknown, fromOp: unknown): Json[] {
  const list = (value: unknown) => (Array.isArray(value) ? value.filter(isObject) : []);
  const own = list(fromOp);
  const same = (a: Json, b: Json) => a.name === b.name && a.in === b.in;
  return [...list(fromItem).filter((p) => !own.some((o) => same(o, p))), ...own];
}

const isJsonType = (type: string) => /^application\/([\w.+-]+\+)?json$/i.test(type);
const SENDABLE = [
  isJsonType,
  (t: string) => t === 'application/x-www-form-urlencoded',
  (t: string) => t.startsWith('text/'),
];

function bodyOf(requestBody: unknown, property: string): (OpenApiBody & { schema: unknown }) | undefined {
  if (!isObject(requestBody) || !isObject(requestBody.content)) return undefined;
  const types = Object.keys(requestBody.content);
  const required = requestBody.required === true;
  const mediaType = SENDABLE.map((fits) =>
    types.find((t) => fits(t.split(';')[0]?.trim().toLowerCase() ?? '')),
  ).find((t) => t !== undefined);
  if (!mediaType) {
    if (required)
      throw new UnsupportedOperation(
        `request bodies of ${types.join(', ')} are not supported (JSON, form or text only)`,
      );
    return undefined;
  }
  const media = requestBody.content[mediaType];
  return { property, mediaType, required, schema: isObject(media) ? media.schema : undefined };
}
