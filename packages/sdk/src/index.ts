/**
 * @svc/connector-sdk: write a connector for svc. The types are the spec's, field for field; the
 * schemas check what crosses a process boundary; the harness runs a connector without a server.
 */

/** The zod the schema builders take, so a connector needs no zod of its own. */
export { z } from 'zod';
export * from './auth/schema.js';
export * from './auth/types.js';
export * from './browser/index.js';
export * from './definition/builders.js';
export {
  invalidSchemaProblems,
  SCHEMA_LIMITS,
  schemaLimitProblems,
  schemaProblems,
} from './definition/json-schema.js';
export * from './definition/schema.js';
export * from './definition/types.js';
export * from './definition/validate.js';
export * from './events/envelope.js';
export * from './events/index.js';
export * from './harness/index.js';
export * from './http/index.js';
export * from './identity/index.js';
export * from './logging/index.js';
export * from './openapi/index.js';
export * from './records/types.js';
export * from './runtime/connector.js';
export { findConnector } from './runtime/find.js';
export { log, withRunLogger } from './runtime/log.js';
export * from './runtime/schema.js';
export * from './runtime/types.js';
export * from './watchers/index.js';
