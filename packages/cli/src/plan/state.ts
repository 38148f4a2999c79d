import type { Agent } from '@svc/core';
import type { ApiClient } from '../session/client.js';
import type { ServerState } from './types.js';

/**
 * The org's state in two requests, whatever the project's size: every agent with its settings and
 * platforms, then every entity type, relationship type and watcher.
 */
export async function readServerState(client: ApiClient, org: string): Promise<ServerState> {
  const [{ agents }, memory] = await Promise.all([
    client.request<{ agents: Agent[] }>('GET', `/api/${org}/agents?include=config,platforms`),
    client.request<Pick<ServerState, 'entityTypes' | 'relationshipTypes' | 'watchers'>>(
      'POST',
      `/api/${org}/operations/manage_entity_schema`,
      { action: 'list' },
    ),
  ]);
  const strip = <T extends object>(item: T) => {
    const { createdAt: _c, updatedAt: _u, ...rest } = item as T & { createdAt?: string; updatedAt?: string };
    return rest as T;
  };
  return {
    agents: agents.map((agent) => ({
      agentId: agent.agentId,
      name: agent.name,
      description: agent.description,
      providers: agent.providers.map((p) => ({ key: p.key, secret_ref: p.secret_ref })),
      config: agent.config as NonNullable<Agent['config']>,
      platforms: (agent.platforms ?? []).map((p) => ({
        stableId: p.stableId,
        type: p.type,
        name: p.name,
        config: p.config,
      })),
    })),
    entityTypes: memory.entityTypes.map(strip),
    relationshipTypes: memory.relationshipTypes.map(strip),
    watchers: memory.watchers.map(strip),
  };
}
