/**
 * What `actionsFromOpenApi` produces: the actions an agent sees, and for each the plain data that
 * `callOpenApiAction` needs to call the upstream. Everything here is JSON, so it is stored with the
 * install and handed to the sandbox as is; nothing of the description is needed at call time.
 */

import type { ActionDefinition } from '../definition/types.js';

export type ParameterLocation = 'path' | 'query' | 'header';

export interface OpenApiParameter {
  /** The name the upstream knows (`petId`, `X-Request-Id`). */
  name: string;
  in: ParameterLocation;
  /** The input property that carries it: its name, or `<in>_<name>` when another parameter has that name. */
  property: string;
  required: boolean;
  /** OpenAPI serialisation; defaults are `form` (query) and `simple` (path, header). */
  style?: string;
  explode?: boolean;
  /** Described by `content` rather than `schema`: sent as JSON text. */
  json?: boolean;
}

export interface OpenApiBody {
  /** `body`, or `requestBody` when a parameter is named `body`. */
  property: string;
  mediaType: string;
  required: boolean;
}

/** One scheme of `components.securitySchemes`, reduced to what applying a credential needs. */
export interface OpenApiSecurityScheme {
  /** Its key in `securitySchemes`; a credential field of this name is looked for first. */
  name: string;
  type: 'http' | 'apiKey' | 'oauth2' | 'openIdConnect' | 'mutualTLS';
  /** For `http`: `bearer`, `basic`, ... (lower case). */
  scheme?: string;
  /** For `apiKey`. */
  in?: 'header' | 'query' | 'cookie';
  /** For `apiKey`: the header or query parameter name. */
  parameterName?: string;
}

export interface OpenApiOperation {
  /** The action's key. */
  key: string;
  method: string;
  /** The path template, e.g. `/pets/{petId}`. */
  path: string;
  /** Absolute, from `serverUrl`, the operation's or the document's `servers`; absent when none resolves. */
  serverUrl?: string;
  parameters: OpenApiParameter[];
  body?: OpenApiBody;
  /**
   * Alternatives, any one of which suffices; each lists schemes that apply together. `[]`: no
   * authentication; an empty alternative (`[[]]`) makes authentication optional.
   */
  security: OpenApiSecurityScheme[][];
}

export interface OpenApiActions {
  /** Keyed by action key, in the description's order. */
  actions: Record<string, ActionDefinition>;
  /** Keyed like `actions`. */
  operations: Record<string, OpenApiOperation>;
  /** Operations allowed by the config that could not become actions, and names that matched nothing. */
  skipped: { operation: string; reason: string }[];
}

/** A description that cannot be used: unparseable, too large, an external or cyclic `$ref`. */
export class OpenApiError extends Error {
  override name = 'OpenApiError';
}
