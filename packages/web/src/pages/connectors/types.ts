import type { paths } from '../../api/schema';

/** The JSON an operation answers with `status`, as the generated types say. */
type Answer<Op, Status extends number = 200> = Op extends {
  responses: { [S in Status]: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

export type Connection = Answer<paths['/api/{org}/connections']['get']>['connections'][number];
export type Feed = Answer<paths['/api/{org}/connections/{connectionId}/feeds']['get']>['feeds'][number];
export type Installed = Answer<paths['/api/{org}/connectors']['get']>['connectors'][number];
export type ConnectorPackage = Answer<paths['/api/{org}/connector-packages']['get']>['packages'][number];
export type AuthRunView = Answer<paths['/api/{org}/auth-runs/{runId}']['get']>;
export type Artifact = NonNullable<AuthRunView['artifact']>;
export type BrowserSession = NonNullable<
  Answer<paths['/api/{org}/connections/{connectionId}/browser-session']['get']>['session']
>;

/**
 * The parts of a connector's definition (the SDK's ConnectorDefinition, as the API returns it
 * untyped) that the console reads. Field names are the SDK's.
 */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  format?: string;
}

export interface EnvKeyField {
  key: string;
  label?: string;
  description?: string;
  example?: string;
  secret?: boolean;
  required?: boolean;
}

export type AuthMethod =
  | { type: 'none' }
  | { type: 'env_keys'; required?: boolean; fields: EnvKeyField[]; description?: string }
  | {
      type: 'oauth';
      provider: string;
      requiredScopes: string[];
      optionalScopes?: string[];
      description?: string;
      setupInstructions?: string;
      clientIdKey?: string;
      clientSecretKey?: string;
    }
  | {
      type: 'browser';
      description?: string;
      capture?: 'cli' | 'cdp';
      requiredDomains?: string[];
      defaultCdpUrl?: string;
    }
  | { type: 'interactive'; description?: string; timeoutSec?: number; expectedArtifact?: string };

export interface ActionDefinition {
  key: string;
  name: string;
  requiresApproval: boolean;
  description?: string;
  inputSchema?: JsonSchema;
  /** What an agent's client is told about the action (MCP's tool annotations; generated ones have them). */
  annotations?: { destructiveHint?: boolean; openWorldHint?: boolean; idempotentHint?: boolean };
}

export interface Definition {
  key: string;
  name: string;
  description?: string;
  version: string;
  authSchema?: { methods: AuthMethod[] };
  feeds?: Record<string, { key: string; name: string; description?: string; configSchema?: JsonSchema }>;
  actions?: Record<string, ActionDefinition>;
  optionsSchema?: JsonSchema;
  openapiConfig?: { specUrl?: string; spec?: unknown; includeTags?: string[] };
  mcpConfig?: { upstreamUrl: string };
}

/** What svc read from a connector without code's upstream; null for a connector with code. */
export type Generated = NonNullable<Installed['generated']>;

export const definitionOf = (installed: Installed) => installed.definition as unknown as Definition;

export const methodsOf = (definition: Definition | undefined): AuthMethod[] =>
  definition?.authSchema?.methods ?? [];

/** An auth method as people name it. */
export const METHOD_NAMES: Record<AuthMethod['type'], string> = {
  none: 'no credentials',
  env_keys: 'keys',
  oauth: 'OAuth',
  browser: 'browser session',
  interactive: 'interactive sign-in',
};
