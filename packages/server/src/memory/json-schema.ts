/**
 * The JSON Schemas of the memory model (an entity type's or relationship type's `metadata_schema`, a
 * watcher's `extraction_schema`): refused when stored if they do not compile, and used to check
 * metadata. The check that a schema compiles is the SDK's, so that the CLI (at file:line) and the
 * server refuse the same schemas.
 */
import { invalidSchemaProblems, schemaLimitProblems } from '@svc/connector-sdk';
import { extractionSchemaRootProblem } from '@svc/core';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { RE2 } from 're2-wasm';
import { ProblemError } from '../http/problem.js';

/**
 * Patterns run on RE2, in time linear in the text: an org's `^(a+)+$` against a connector's
 * "aaaa…!" would otherwise hold the one event loop every org shares for seconds, then hours.
 * RE2 has no lookaround and no backreferences: a schema using them is refused when stored.
 */
const re2 = Object.assign(
  (pattern: string, flags: string) => new RE2(pattern, flags.includes('u') ? flags : `${flags}u`),
  // What Ajv's standalone code would call; this process only compiles in memory.
  { code: 're2' },
);

const ajv = new Ajv2020({ allErrors: true, strict: false, logger: false, code: { regExp: re2 } });
addFormats.default(ajv);

/**
 * Compiled validators by schema text: a sync links thousands of entities of a few types, and each
 * type's schema comes from a row read again per call. Bounded: schemas change rarely, so the
 * cache is emptied when full rather than kept in order of use.
 */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 500;

function validatorOf(schema: Record<string, unknown>): ValidateFunction {
  const text = JSON.stringify(schema);
  let validate = compiled.get(text);
  if (!validate) {
    // A schema stored before the limits: refused here too, never compiled.
    const limits = schemaLimitProblems(schema);
    if (limits.length > 0) throw new Error(`the schema is over svc's limits: ${limits.join('; ')}`);
    validate = ajv.compile(schema);
    // Ajv keeps every schema object it compiled; this cache is the one that is bounded.
    ajv.removeSchema(schema);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(text, validate);
  }
  return validate;
}

/**
 * What is wrong with `value` against `schema`, as `path: message` lines; empty when it conforms.
 * A schema that cannot be used (over the limits, a pattern RE2 refuses, stored before either was
 * checked) is one problem, never a throw: a sync or a watcher window then fails with it.
 */
export function metadataProblems(schema: Record<string, unknown>, value: unknown): string[] {
  let validate: ValidateFunction;
  try {
    validate = validatorOf(schema);
  } catch (error) {
    return [`(schema): cannot be used: ${(error as Error).message}`];
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map(describe);
}

function describe(error: ErrorObject): string {
  const where = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '(metadata)';
  if (error.keyword === 'required') {
    const field = (error.params as { missingProperty: string }).missingProperty;
    return `${error.instancePath ? `${where}.` : ''}${field}: is required`;
  }
  if (error.keyword === 'additionalProperties') {
    const field = (error.params as { additionalProperty: string }).additionalProperty;
    return `${error.instancePath ? `${where}.` : ''}${field}: is not allowed`;
  }
  return `${where}: ${error.message ?? 'is invalid'}`;
}

/**
 * A 422 `invalid_schema` when `schema` does not compile, or (an `extraction_schema`) is not an
 * object schema with properties: a watcher's result is stored as an object.
 */
export function checkSchema(
  schema: Record<string, unknown> | undefined,
  pointer: string,
  options: { objectRoot?: boolean } = {},
): void {
  if (schema === undefined) return;
  const limits = schemaLimitProblems(schema);
  const problems = limits.length > 0 ? limits : invalidSchemaProblems(schema);
  if (problems.length === 0) problems.push(...re2Problems(schema));
  const root = options.objectRoot && problems.length === 0 ? extractionSchemaRootProblem(schema) : null;
  if (root) problems.push(`(schema): ${root}`);
  if (problems.length === 0) return;
  throw new ProblemError(
    422,
    'invalid_schema',
    `${pointer.split('/').at(-1)} is not a valid JSON Schema: ${problems.join('; ')}`,
    problems.map((message) => ({ path: pointer, message })),
  );
}

/** What the metaschema and JavaScript accept and RE2 does not: lookaround, backreferences. */
function re2Problems(schema: Record<string, unknown>): string[] {
  try {
    validatorOf(schema);
    return [];
  } catch (error) {
    return [
      `(schema): ${(error as Error).message} (svc runs patterns with RE2, which has no lookaround and no backreferences)`,
    ];
  }
}
