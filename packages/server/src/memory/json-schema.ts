/**
 * The JSON Schemas of the memory model (an entity type's or relationship type's `metadata_schema`, a
 * watcher's `extraction_schema`): refused when stored if they do not compile, and used to check
 * metadata. The check that a schema compiles is the SDK's, so that the CLI (at file:line) and the
 * server refuse the same schemas.
 */
import { invalidSchemaProblems } from '@svc/connector-sdk';
import { extractionSchemaRootProblem } from '@svc/core';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ProblemError } from '../http/problem.js';

const ajv = new Ajv2020({ allErrors: true, strict: false, logger: false });
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
    validate = ajv.compile(schema);
    // Ajv keeps every schema object it compiled; this cache is the one that is bounded.
    ajv.removeSchema(schema);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(text, validate);
  }
  return validate;
}

/** What is wrong with `value` against `schema`, as `path: message` lines; empty when it conforms. */
export function metadataProblems(schema: Record<string, unknown>, value: unknown): string[] {
  const validate = validatorOf(schema);
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
  const problems = invalidSchemaProblems(schema);
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
