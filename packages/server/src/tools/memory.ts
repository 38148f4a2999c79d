import type { AgentConfig } from '@svc/core';
import { tool } from 'ai';
import type { Pool } from 'pg';
import { z } from 'zod';
import { identityOf } from '../entities/routes.js';
import { ProblemError } from '../http/problem.js';
import type { OrgRef } from '../http/types.js';
import {
  SEARCH_MAX_LIMIT,
  SEARCH_QUERY_MAX_CHARS,
  type SearchFilters,
  searchEvents,
  searchMode,
} from '../search/queries.js';
import { storable } from '../turns/turn.js';
import type { AgentTool } from './mcp.js';
import { toolAllowed } from './policy.js';

export interface MemoryToolDeps {
  pool: Pool;
  /** The agent's org: every memory tool reads and writes this org only, whatever its input says. */
  org: OrgRef;
  agentId: string;
  /** The agent's name, as the author of what it saves. */
  agentName: string;
  /** The message whose turn calls the tools: with the call's id, what makes a save happen once. */
  messageId: string;
  config: Partial<AgentConfig>;
  /** Tools the turn has already (MCP, connector actions): a memory tool never shadows one of them. */
  taken: AgentTool[];
}

const ENTITY_LIMIT_MAX = 20;
const LATEST_EVENTS = 5;
/** A saved fact or note is a short text: a document belongs in a connector's feed. */
const SAVE_MAX_CHARS = 20_000;

const id = z.union([z.int().min(1), z.string().regex(/^\d{1,18}$/)]).transform(String);
const instant = z.iso.datetime({ offset: true });

const searchInput = z.strictObject({
  query: z
    .string()
    .min(1)
    .max(SEARCH_QUERY_MAX_CHARS)
    .describe('words to find (all must match), "an exact phrase", -excluded, a or b'),
  since: instant.optional().describe('only events that occurred at or after this ISO 8601 time'),
  until: instant.optional().describe('only events that occurred before this ISO 8601 time'),
  arrivedSince: instant
    .optional()
    .describe('only events received at or after this ISO 8601 time (a watcher window gives it)'),
  arrivedUntil: instant.optional().describe('only events received before this ISO 8601 time'),
  connector: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("a connector's key: only what its connections collected"),
  connectionId: id.optional().describe('only what this connection collected'),
  feed: z.string().min(1).max(200).optional().describe("a feed's key: only what feeds of that key collected"),
  kind: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('the event kind (origin_type, e.g. "issue") or semantic type (e.g. "fact", "note", "summary")'),
  entityId: id.optional().describe('only events linked to this entity (memory_entities finds ids)'),
  limit: z.int().min(1).max(SEARCH_MAX_LIMIT).optional().describe('at most this many results (default 10)'),
});

const entitiesInput = z.strictObject({
  name: z.string().min(1).max(200).optional().describe("part of the entity's title, e.g. a person's name"),
  identity: z
    .string()
    .min(3)
    .max(1000)
    .optional()
    .describe('namespace:value, e.g. email:jane@example.com or code_host_login:octocat'),
  type: z.string().min(1).max(200).optional().describe('an entity type, e.g. person'),
  limit: z.int().min(1).max(ENTITY_LIMIT_MAX).optional().describe('at most this many entities (default 5)'),
});

const saveInput = z.strictObject({
  text: z.string().min(1).max(SAVE_MAX_CHARS).describe('what to remember, in a few self-contained sentences'),
  title: z.string().min(1).max(200).optional().describe('a short title; it weighs most in searches'),
  kind: z.enum(['fact', 'note']).describe('fact: something true about the world; note: anything else'),
  entities: z
    .array(z.union([z.int().min(1), z.string().min(1).max(200)]))
    .max(20)
    .optional()
    .describe('entity ids or exact titles this is about; unknown ones are reported, not created'),
});

/** What a tool tells the model instead of throwing: a wrong input it can correct. */
const refusal = (error: unknown) => {
  if (!(error instanceof ProblemError)) throw error;
  return { error: [error.detail, ...(error.errors ?? []).map((e) => e.message)].join(': ') };
};

