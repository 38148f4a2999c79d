import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';

export const VALIDATION_ERROR = Symbol.for('svc.validation');

/** RFC 6901: `~` and `/` inside a key are escaped, so a key such as `IDENTITY.md` stays one segment. */
export function pointer(segments: readonly PropertyKey[]): string {
  return segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

export interface FieldError {
  [VALIDATION_ERROR]: true;
  instancePath: string;
  message: string;
}

/** One error per field; an unknown key points at the key itself rather than at its parent. */
export function fieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        [VALIDATION_ERROR]: true as const,
        instancePath: pointer([...issue.path, key]),
        message: `unknown key "${key}"`,
      }));
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // A discriminated union reports the branch that matched the discriminator; report its fields.
      const branch = issue.errors.find((e) => e.length > 0);
      if (branch && issue.errors.length === 1) return fieldErrors(branch);
    }
    return [{ [VALIDATION_ERROR]: true as const, instancePath: pointer(issue.path), message: issue.message }];
  });
}

/**
 * Path and query values holding a NUL (`%00`): PostgreSQL cannot take one in text, so any query
 * that compares such a value fails in the database. JSON bodies are checked as they are read.
 */
function nulFields(data: unknown): FieldError[] {
  if (data === null || typeof data !== 'object') return [];
  const holdsNul = (value: unknown) =>
    [value].flat().some((v) => typeof v === 'string' && v.includes('\u0000'));
  return Object.entries(data)
    .filter(([, value]) => holdsNul(value))
    .map(([key]) => ({
      [VALIDATION_ERROR]: true as const,
      instancePath: pointer([key]),
      message: 'holds a NUL character',
    }));
}

/** Zod validation for every request part, with errors Fastify hands to the error handler. */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const nul = httpPart === 'params' || httpPart === 'querystring' ? nulFields(data) : [];
    if (nul.length > 0) return { error: nul as unknown as Error };
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    return { error: fieldErrors(result.error.issues) as unknown as Error };
  };
