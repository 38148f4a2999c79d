import type {
  AgentConfig,
  entityTypeSchema,
  PlatformPut,
  relationshipTypeSchema,
  watcherSchema,
} from '@svc/core';
import type { ProjectProblem } from './problems.js';

/** The desired state that the files describe. Secrets appear as their reference text only. */
export interface Project {
  agents: ProjectAgent[];
  entityTypes: EntityType[];
  relationshipTypes: RelationshipType[];
  watchers: Watcher[];
  /** Every `$NAME` / `${NAME}` reference, in file order; each was set and non-empty when loaded. */
  secretRefs: SecretRefLocation[];
  /** Where each watcher's `agent` is written (`file:line:col`), by slug: some checks need the server. */
  watcherAgentAt: Record<string, string>;
  /** Accepted but likely not meant, each at its line: `svc apply` prints them before the plan. */
  warnings: ProjectProblem[];
  /**
   * Where an agent's setting is written, by its path in core's names (`mcpServers`, `github`,
   * `url`): where a refusal the server reports is to be fixed.
   */
  settingAt: (agentId: string, path: readonly (string | number)[]) => SettingPosition;
}

export interface SettingPosition {
  file: string;
  line: number;
  col: number;
  /** The key as written: `agents.support.skills.mcp.files.command`. */
  key: string;
}

export interface ProjectAgent {
  agentId: string;
  name: string;
  description: string;
  /** All 13 settings; `null` where the project declares nothing, so that applying clears it. */
  config: AgentConfig;
  platforms: ProjectPlatform[];
  providers: ProjectProvider[];
}

export interface ProjectPlatform {
  stableId: string;
  type: PlatformPut['type'];
  name?: string;
  config: PlatformPut['config'];
}

export interface ProjectProvider {
  key: string;
  /** The reference text, e.g. `$OPENAI_API_KEY`. */
  secret_ref: string;
}

export type EntityType = ReturnType<typeof entityTypeSchema.parse>;
export type RelationshipType = ReturnType<typeof relationshipTypeSchema.parse>;
export type Watcher = ReturnType<typeof watcherSchema.parse>;

export interface SecretRefLocation {
  variable: string;
  file: string;
  line: number;
}