/**
 * The memory tools of an agent's turn: `memory_search` and `memory_entities` unless
 * `toolsConfig.memory` is false, `memory_save` only when `toolsConfig.memorySave` is true; all
 * filtered by `toolsConfig.allowed`/`denied` like any tool. Each reads (and writes) the agent's own
 * org only. Their descriptions say the search mode, so a model never takes a word match for a
 * semantic one.
 */
export async function memoryTools(deps: MemoryToolDeps): Promise<{ tools: AgentTool[]; problems: string[] }> {
  const settings = deps.config.toolsConfig;
  if (settings?.memory === false) return { tools: [], problems: [] };
  const { modeNote } = await searchMode(deps.pool);
  const made: AgentTool[] = [
    {
      name: 'memory_search',
      modelName: 'memory_search',
      needsApproval: false,
      tool: searchTool(deps, modeNote),
    },
    {
      name: 'memory_entities',
      modelName: 'memory_entities',
      needsApproval: false,
      tool: entitiesTool(deps),
    },
  ];
  if (settings?.memorySave === true) {
    made.push({ name: 'memory_save', modelName: 'memory_save', needsApproval: false, tool: saveTool(deps) });
  }
  const taken = new Set(deps.taken.flatMap((t) => [t.name, t.modelName]));
  const tools: AgentTool[] = [];
  const problems: string[] = [];
  for (const t of made) {
    if (!toolAllowed(t.name, settings)) continue;
    if (taken.has(t.name)) problems.push(`memory tool "${t.name}": another tool of the agent has its name`);
    else tools.push(t);
  }
  return { tools, problems };
}

function searchTool(deps: MemoryToolDeps, modeNote: string) {
  return tool({
    description:
      "Searches this organisation's memory: the events its connectors collected (messages, issues, " +
      'commits, ...) and the facts and notes saved, best match first, each with its id, title, source ' +
      `URL, date and a snippet to cite. Matching is by words with English stemming (${modeNote}): ` +
      'search for the words the text would contain, and try other words when nothing is found.',
    inputSchema: searchInput,
    execute: async (input) => {
      const { query, limit, connectionId, entityId, ...rest } = input;
      const filters: SearchFilters = {
        ...rest,
        ...(connectionId !== undefined ? { connectionId } : {}),
        ...(entityId !== undefined ? { entityId } : {}),
      };
      try {
        const result = await searchEvents(deps.pool, deps.org.id, query, filters, limit ?? 10);
        return {
          mode: result.mode,
          note:
            result.coverage === 'newest'
              ? `${result.modeNote}. Only the newest events were searched: these words are common in older ones; add words, a time range or an entity to search those`
              : result.modeNote,
          results: result.hits.map((hit) => ({
            eventId: hit.eventId,
            title: hit.title,
            sourceUrl: hit.sourceUrl,
            date: hit.occurredAt,
            snippet: hit.snippet,
          })),
        };
      } catch (error) {
        return refusal(error);
      }
    },
  });
}

interface EntityHit {
  id: string;
  entity_type: string;
  title: string | null;
  traits: Record<string, unknown>;
  identities: { namespace: string; value: string }[];
  latest: { eventId: number; title: string | null; sourceUrl: string | null; date: string }[];
  relationships: EntityRelationship[];
}

/** One of an entity's relationships, seen from it: the other entity, and which way it points. */
interface EntityRelationship {
  id: number;
  type: string;
  /** `outgoing`: this entity is the source; `incoming`: the target. */
  direction: 'outgoing' | 'incoming';
  metadata: Record<string, unknown>;
  entity: { id: number; type: string; title: string | null };
}

/** How many of an entity's relationships memory_entities answers, newest first, both directions. */
export const ENTITY_RELATIONSHIPS_MAX = 20;

/** pg_trgm, when migration 023 could install it: similar titles rank first. Looked up once per pool. */
const trigrams = new WeakMap<Pool, Promise<boolean>>();
function hasTrigrams(pool: Pool): Promise<boolean> {
  let known = trigrams.get(pool);
  if (!known) {
    known = pool
      .query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)
      .then(({ rowCount }) => (rowCount ?? 0) > 0);
    known.catch(() => trigrams.delete(pool));
    trigrams.set(pool, known);
  }
  return known;
}

