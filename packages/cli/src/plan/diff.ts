import { SETTING_KEYS } from '@svc/core';
import { same } from './normalise.js';
import {
  type Change,
  type DesiredState,
  MEMORY_FIELDS,
  type MemoryItem,
  type Plan,
  type PlanRow,
  type ServerState,
} from './types.js';

export type Only = 'agents' | 'memory' | undefined;

/** Fields of `desired` whose values differ from `current`, in the order given. */
function changes(
  fields: readonly string[],
  current: object,
  desired: object,
  defaults: Record<string, unknown> = {},
): Change[] {
  // An absent field takes the value the server gives it, so that "absent" and that value match.
  const read = (from: object, field: string) =>
    (from as Record<string, unknown>)[field] ?? defaults[field] ?? null;
  return fields
    .filter((field) => !same(read(current, field), read(desired, field)))
    .map((field) => ({ field, before: read(current, field), after: read(desired, field) }));
}

function agentRows(org: string, desired: DesiredState, server: ServerState): PlanRow[] {
  const rows: PlanRow[] = [];
  const existing = new Map(server.agents.map((a) => [a.agentId, a]));
  for (const agent of desired.agents) {
    const current = existing.get(agent.agentId);
    const fields = changes(['name', 'description', 'providers'], current ?? {}, agent);
    rows.push({
      kind: 'agent',
      id: agent.agentId,
      verb: !current ? 'create' : fields.length > 0 ? 'update' : 'noop',
      changes: current ? fields : [],
      ...(current && fields.length === 0
        ? {}
        : {
            request: {
              method: 'POST' as const,
              path: `/api/${org}/agents`,
              body: {
                agentId: agent.agentId,
                name: agent.name,
                description: agent.description,
                providers: agent.providers,
              },
            },
          }),
    });
  }
  const declared = new Set(desired.agents.map((a) => a.agentId));
  for (const agent of server.agents) {
    if (!declared.has(agent.agentId)) {
      rows.push({ kind: 'agent', id: agent.agentId, verb: 'drift', changes: [] });
    }
  }
  return rows;
}

/** Lookups by id, so that a plan stays linear in the number of resources. */
const byId = <T>(items: T[], id: (item: T) => string) => new Map(items.map((item) => [id(item), item]));

function settingsRows(org: string, desired: DesiredState, server: ServerState): PlanRow[] {
  const agents = byId(server.agents, (a) => a.agentId);
  return desired.agents.flatMap((agent): PlanRow[] => {
    const current = agents.get(agent.agentId);
    const before = current?.config ?? {};
    const fields = changes(SETTING_KEYS, before, agent.config);
    if (fields.length === 0)
      return current ? [{ kind: 'settings', id: agent.agentId, verb: 'noop', changes: [] }] : [];
    // Only what changes is sent: a key present replaces the setting, null clears it.
    const body = Object.fromEntries(fields.map((c) => [c.field, c.after]));
    return [
      {
        kind: 'settings',
        id: agent.agentId,
        verb: current ? 'update' : 'create',
        changes: fields,
        request: { method: 'PATCH', path: `/api/${org}/agents/${agent.agentId}/config`, body },
      },
    ];
  });
}

function platformRows(org: string, desired: DesiredState, server: ServerState): PlanRow[] {
  const rows: PlanRow[] = [];
  const agents = byId(server.agents, (a) => a.agentId);
  for (const agent of desired.agents) {
    const existing = agents.get(agent.agentId)?.platforms ?? [];
    const byStableId = byId(existing, (p) => p.stableId);
    const declared = new Set(agent.platforms.map((p) => p.stableId));
    for (const platform of agent.platforms) {
      const current = byStableId.get(platform.stableId);
      const fields = current ? changes(['type', 'name', 'config'], current, platform) : [];
      const row: PlanRow = {
        kind: 'platform',
        id: platform.stableId,
        verb: !current ? 'create' : fields.length > 0 ? 'update' : 'noop',
        changes: fields,
      };
      if (row.verb !== 'noop') {
        row.request = {
          method: 'PUT',
          path: `/api/${org}/agents/${agent.agentId}/platforms/by-stable-id/${platform.stableId}`,
          body: {
            type: platform.type,
            ...(platform.name ? { name: platform.name } : {}),
            config: platform.config,
          },
        };
      }
      if (row.verb === 'update') row.restartsWorker = fields.some((c) => c.field !== 'name');
      rows.push(row);
    }
    for (const platform of existing) {
      if (!declared.has(platform.stableId)) {
        rows.push({ kind: 'platform', id: platform.stableId, verb: 'drift', changes: [] });
      }
    }
  }
  return rows;
}

/** What the server means by an absent description (none: "") and timezone (UTC). */
const MEMORY_DEFAULTS = { description: '', timezone: 'UTC' };

function memoryRows<T extends MemoryItem>(
  org: string,
  kind: 'entity_type' | 'relationship_type' | 'watcher',
  fields: readonly string[],
  desired: T[],
  server: T[],
): PlanRow[] {
  const existing = byId(server, (s) => s.slug);
  const declared = new Set(desired.map((d) => d.slug));
  const rows: PlanRow[] = desired.map((item) => {
    const current = existing.get(item.slug);
    const diff = current ? changes(fields, current, item, MEMORY_DEFAULTS) : [];
    const verb = !current ? 'create' : diff.length > 0 ? 'update' : 'noop';
    return {
      kind,
      id: item.slug,
      verb,
      changes: diff,
      ...(verb === 'noop'
        ? {}
        : {
            request: {
              method: 'POST' as const,
              path: `/api/${org}/operations/manage_entity_schema`,
              body: { action: 'upsert', kind, item: withoutNulls(item) },
            },
          }),
    };
  });
  for (const item of server) {
    if (!declared.has(item.slug)) rows.push({ kind, id: item.slug, verb: 'drift', changes: [] });
  }
  return rows;
}

/** Optional fields go absent rather than null: the server's schemas take absent for "none". */
function withoutNulls(item: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([, v]) => v !== null && v !== undefined));
}

/**
 * The plan, rows in apply order: agents, settings, platforms, entity types, relationship types,
 * watchers. Nothing is ever deleted: what the server has and the files don't is `drift`.
 */
export function computePlan(org: string, desired: DesiredState, server: ServerState, only?: Only): Plan {
  const rows: PlanRow[] = [];
  if (only !== 'memory') {
    rows.push(...agentRows(org, desired, server), ...settingsRows(org, desired, server));
    rows.push(...platformRows(org, desired, server));
  }
  if (only !== 'agents') {
    rows.push(
      ...memoryRows(org, 'entity_type', MEMORY_FIELDS.entity_type, desired.entityTypes, server.entityTypes),
      ...memoryRows(
        org,
        'relationship_type',
        MEMORY_FIELDS.relationship_type,
        desired.relationshipTypes,
        server.relationshipTypes,
      ),
      ...memoryRows(org, 'watcher', MEMORY_FIELDS.watcher, desired.watchers, server.watchers),
    );
  }
  return { org, rows };
}

export function summary(plan: Plan): Record<'create' | 'update' | 'noop' | 'drift', number> {
  const counts = { create: 0, update: 0, noop: 0, drift: 0 };
  for (const row of plan.rows) counts[row.verb]++;
  return counts;
}
