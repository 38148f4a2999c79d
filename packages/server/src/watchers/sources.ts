import type { WatcherSource } from '@svc/core';

/** What one window of one watcher reads: its org's events that arrived in [start, end). */
export interface WindowScope {
  orgId: string;
  watcherSlug: string;
  start: Date;
  end: Date;
  /** Null: every event of the org. */
  sources: WatcherSource[] | null;
}

/** The `origin_id` prefix of a watcher's own summaries, which its next window must not read back. */
export const summaryOriginPrefix = (slug: string) => `${slug}@`;

/**
 * The SQL condition on events `e` that a window's `sources` make (any source, each of whose
 * fields must hold), with its parameters numbered from `$first`. A watcher never reads its own
 * summaries back.
 */
export function sourcesSql(scope: WindowScope, first: number): { sql: string; params: string[] } {
  const params: string[] = [summaryOriginPrefix(scope.watcherSlug)];
  const param = (value: string) => {
    params.push(value);
    return `$${first + params.length - 1}`;
  };
  const own = `NOT (e.connection_id IS NULL AND e.origin_type = 'watcher' AND starts_with(e.origin_id, $${first}))`;
  if (!scope.sources || scope.sources.length === 0) return { sql: own, params };
  const any = scope.sources.map((source) => {
    const all: string[] = [];
    if (source.connector !== undefined) {
      all.push(
        `EXISTS (SELECT 1 FROM connections c WHERE c.id = e.connection_id AND c.connector_key = ${param(source.connector)})`,
      );
    }
    if (source.feed !== undefined) {
      all.push(
        `EXISTS (SELECT 1 FROM feeds f WHERE f.id = e.feed_id AND f.feed_key = ${param(source.feed)})`,
      );
    }
    if (source.entity_type !== undefined) {
      all.push(
        `EXISTS (SELECT 1 FROM event_entities ee JOIN entities n ON n.id = ee.entity_id
                  WHERE ee.event_id = e.id AND n.entity_type = ${param(source.entity_type)})`,
      );
    }
    return `(${all.join(' AND ')})`;
  });
  return { sql: `${own} AND (${any.join(' OR ')})`, params };
}
