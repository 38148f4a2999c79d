/**
 * An OpenAPI schema object as JSON Schema 2020-12, which input schemas are. A 3.1 schema already
 * is one; a 3.0 schema says `nullable`, boolean `exclusiveMinimum` and `example` its own way.
 * Keywords only OpenAPI knows (`discriminator`, `xml`, `externalDocs`) are dropped in both.
 */

import type { JsonSchema } from '../definition/types.js';

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_ONE = [
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const OPENAPI_ONLY = ['discriminator', 'xml', 'externalDocs'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export function toJsonSchema(schema: unknown, version30: boolean): JsonSchema {
  if (!isObject(schema)) return {};
  // Built with fromEntries: a key `__proto__` in the description stays a key, not a prototype.
  const out: JsonSchema = Object.fromEntries(
    Object.entries(schema)
      .filter(([keyword]) => !OPENAPI_ONLY.includes(keyword))
      .map(([keyword, value]) => [keyword, convertKeyword(keyword, value, version30)]),
  );
  return version30 ? from30(out) : out;
}

function convertKeyword(keyword: string, value: unknown, version30: boolean): unknown {
  if (SCHEMA_MAPS.includes(keyword) && isObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([name, sub]) => [name, toJsonSchema(sub, version30)]),
    );
  }
  if (SCHEMA_ONE.includes(keyword) && isObject(value)) return toJsonSchema(value, version30);
  if (SCHEMA_LISTS.includes(keyword) && Array.isArray(value))
    return value.map((sub) => toJsonSchema(sub, version30));
  return value;
}

function from30(schema: JsonSchema): JsonSchema {
  const { nullable, example, exclusiveMinimum, exclusiveMaximum, ...out } = schema;
  if (nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  if (example !== undefined) out.examples = [example];
  for (const [flag, bound, name] of [
    [exclusiveMinimum, 'minimum', 'exclusiveMinimum'],
    [exclusiveMaximum, 'maximum', 'exclusiveMaximum'],
  ] as const) {
    if (typeof flag === 'number') out[name] = flag;
    else if (flag === true && typeof out[bound] === 'number') {
      out[name] = out[bound];
      delete out[bound];
    }
  }
  return out;
}
