import type { MemoryKind } from '@svc/core';
import { type UpsertStatements, upsertStatements } from '../db/upsert.js';

export interface MemoryTable {
  table: string;
  values: string[];
  /** API field name for each column that differs from it. */
  rename?: Record<string, string>;
  /**
   * jsonb columns: sent as JSON text, so that a list is not taken for a PostgreSQL array and an
   * unchanged value compares equal (jsonb equality ignores key order and spacing).
   */
  json?: string[];
}

export const MEMORY_TABLES: Record<MemoryKind, MemoryTable> = {
  entity_type: {
    table: 'entity_types',
    values: ['name', 'description', 'icon', 'color', 'metadata_schema'],
    json: ['metadata_schema'],
  },
  relationship_type: {
    table: 'relationship_types',
    values: ['name', 'description', 'metadata_schema', 'rules'],
    json: ['metadata_schema', 'rules'],
  },
  watcher: {
    table: 'watchers',
    values: [
      'name',
      'schedule',
      'prompt',
      'agent_id',
      'timezone',
      'description',
      'extraction_schema',
      'tags',
      'sources',
      'notification_channel',
      'min_cooldown_seconds',
    ],
    rename: { agent_id: 'agent' },
    json: ['extraction_schema', 'tags', 'sources', 'notification_channel'],
  },
};

/** The upsert's parameters after the keys, in `values` order; an absent field is NULL. */
export function valuesOf(kind: MemoryKind, item: Record<string, unknown>): unknown[] {
  const { values, rename = {}, json = [] } = MEMORY_TABLES[kind];
  return values.map((column) => {
    const value = item[rename[column] ?? column];
    if (value === undefined || value === null) return null;
    return json.includes(column) ? JSON.stringify(value) : value;
  });
}

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
