/**
 * Connectors without code (issue 22): a definition with `mcpConfig` or `openapiConfig` and no
 * module. svc's own code (upstream.ts, in the connector's sandboxed child) reads the upstream's
 * tools or the OpenAPI description into actions at install, and runs them as calls. What it
 * learnt is kept with the install (`connector_definitions.generated`), as plain JSON.
 */
import type { ActionDefinition, ConnectorOpenApiConfig, OpenApiOperation } from '@svc/connector-sdk';

/** Where a code-less connector's actions come from. */
export type CodelessSource =
  | { kind: 'openapi'; config: ConnectorOpenApiConfig }
  | { kind: 'mcp'; upstreamUrl: string; headers: Record<string, string> };

/** What the child reads from the upstream: the actions, and what calling each needs. */
export interface UpstreamActions {
  actions: Record<string, ActionDefinition>;
  /** OpenAPI: each action's operation. */
  operations?: Record<string, OpenApiOperation>;
  /** MCP: each action's tool name (the key is the name made safe). */
  tools?: Record<string, string>;
  skipped: { operation: string; reason: string }[];
  /** The MCP server answered 401 or 403 to the credentials given (or to none). */
  refused?: number;
}

/** Kept with the install; the API shows all but `operations` and `tools`. */
export interface Generated {
  kind: CodelessSource['kind'];
  refreshedAt: string;
  operations?: Record<string, OpenApiOperation>;
  tools?: Record<string, string>;
  skipped: { operation: string; reason: string }[];
  /** Why the upstream could not be read (an MCP server that wants credentials before listing). */
  warning: string | null;
}

/** The module a child builds a connector from, in place of code. */
export interface CodelessModule {
  codeless: {
    key: string;
    name: string;
    version: string;
    source: CodelessSource;
    actions: Record<string, ActionDefinition>;
    operations?: Record<string, OpenApiOperation>;
    tools?: Record<string, string>;
  };
}

/** Reads the upstream's actions, with a connection's credentials (refresh) or none (install). */
export interface ListTask {
  task: 'codeless-actions';
  source: CodelessSource;
  /** The connection's flat credentials (`access_token` for an OAuth token), or {} at install. */
  credentials: Record<string, string>;
}
