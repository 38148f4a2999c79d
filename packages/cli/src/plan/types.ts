import type { AgentConfig } from '@svc/core';

/** What the project files say the org should hold (secret references as text, never values). */
export interface DesiredState {
  agents: DesiredAgent[];
  entityTypes: EntityTypeItem[];
  relationshipTypes: RelationshipTypeItem[];
  watchers: WatcherItem[];
}

export interface DesiredAgent {
  agentId: string;
  name: string;
  description: string;
  /** All 13 settings; `null` clears one. */
  config: AgentConfig;
  platforms: DesiredPlatform[];
  /** LLM providers: a key and the reference of its secret. */
  providers: { key: string; secret_ref: string }[];
}

export interface DesiredPlatform {
  stableId: string;
  type: string;
  name: string | null;
  config: Record<string, unknown>;
}

export interface MemoryItem {
  slug: string;
  name: string;
  description?: string | null;
}

export interface EntityTypeItem extends MemoryItem {
  icon?: string | null;
  color?: string | null;
  metadata_schema?: Record<string, unknown> | null;
}

export interface RelationshipTypeItem extends MemoryItem {
  metadata_schema?: Record<string, unknown> | null;
  rules?: { source: string | string[]; target: string | string[] }[] | null;
}

export interface WatcherItem extends MemoryItem {
  schedule: string;
  prompt: string;
  agent: string;
  timezone?: string | null;
  extraction_schema?: Record<string, unknown> | null;
  tags?: string[] | null;
  sources?: Record<string, unknown>[] | null;
  notification_channel?: string | Record<string, unknown> | null;
  min_cooldown_seconds?: number | null;
}

/** The fields a plan compares, per kind, in the order its rows show them. */
export const MEMORY_FIELDS = {
  entity_type: ['name', 'description', 'icon', 'color', 'metadata_schema'],
  relationship_type: ['name', 'description', 'metadata_schema', 'rules'],
  watcher: [
    'name',
    'schedule',
    'prompt',
    'agent',
    'timezone',
    'description',
    'extraction_schema',
    'tags',
    'sources',
    'notification_channel',
    'min_cooldown_seconds',
  ],
} as const;

/** What the server holds, read in a constant number of requests. */
export interface ServerState {
  agents: (Omit<DesiredAgent, 'platforms'> & { platforms: DesiredPlatform[] })[];
  entityTypes: EntityTypeItem[];
  relationshipTypes: RelationshipTypeItem[];
  watchers: WatcherItem[];
}

export type Verb = 'create' | 'update' | 'noop' | 'drift';
export type Kind = 'agent' | 'settings' | 'platform' | 'entity_type' | 'relationship_type' | 'watcher';

export interface Change {
  field: string;
  before: unknown;
  after: unknown;
}

export interface PlanRow {
  kind: Kind;
  /** agentId, stable ID or slug. */
  id: string;
  verb: Verb;
  changes: Change[];
  /** Platforms: the live worker restarts because `type` or `config` changes. */
  restartsWorker?: boolean;
  /** The call that converges this row; absent for `noop` and `drift`. */
  request?: { method: 'POST' | 'PATCH' | 'PUT'; path: string; body: unknown };
}

export interface Plan {
  org: string;
  rows: PlanRow[];
}
