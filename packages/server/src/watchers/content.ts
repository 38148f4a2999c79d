import type { PoolClient } from 'pg';
import { estimateTokens } from '../turns/prompt.js';
import { sourcesSql, type WindowScope } from './sources.js';

/** The most of one event's text the model gets; the rest is one memory_search away. */
const EVENT_TEXT_MAX_CHARS = 2000;
/** Events read to fill a window's message at most, however large its budget. */
const MOST_EVENTS_READ = 2000;

export interface WindowContent {
  /** The message the watcher's agent answers. */
  text: string;
  eventIds: string[];
  eventCount: number;
  /** Whether some of the window's events were left out for the budget (the model is told so). */
  truncated: boolean;
}

interface EventRow {
  id: string;
  title: string | null;
  payload_text: string;
  occurred_at: Date;
  created_at: Date;
  source_url: string | null;
  semantic_type: string | null;
  connector_key: string | null;
  feed_key: string | null;
  entities: { id: string; type: string; title: string | null }[] | null;
}

function eventText(row: EventRow): string {
  const where = row.connector_key
    ? `${row.connector_key}${row.feed_key ? `/${row.feed_key}` : ''}`
    : 'memory';
  const entities = (row.entities ?? [])
    .map((e) => `${e.type} #${e.id}${e.title ? ` "${e.title}"` : ''}`)
    .join(', ');
  const body =
    row.payload_text.length > EVENT_TEXT_MAX_CHARS
      ? `${row.payload_text.slice(0, EVENT_TEXT_MAX_CHARS)}… (cut; the whole text is in memory_search)`
      : row.payload_text;
  return [
    `## Event ${row.id}: ${row.title ?? '(no title)'}`,
    `occurred ${row.occurred_at.toISOString()} · arrived ${row.created_at.toISOString()} · ${where}` +
      (row.semantic_type ? ` · ${row.semantic_type}` : '') +
      (row.source_url ? ` · ${row.source_url}` : ''),
    ...(entities ? [`entities: ${entities}`] : []),
    '',
    body,
  ].join('\n');
}

/**
 * The message a window's turn answers: the watcher's prompt, the window, and the events that
 * arrived in it, oldest first, until `budgetTokens` is spent. When they do not all fit, the model
 * is told how many there are and how to read the rest (memory_search over the window), never
 * given a silent cut.
 */
export async function windowContent(
  client: PoolClient,
  scope: WindowScope,
  watcher: {
    prompt: string;
    extractionSchema: Record<string, unknown> | null;
    label: string;
    /** Whether the agent has memory_search to read what did not fit (`toolsConfig.memory`). */
    memoryTools?: boolean;
  },
  budgetTokens: number,
): Promise<WindowContent> {
  const filter = sourcesSql(scope, 4);
  const { rows } = await client.query<EventRow & { total: number }>(
    `WITH windowed AS (
       SELECT e.* FROM events e
        WHERE e.org_id = $1 AND e.created_at >= $2 AND e.created_at < $3 AND ${filter.sql}
     )
     SELECT e.id, e.title, e.payload_text, e.occurred_at, e.created_at, e.source_url, e.semantic_type,
            c.connector_key, f.feed_key,
            (SELECT json_agg(json_build_object('id', n.id::text, 'type', n.entity_type, 'title', n.title) ORDER BY n.id)
               FROM event_entities ee JOIN entities n ON n.id = ee.entity_id WHERE ee.event_id = e.id) AS entities,
            (SELECT count(*)::int FROM windowed) AS total
       FROM windowed e
       LEFT JOIN connections c ON c.id = e.connection_id
       LEFT JOIN feeds f ON f.id = e.feed_id
      ORDER BY e.created_at, e.id
      LIMIT ${MOST_EVENTS_READ}`,
    [scope.orgId, scope.start, scope.end, ...filter.params],
  );
  const total = rows[0]?.total ?? 0;
  const head = [
    watcher.prompt.trim(),
    '',
    `# Window ${watcher.label}`,
    `From ${scope.start.toISOString()} to ${scope.end.toISOString()}: the events that arrived in this span ` +
      '(by when svc received them, whatever date they carry).',
  ];
  const tail: string[] = [];
  if (watcher.extractionSchema) {
    tail.push(
      '',
      '# Answer',
      'Answer with one JSON object, and nothing else, valid against this JSON Schema:',
      JSON.stringify(watcher.extractionSchema),
    );
  }
  let spent = estimateTokens([...head, ...tail].join('\n')) + 100;
  const shown: string[] = [];
  const ids: string[] = [];
  for (const row of rows) {
    const text = eventText(row);
    const cost = estimateTokens(text);
    if (spent + cost > budgetTokens) break;
    spent += cost;
    shown.push(text);
    ids.push(row.id);
  }
  const truncated = ids.length < total;
  const count =
    total === 0
      ? 'No event arrived in this window.'
      : truncated
        ? `${total} events arrived in this window; the ${ids.length} that arrived first are below. ` +
          (watcher.memoryTools === false
            ? 'The others did not fit and this agent has no memory tools to read them: say so in the answer.'
            : `Read the others with the memory_search tool (arrivedSince ${scope.start.toISOString()}, ` +
              `arrivedUntil ${scope.end.toISOString()}).`)
        : `${total} event${total === 1 ? '' : 's'} arrived in this window, all below.`;
  return {
    text: [...head, count, '', ...shown.flatMap((s) => [s, '']), ...tail].join('\n').trim(),
    eventIds: ids,
    eventCount: total,
    truncated,
  };
}