/** `name` as an ILIKE pattern that matches it anywhere, its own % and _ taken literally. */
const containing = (name: string) => `%${name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function entitiesTool(deps: MemoryToolDeps) {
  return tool({
    description:
      "Finds this organisation's entities (people, repositories, companies, ...) by part of their " +
      'name or by an identity (namespace:value), with their traits, identities, their latest ' +
      `${LATEST_EVENTS} events and up to ${ENTITY_RELATIONSHIPS_MAX} relationships (the other entity's id, type and title). Pass an entity's id to memory_search (entityId) for more of its events.`,
    inputSchema: entitiesInput,
    execute: async ({ name, identity, type, limit }) => {
      if (name === undefined && identity === undefined) return { error: 'give a name or an identity' };
      let key: { namespace: string; value: string } | null = null;
      try {
        key = identity === undefined ? null : identityOf(identity);
      } catch (error) {
        return refusal(error);
      }
      const trigram = name !== undefined && (await hasTrigrams(deps.pool));
      const params: unknown[] = [deps.org.id, type ?? null, limit ?? 5];
      const where = ['e.org_id = $1', '($2::text IS NULL OR e.entity_type = $2)'];
      if (key) {
        params.push(key.namespace, key.value);
        where.push(
          `e.id IN (SELECT i.entity_id FROM entity_identities i
                     WHERE i.org_id = $1 AND i.namespace = $${params.length - 1} AND i.value = $${params.length})`,
        );
      }
      let order = 'e.id';
      if (name !== undefined) {
        params.push(name, containing(name));
        const [exact, pattern] = [params.length - 1, params.length];
        // With pg_trgm a misspelt name still finds its entity (`%`, similarity over 0.3).
        where.push(
          trigram ? `(e.title ILIKE $${pattern} OR e.title % $${exact})` : `e.title ILIKE $${pattern}`,
        );
        order = trigram
          ? `similarity(e.title, $${exact}) DESC, e.id`
          : `lower(e.title) = lower($${exact}) DESC, length(e.title), e.id`;
      }
      const { rows } = await deps.pool.query<EntityHit>(
        `SELECT e.id, e.entity_type, e.title, e.traits,
                coalesce((SELECT jsonb_agg(jsonb_build_object('namespace', i.namespace, 'value', i.value)
                                           ORDER BY i.namespace, i.value)
                            FROM entity_identities i WHERE i.entity_id = e.id), '[]') AS identities,
                coalesce((SELECT jsonb_agg(jsonb_build_object('eventId', ev.id, 'title', ev.title,
                                                              'sourceUrl', ev.source_url, 'date', ev.occurred_at)
                                           ORDER BY ev.occurred_at DESC, ev.id DESC)
                            FROM (SELECT v.id, v.title, v.source_url, v.occurred_at
                                    FROM event_entities ee JOIN events v ON v.id = ee.event_id
                                   WHERE ee.entity_id = e.id AND v.org_id = $1
                                   ORDER BY v.occurred_at DESC, v.id DESC
                                   LIMIT ${LATEST_EVENTS}) ev), '[]') AS latest,
                coalesce((SELECT jsonb_agg(jsonb_build_object('id', rel.id, 'type', rel.relationship_type,
                                                              'direction', rel.direction, 'metadata', rel.metadata,
                                                              'entity', jsonb_build_object('id', o.id,
                                                                'type', o.entity_type, 'title', o.title))
                                           ORDER BY rel.created_at DESC, rel.id DESC)
                            FROM (SELECT * FROM (
                                    (SELECT r.id, r.relationship_type, r.metadata, r.created_at,
                                            'outgoing' AS direction, r.target_entity_id AS other
                                       FROM relationships r
                                      WHERE r.source_entity_id = e.id AND r.org_id = $1
                                      ORDER BY r.created_at DESC, r.id DESC LIMIT ${ENTITY_RELATIONSHIPS_MAX})
                                    UNION ALL
                                    (SELECT r.id, r.relationship_type, r.metadata, r.created_at,
                                            'incoming', r.source_entity_id
                                       FROM relationships r
                                      WHERE r.target_entity_id = e.id AND r.org_id = $1
                                      ORDER BY r.created_at DESC, r.id DESC LIMIT ${ENTITY_RELATIONSHIPS_MAX})
                                  ) both_ways
                                  ORDER BY created_at DESC, id DESC
                                  LIMIT ${ENTITY_RELATIONSHIPS_MAX}) rel
                            JOIN entities o ON o.id = rel.other), '[]') AS relationships
           FROM entities e
          WHERE ${where.join(' AND ')}
          ORDER BY ${order}
          LIMIT $3`,
        params,
      );
      return {
        entities: rows.map((row) => ({
          id: Number(row.id),
          type: row.entity_type,
          title: row.title,
          traits: row.traits,
          identities: row.identities,
          latestEvents: row.latest.map((event) => ({ ...event, date: new Date(event.date).toISOString() })),
          relationships: row.relationships,
        })),
      };
    },
  });
}

function saveTool(deps: MemoryToolDeps) {
  return tool({
    description:
      "Saves a fact or a note to this organisation's memory, where memory_search finds it later (for " +
      'every agent of the organisation), linked to the entities it is about. Save what is worth ' +
      'knowing later and is not already in memory; never secrets.',
    inputSchema: saveInput,
    execute: async ({ text, title, kind, entities }, { toolCallId }) => {
      const named = entities ?? [];
      const ids = named.filter((e) => typeof e === 'number' || /^\d{1,18}$/.test(e)).map(String);
      const names = named.filter((e): e is string => typeof e === 'string' && !/^\d{1,18}$/.test(e));
      const client = await deps.pool.connect();
      try {
        await client.query('BEGIN');
        // One row per (message, tool call): a call run again (a retried turn) finds its row.
        const originId = `${deps.messageId}:${toolCallId}`;
        const inserted = await client.query<{ id: string }>(
          `INSERT INTO events (org_id, origin_id, origin_type, semantic_type, payload_type, payload_text, title,
                               author_name, occurred_at, metadata)
           VALUES ($1, $2, 'agent', $3, 'text', $4, $5, $6, now(), $7)
           ON CONFLICT (org_id, origin_type, origin_id) WHERE connection_id IS NULL DO NOTHING
           RETURNING id`,
          [
            deps.org.id,
            originId,
            kind,
            storable(text),
            title === undefined ? null : storable(title),
            deps.agentName,
            { agentId: deps.agentId, messageId: deps.messageId, toolCallId },
          ],
        );
        const eventId =
          inserted.rows[0]?.id ??
          (
            await client.query<{ id: string }>(
              `SELECT id FROM events
                WHERE org_id = $1 AND origin_type = 'agent' AND origin_id = $2 AND connection_id IS NULL`,
              [deps.org.id, originId],
            )
          ).rows[0]?.id;
        const { rows: found } = await client.query<{ id: string; title: string | null }>(
          `SELECT id, title FROM entities
            WHERE org_id = $1 AND (id = ANY($2::bigint[]) OR lower(title) = ANY($3::text[]))
            ORDER BY id`,
          [deps.org.id, ids, names.map((n) => n.toLowerCase())],
        );
        if (found.length > 0) {
          await client.query(
            `INSERT INTO event_entities (event_id, entity_id) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING`,
            [eventId, found.map((e) => e.id)],
          );
        }
        await client.query('COMMIT');
        const linked = new Set(found.flatMap((e) => [e.id, (e.title ?? '').toLowerCase()]));
        const missing = named.filter((e) => !linked.has(String(e).toLowerCase()));
        return {
          saved: true,
          eventId: Number(eventId),
          linkedEntities: found.map((e) => ({ id: Number(e.id), title: e.title })),
          ...(missing.length > 0
            ? { unknownEntities: missing, note: 'no entity of these ids or titles exists' }
            : {}),
        };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
  });
}
