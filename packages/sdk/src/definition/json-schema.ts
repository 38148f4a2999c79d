/**
 * JSON Schema 2020-12 through Ajv: whether a definition's schema is itself valid, and whether a
 * config, input or output conforms to it, in messages that name the field.
 */

import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { JsonSchema } from './types.js';

// No logger: an unknown `format` is ignored as the standard says, not printed on every compile.
const ajv = new Ajv2020({ allErrors: true, strict: false, logger: false });
// `format` (uri, email, date-time) is what zod's builders emit for z.url(), z.email(), z.iso.datetime().
addFormats.default(ajv);
/** Compiles schemas only to see whether they compile: nothing it compiles is kept or shared. */
const checker = new Ajv2020({ allErrors: true, strict: false, logger: false });
addFormats.default(checker);
const compiled = new WeakMap<JsonSchema, ReturnType<typeof ajv.compile>>();

/** Problems of `value` against a JSON Schema, as `path: message` lines; empty when it conforms. */
export function schemaProblems(schema: JsonSchema, value: unknown): string[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map(describeAjvError);
}

function describeAjvError(error: ErrorObject): string {
  const where = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '';
  if (error.keyword === 'required') {
    const field = (error.params as { missingProperty: string }).missingProperty;
    return `${where ? `${where}.` : ''}${field}: is required`;
  }
  if (error.keyword === 'additionalProperties') {
    const field = (error.params as { additionalProperty: string }).additionalProperty;
    return `${where ? `${where}.` : ''}${field}: is not allowed`;
  }
  return `${where || '(value)'}: ${error.message ?? 'is invalid'}`;
}

/** Limits of a schema an org writes: checking against it must stay cheap for everyone else. */
export const SCHEMA_LIMITS = { chars: 32_768, depth: 32, patterns: 64, patternChars: 1000 } as const;

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/**
 * What makes a schema too costly to compile or to check values against, as `path: message`: its
 * size, its depth, how many regular expressions it holds, and `uniqueItems` over items of no
 * scalar `type` (Ajv then compares every pair: an array of 50,000 took seconds). Checked before it
 * is compiled, as compiling thousands of patterns takes seconds itself.
 */
export function schemaLimitProblems(schema: JsonSchema): string[] {
  const problems: string[] = [];
  const chars = JSON.stringify(schema)?.length ?? 0;
  if (chars > SCHEMA_LIMITS.chars) {
    return [`(schema): is ${chars} characters of JSON; at most ${SCHEMA_LIMITS.chars}`];
  }
  let patterns = 0;
  const walk = (node: unknown, path: string[]) => {
    if (path.length > SCHEMA_LIMITS.depth) {
      problems.push(`${path.join('.')}: nested deeper than ${SCHEMA_LIMITS.depth}`);
      return;
    }
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, [...path, String(i)]);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const object = node as Record<string, unknown>;
    const where = path.length > 0 ? path.join('.') : '(schema)';
    if (typeof object.pattern === 'string') {
      patterns++;
      if (object.pattern.length > SCHEMA_LIMITS.patternChars) {
        problems.push(`${where}.pattern: longer than ${SCHEMA_LIMITS.patternChars} characters`);
      }
    }
    if (object.patternProperties && typeof object.patternProperties === 'object') {
      patterns += Object.keys(object.patternProperties).length;
    }
    if (object.uniqueItems === true) {
      const items = object.items as Record<string, unknown> | undefined;
      const types = items && (Array.isArray(items.type) ? items.type : [items.type]);
      if (!types?.every((type) => typeof type === 'string' && SCALAR_TYPES.has(type))) {
        problems.push(
          `${where}.uniqueItems: needs items of a scalar type (items: {type: "string"}, "number", "integer" or "boolean")`,
        );
      }
    }
    for (const [key, value] of Object.entries(object)) walk(value, [...path, key]);
  };
  walk(schema, []);
  if (patterns > SCHEMA_LIMITS.patterns) {
    problems.push(`(schema): holds ${patterns} patterns; at most ${SCHEMA_LIMITS.patterns}`);
  }
  return problems;
}

/**
 * What is wrong with a schema itself (a misspelt type, `required` not a list), as `path: message`.
 * Only the first of the metaschema's complaints: the ones after it are the other branches of the
 * same `anyOf`, which say the same thing less clearly.
 */
export function invalidSchemaProblems(schema: JsonSchema): string[] {
  let valid: boolean;
  try {
    valid = ajv.validateSchema(schema) as boolean;
  } catch (error) {
    // A `$schema` naming a dialect Ajv has not loaded (draft-07, say) throws rather than answers.
    const dialect = (schema as { $schema?: unknown }).$schema;
    return [
      typeof dialect === 'string'
        ? `$schema: ${JSON.stringify(dialect)} is not JSON Schema 2020-12; leave $schema out or name https://json-schema.org/draft/2020-12/schema`
        : `(schema): ${(error as Error).message}`,
    ];
  }
  if (valid) return compileProblems(schema);
  const [first] = ajv.errors ?? [];
  if (!first) return ['(schema): is invalid'];
  const where = first.instancePath ? first.instancePath.slice(1).replaceAll('/', '.') : '(schema)';
  const allowed = (first.params as { allowedValues?: unknown[] }).allowedValues;
  const message = allowed ? `must be one of ${allowed.join(', ')}` : (first.message ?? 'is invalid');
  return [`${where}: ${message}`];
}

/**
 * What the metaschema accepts and compiling still refuses: a `$ref` that resolves nowhere, a
 * `pattern` that is not a regular expression. Compiled once; the result is not kept.
 */
function compileProblems(schema: JsonSchema): string[] {
  try {
    checker.compile(schema);
    return [];
  } catch (error) {
    return [`(schema): ${(error as Error).message}`];
  } finally {
    checker.removeSchema(schema);
  }
}
