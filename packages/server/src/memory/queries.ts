import type { MemoryKind } from '@svc/core';
import { type UpsertStatements, upsertStatements } from '../db/upsert.js';

export interface MemoryTable {
  table: string;
  values: string[];
  /** API field name for each column that differs from it. */
  rename?: Record<string, string>;
}

export const MEMORY_TABLES: Record<MemoryKind, MemoryTable> = {
  entity_type: { table: 'entity_types', values: ['name', 'description'] },
  relationship_type: { table: 'relationship_types', values: ['name', 'description'] },
  watcher: {
    table: 'watchers',
    values: ['name', 'schedule', 'prompt', 'agent_id', 'timezone'],
    rename: { agent_id: 'agent' },
  },
};

export const LIST_KEYS = {
  entity_type: 'entityTypes',
  relationship_type: 'relationshipTypes',
  watcher: 'watchers',
} as const;

export function columnsOf(kind: MemoryKind): string[] {
  return ['slug', ...MEMORY_TABLES[kind].values, 'created_at', 'updated_at'];
}

export const UPSERT: Record<MemoryKind, UpsertStatements> = Object.fromEntries(
  (Object.keys(MEMORY_TABLES) as MemoryKind[]).map((kind) => [
    kind,
    upsertStatements({
      table: MEMORY_TABLES[kind].table,
      keys: ['org_id', 'slug'],
      values: MEMORY_TABLES[kind].values,
      returning: columnsOf(kind),
    }),
  ]),
) as Record<MemoryKind, UpsertStatements>;
