/**
 * Lobu watchers read SQL (`{name, query}` over its `events` table); svc's name what to read
 * (`connector`, `feed`, `entity_type`). Only the queries that are such a filter translate: events of
 * some connectors (`connector_key = 'x'`, `connector_key IN (...)`), of entities of a type
 * (`entity_id IN (SELECT id FROM entities WHERE entity_type = 't')`), both, or all events. Anything
 * else (other columns, joins, other tables) is null: the caller drops it and says why.
 */

export interface SourceFilter {
  connector?: string;
  entity_type?: string;
}

/** Longer than any filter svc can name (4096 characters take ~20 ms at worst). */
const MAX_QUERY = 4096;
const QUOTED = /^'([^']*)'$/;
const CONNECTOR_IS = /^connector_key\s*=\s*('[^']*')$/i;
const CONNECTOR_IN = /^connector_key\s+in\s*\(([^()]*)\)$/i;
const ENTITY_TYPE_IS =
  /^entity_id\s+in\s*\(\s*select\s+id\s+from\s+entities\s+where\s+entity_type\s*=\s*('[^']*')\s*\)$/i;

/** The filters a query reads, `[]` for all events, or null when it is not a simple filter. */
export function translateQuery(query: string): SourceFilter[] | null {
  // The pattern below is quadratic in the worst case (lazy groups that can each take "order by"):
  // a filter svc can name is a few hundred characters, so a longer query is not one, unread.
  if (query.length > MAX_QUERY) return null;
  const sql = query.replace(/\s+/g, ' ').trim().replace(/;$/, '').trim();
  const match =
    /^select .+? from events(?: (?:as )?\w+)?(?: where (.+?))?(?: order by [\w\s,.]+?)?(?: limit \d+)?$/i.exec(
      sql,
    );
  if (!match) return null;
  const where = match[1];
  if (where === undefined) return [];
  let connectors: string[] | null = null;
  let entityType: string | null = null;
  for (const part of where.split(/\s+and\s+/i)) {
    const condition = part
      .trim()
      .replace(/^\((.*)\)$/, '$1')
      .trim();
    const is = CONNECTOR_IS.exec(condition);
    const inList = CONNECTOR_IN.exec(condition);
    const entity = ENTITY_TYPE_IS.exec(condition);
    if (is && connectors === null) connectors = [unquote(is[1] as string)];
    else if (inList && connectors === null) {
      const items = (inList[1] as string).split(',').map((s) => s.trim());
      if (!items.every((s) => QUOTED.test(s))) return null;
      connectors = items.map(unquote);
    } else if (entity && entityType === null) entityType = unquote(entity[1] as string);
    else return null;
  }
  const withType = entityType === null ? {} : { entity_type: entityType };
  if (connectors === null) return [withType];
  return connectors.map((connector) => ({ connector, ...withType }));
}

const unquote = (s: string) => (QUOTED.exec(s)?.[1] ?? s) as string;
