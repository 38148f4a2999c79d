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

/** Zod validation for every request part, with errors Fastify hands to the error handler. */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    return { error: fieldErrors(result.error.issues) as unknown as Error };
  };
