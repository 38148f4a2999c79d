/** The spec's "Connector definition", "Feed definition" and "Action definition", field for field. */

import type { ConnectorAuthSchema } from '../auth/types.js';

/** A JSON Schema (2020-12) object; build one with `configSchema`, `inputSchema` or `outputSchema`. */
export type JsonSchema = Record<string, unknown>;

export interface ConnectorDefinition {
  /** The connector key: lowercase letters, digits, `-` and `_`. */
  key: string;
  name: string;
  description?: string;
  /** Semantic version, e.g. `1.2.0`. */
  version: string;
  authSchema?: ConnectorAuthSchema;
  /** Keyed by each feed's own `key`. */
  feeds?: Record<string, FeedDefinition>;
  /** Keyed by each action's own `key`. */
  actions?: Record<string, ActionDefinition>;
  /** Global options. */
  optionsSchema?: JsonSchema;
  /** The domain whose icon stands for the connector, e.g. `github.com`. */
  faviconDomain?: string;
  /** Proxy to an upstream tool server. */
  mcpConfig?: ConnectorMcpConfig;
  /** Generate the connector from an OpenAPI description. */
  openapiConfig?: ConnectorOpenApiConfig;
  /** A device-only capability name. */
  requiredCapability?: string;
  /** Pins the connector to a device platform; omit it for cloud-fleet connectors. */
  runtime?: ConnectorRuntimeInfo;
}

export interface ConnectorMcpConfig {
  /** An MCP server over streamable HTTP: its tools become the connector's actions. */
  upstreamUrl: string;
  /**
   * svc's: headers sent to the upstream, each carrying the value of the named `env_keys` field
   * (`{ "X-Api-Key": "API_KEY" }`). An OAuth connection's token goes as a bearer without this.
   */
  headers?: Record<string, string>;
}

export interface ConnectorOpenApiConfig {
  /** Where the description is fetched from (JSON or YAML, OpenAPI 3.0 or 3.1). */
  specUrl?: string;
  /** svc's: the description itself, instead of `specUrl`. */
  spec?: string | Record<string, unknown>;
  includeOperations?: string[];
  excludeOperations?: string[];
  includeTags?: string[];
  serverUrl?: string;
}

export const DEVICE_PLATFORMS = ['ios', 'android', 'macos', 'windows', 'linux'] as const;
export type DevicePlatform = (typeof DEVICE_PLATFORMS)[number];

export interface ConnectorRuntimeInfo {
  platforms: DevicePlatform[];
  /** Forwarded to the native platform adapter. */
  scopes?: string[];
  /**
   * Native system dependencies needed on PATH at execution time, as package attribute references.
   * Language dependencies are bundled at compile time and never go here.
   */
  nix?: { packages?: string[] };
}

export interface FeedDefinition {
  key: string;
  name: string;
  description?: string;
  /** OAuth scopes that must be held for this feed to sync. */
  requiredScopes?: string[];
  /** A template with `{placeholders}` filled from the feed's config, e.g. `Issues of {repo}`. */
  displayNameTemplate?: string;
  /** Per-feed config. */
  configSchema?: JsonSchema;
  /** Skips auto-wire creation. */
  userManaged?: boolean;
  eventKinds?: Record<string, EventKindDefinition>;
}

export interface EventKindDefinition {
  description?: string;
  metadataSchema?: JsonSchema;
  entityLinks?: EntityLinkRule[];
}

export interface EntityLinkRule {
  /** Target entity type slug, for example the member dimension type. */
  entityType: string;
  autoCreate?: boolean;
  titlePath?: string;
  identities: EntityIdentitySpec[];
  traits?: Record<string, EntityTraitSpec>;
}

export interface EntityIdentitySpec {
  /** A value of `IDENTITY`, or a namespace of your own written `custom:<name>`. */
  namespace: string;
  /** Dot path into the event, e.g. `payload_data.user.login`. */
  eventPath: string;
  matchOnly?: boolean;
}

export const ENTITY_TRAIT_BEHAVIORS = ['init_only', 'prefer_non_empty', 'overwrite'] as const;

export interface EntityTraitSpec {
  eventPath: string;
  behavior: (typeof ENTITY_TRAIT_BEHAVIORS)[number];
}

/** Stored per install on `connector_definitions`. */
export interface EntityLinkOverride {
  disable?: boolean;
  retargetEntityType?: string;
  autoCreate?: boolean;
  maskIdentities?: string[];
}

export type EntityLinkOverrides = Record<string, EntityLinkOverride>;

/** `sync`: connector code runs on a worker; `virtual`: backed by saved queries (future). */
export const FEED_MODES = ['sync', 'virtual'] as const;
export type FeedMode = (typeof FEED_MODES)[number];

export interface ActionDefinition {
  key: string;
  name: string;
  /** The run waits in `approvalStatus = pending` until someone approves it. */
  requiresApproval: boolean;
  description?: string;
  annotations?: {
    destructiveHint?: boolean;
    openWorldHint?: boolean;
    idempotentHint?: boolean;
  };
  inputSchema?: JsonSchema;
  outputSchema?: JsonSchema;
}
