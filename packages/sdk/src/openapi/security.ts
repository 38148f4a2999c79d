/** The description's security, reduced per operation to the schemes a credential can satisfy. */

import type { OpenApiDocument } from './parse.js';
import { inlineRefs } from './refs.js';
import type { OpenApiSecurityScheme } from './types.js';
import { UnsupportedOperation } from './unsupported.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const TYPES = new Set(['http', 'apiKey', 'oauth2', 'openIdConnect', 'mutualTLS']);

/** The operation's `security`, or the document's; each requirement as the schemes it names. */
export function securityOf(doc: OpenApiDocument, operation: Json): OpenApiSecurityScheme[][] {
  const requirements = operation.security ?? doc.security ?? [];
  if (!Array.isArray(requirements)) return [];
  const components = (doc.components ?? {}) as Json;
  const schemes = (components.securitySchemes ?? {}) as Json;
  return requirements.map((requirement) =>
    Object.keys((requirement ?? {}) as Json).map((name) => {
      const scheme = Object.hasOwn(schemes, name)
        ? inlineRefs(doc, schemes[name], `securitySchemes.${name}`)
        : undefined;
      if (!isObject(scheme) || !TYPES.has(String(scheme.type))) {
        throw new UnsupportedOperation(
          `its security names "${name}", which securitySchemes does not declare`,
        );
      }
      return {
        name,
        type: scheme.type as OpenApiSecurityScheme['type'],
        ...(typeof scheme.scheme === 'string' && { scheme: scheme.scheme.toLowerCase() }),
        ...(typeof scheme.in === 'string' && { in: scheme.in as OpenApiSecurityScheme['in'] }),
        ...(typeof scheme.name === 'string' && { parameterName: scheme.name }),
      };
    }),
  );
}
