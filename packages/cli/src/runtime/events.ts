/**
 * `svc events list|show` and `svc search <query>`: what syncs (and agents, and watchers) wrote to
 * memory, filtered as the API filters it.
 */

import { checkId, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import { cell, short, table, when } from './table.js';

interface EventRecord {
  id: number;
  connectionId: number | null;
  feedId: number | null;
  origin_id: string;
  origin_type: string | null;
  semantic_type: string | null;
  payload_text: string;
  title: string | null;
  author_name: string | null;
  source_url: string | null;
  occurred_at: string;
  entityIds: number[];
  [key: string]: unknown;
}

export interface Filters extends SessionFlags {
  connection?: string;
  feed?: string;
  kind?: string;
  entity?: string;
  since?: string;
  until?: string;
  limit?: number;
  json?: boolean;
}

const CONNECTIONS = '"svc connection list" shows them';

/** The filters both routes share, checked before anything is sent. */
function commonQuery(flags: Filters): URLSearchParams {
  const query = new URLSearchParams();
  if (flags.connection !== undefined)
    query.set('connectionId', checkId('connection', flags.connection, CONNECTIONS));
  if (flags.entity !== undefined)
    query.set('entityId', checkId('entity', flags.entity, 'entities are numbers'));
  if (flags.kind !== undefined) query.set('kind', flags.kind);
  if (flags.since !== undefined) query.set('since', instant(flags.since));
  if (flags.until !== undefined) query.set('until', instant(flags.until));
  if (flags.limit !== undefined) query.set('limit', String(flags.limit));
  return query;
}

const TIMES =
  '--since and --until take a date (2026-01-31, midnight UTC) or an ISO 8601 instant (2026-01-31T10:00:00Z)';

/** A date alone means its midnight UTC: the API takes instants only. */
const instant = (value: string) => (/^\d{4}-\d\d-\d\d$/.test(value) ? `${value}T00:00:00Z` : value);

export async function eventsList(flags: Filters & { cursor?: string }, io: RuntimeIo): Promise<void> {
  const query = commonQuery(flags);
  // A feed is a number (its id) or a feed key such as `posts`: the API takes either.
  if (flags.feed !== undefined) query.set(/^\d+$/.test(flags.feed) ? 'feedId' : 'feedKey', flags.feed);
  if (!query.has('limit')) query.set('limit', '20');
  if (flags.cursor !== undefined) query.set('cursor', flags.cursor);
  const api = await openApi(io, flags);
  const { events, nextCursor } = await api.call<{ events: EventRecord[]; nextCursor: string | null }>(
    'GET',
    `/events?${query}`,
    undefined,
    { validation_failed: `${TIMES}; a --cursor comes from the previous page` },
  );
  if (flags.json) {
    io.out(JSON.stringify({ org: api.session.org, events, nextCursor }, null, 2));
    return;
  }
  if (events.length === 0) {
    io.out(
      query.size > 1 ? 'No events match: try fewer filters.' : `No events in org ${api.session.org} yet.`,
    );
    return;
  }
  const rows = events.map((e) => [
    String(e.id),
    when(e.occurred_at),
    cell(e.origin_type ?? e.semantic_type),
    cell(e.connectionId),
    short(e.title ?? e.payload_text, 70),
  ]);
  for (const line of table(['ID', 'OCCURRED', 'KIND', 'CONNECTION', 'TITLE'], rows)) io.out(line);
  if (nextCursor) io.err(`more: svc events list --cursor ${nextCursor} (with the same filters)`);
}

export async function eventsShow(
  id: string,
  flags: SessionFlags & { json?: boolean },
  io: RuntimeIo,
): Promise<void> {
  checkId('event', id, '"svc events list" shows them');
  const api = await openApi(io, flags);
  const { event } = await api.call<{ event: EventRecord }>('GET', `/events/${id}`, undefined, {
    not_found: `org ${api.session.org} has no event ${id}: "svc events list" shows them`,
  });
  if (flags.json) {
    io.out(JSON.stringify({ event }, null, 2));
    return;
  }
  const fields: [string, string][] = [
    ['event', String(event.id)],
    ['title', cell(event.title)],
    ['occurred', when(event.occurred_at)],
    ['kind', cell(event.origin_type ?? event.semantic_type)],
    ['origin', event.origin_id],
    ['author', cell(event.author_name)],
    ['url', cell(event.source_url)],
    ['connection', cell(event.connectionId)],
    ['feed', cell(event.feedId)],
    ['entities', cell(event.entityIds.join(','))],
  ];
  const width = Math.max(...fields.map(([name]) => name.length));
  for (const [name, value] of fields) io.out(`${`${name}:`.padEnd(width + 1)}  ${value}`);
  if (event.payload_text) io.out(`\n${event.payload_text}`);
}

interface Hit {
  eventId: number;
  title: string | null;
  occurredAt: string;
  snippet: string;
  connectionId: number | null;
  rank: number;
}

export async function search(text: string, flags: Filters, io: RuntimeIo): Promise<void> {
  const query = commonQuery(flags);
  if (flags.feed !== undefined)
    query.set('feedId', checkId('feed', flags.feed, '"svc feed list <connectionId>" shows them'));
  query.set('q', text);
  const api = await openApi(io, flags);
  const answer = await api.call<{ mode: string; modeNote: string; coverage: string; hits: Hit[] }>(
    'GET',
    `/search?${query}`,
    undefined,
    {
      search_query_empty: 'give words to search for: svc search "invoice overdue"',
      validation_failed: TIMES,
    },
  );
  if (flags.json) {
    io.out(JSON.stringify(answer, null, 2));
    return;
  }
  if (answer.hits.length === 0) {
    io.out(`Nothing in org ${api.session.org} matches "${text}".`);
  } else {
    const rows = answer.hits.map((h) => [
      String(h.eventId),
      when(h.occurredAt),
      h.rank.toFixed(3),
      short(h.title, 40),
      short(h.snippet, 80),
    ]);
    for (const line of table(['EVENT', 'OCCURRED', 'RANK', 'TITLE', 'SNIPPET'], rows)) io.out(line);
  }
  if (answer.coverage === 'newest')
    io.err(
      'only the newest events were searched: add words, --since/--until or --entity to reach older ones',
    );
}
