export { actionsFromOpenApi, type OpenApiActionsConfig } from './actions.js';
export { type CallOptions, callOpenApiAction, DEFAULT_MAX_RESPONSE_BYTES } from './call.js';
export type { Credentials } from './credentials.js';
export { OPENAPI_LIMITS } from './parse.js';
export * from './types.js';
