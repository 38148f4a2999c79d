/** The description as an object: JSON or YAML text, or an object already parsed; 3.0 or 3.1 only. */

import { parse as parseYaml } from 'yaml';
import { OpenApiError } from './types.js';

/**
 * What a description may cost. Large public APIs (GitHub's) are about 10 MB of JSON; beyond the
 * limits the description is refused rather than holding a worker's memory and time.
 */
export const OPENAPI_LIMITS = {
  /** Characters of text, or of an object's JSON. */
  chars: 16_000_000,
  /** Objects and arrays a selected operation's parameters and body expand to, `$ref`s inlined. */
  expandedNodes: 20_000,
} as const;

export type OpenApiDocument = Record<string, unknown>;

export function parseDescription(description: unknown): OpenApiDocument {
  const doc = typeof description === 'string' ? parseText(description) : description;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new OpenApiError('the OpenAPI description is not an object');
  }
  const object = doc as OpenApiDocument;
  if (typeof description !== 'string' && (JSON.stringify(object)?.length ?? 0) > OPENAPI_LIMITS.chars) {
    throw new OpenApiError(`the OpenAPI description is larger than ${OPENAPI_LIMITS.chars} characters`);
  }
  if (typeof object.swagger === 'string') {
    throw new OpenApiError(
      `Swagger ${object.swagger} descriptions are not supported: convert it to OpenAPI 3 (e.g. with swagger2openapi)`,
    );
  }
  if (typeof object.openapi !== 'string' || !/^3\.[01]\./.test(object.openapi)) {
    throw new OpenApiError(
      `not an OpenAPI 3.0 or 3.1 description (openapi: ${JSON.stringify(object.openapi ?? null)})`,
    );
  }
  return object;
}

function parseText(text: string): unknown {
  if (text.length > OPENAPI_LIMITS.chars) {
    throw new OpenApiError(`the OpenAPI description is larger than ${OPENAPI_LIMITS.chars} characters`);
  }
  try {
    if (/^\s*\{/.test(text)) return JSON.parse(text);
    // yaml's default maxAliasCount (100) bounds its own expansion: a "billion laughs" of aliases.
    return parseYaml(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new OpenApiError(`the OpenAPI description is neither JSON nor YAML: ${reason}`);
  }
}
