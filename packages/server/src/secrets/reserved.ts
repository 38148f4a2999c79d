import { findSecretReferences, isReservedSecretName, RESERVED_SECRET_RULE } from '@svc/core';
import { ProblemError } from '../http/problem.js';

/**
 * Refuses a write whose references name the server's own settings (422 `secret_reserved`, every
 * offending path listed), wherever a reference can be written: providers, platform config, MCP
 * headers, env and oauth. `at` is the JSON Pointer of `value` in the request.
 */
export function refuseReservedReferences(value: unknown, at: string): void {
  const reserved = findSecretReferences(value, at).filter((ref) => isReservedSecretName(ref.variable));
  if (reserved.length === 0) return;
  const names = [...new Set(reserved.map((ref) => ref.variable))];
  throw new ProblemError(
    422,
    'secret_reserved',
    `${names.map((n) => `$${n}`).join(', ')} cannot be referenced: ${RESERVED_SECRET_RULE}. ` +
      'Store the value the org needs as an org secret ("svc secrets set NAME") under another name',
    reserved.map((ref) => ({ path: ref.path, message: `references reserved name ${ref.variable}` })),
  );
}
