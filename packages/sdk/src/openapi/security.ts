/** The description's security, reduced per operation to the schemes a credential can satisfy. */

import type { OpenApiDocument } from './parse.js';
import { inlineRefs } from './refs.js';
import type { OpenApiSecurityScheme } from './types.js';

type Json = Record<string, unknown>;

const TYPES = new Set(['http', 'apiKey', 'oauth2', 'openIdConnect', 'mutualTLS']);

/** The operation's `security`, or the document's; each requirement as the schemes it names. */
export function securityOf(doc: OpenApiDocument, operation: Json): OpenApiSecurityScheme[][] {
  const requirements = operation.security ?? doc.security ?? [];
  if (!Array.isArray(requirements)) return [];
  const components = (doc.components ?? {}) as Json;
  const schemes = (components.securitySchemes ?? {}) as Json;
  return requirements.map((requirement) =>
    Object.keys((requirement ?? {}) as Json).map((name) => {
      const scheme = inlineRefs(doc, schemes[name], `securitySchemes.${name}`) as Json | undefined;
      const type = String(scheme?.type);
      return {
        name,
        type: (TYPES.has(type) ? type : 'mutualTLS') as OpenApiSecurityScheme['type'],
        ...(typeof scheme?.scheme === 'string' && { scheme: scheme.scheme.toLowerCase() }),
        ...(typeof scheme?.in === 'string' && { in: scheme.in as OpenApiSecurityScheme['in'] }),
        ...(typeof scheme?.name === 'string' && { parameterName: scheme.name }),
      };
    }),
  );
}
