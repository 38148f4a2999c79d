import { rowIdOf } from '../../api/client';

/** What the memory page shows, as its URL's query says it: a search or a listing can be shared. */
export interface Filters {
  q: string;
  connectionId: string;
  feedKey: string;
  kind: string;
  entityId: string;
  since: string;
  until: string;
}

export const FILTER_KEYS = ['q', 'connectionId', 'feedKey', 'kind', 'entityId', 'since', 'until'] as const;

export function filtersOf(query: Record<string, string | undefined>): Filters {
  const filters = {} as Filters;
  for (const key of FILTER_KEYS) filters[key] = (query[key] ?? '').trim();
  return filters;
}

/** `?q=...&kind=...` with the empty filters left out, so that shared URLs stay short. */
export function searchOf(filters: Partial<Filters>): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key]?.trim();
    if (value) params.set(key, value);
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The filters as the API types them: the ids of rows are integers. */
type ApiFilters = Omit<Filters, 'connectionId' | 'entityId'> & { connectionId: number; entityId: number };

const ROW_IDS = new Set<keyof Filters>(['connectionId', 'entityId']);

/** The API's query: only what is set, since every filter is validated when present. */
export function apiQuery<K extends keyof Filters>(
  filters: Filters,
  keys: readonly K[],
): Partial<Pick<ApiFilters, K>> {
  const query: Partial<Record<keyof Filters, string | number>> = {};
  for (const key of keys) {
    if (filters[key]) query[key] = ROW_IDS.has(key) ? rowIdOf(filters[key]) : filters[key];
  }
  return query as Partial<Pick<ApiFilters, K>>;
}

/** A `datetime-local` value (the reader's clock) as the instant the URL and the API carry. */
export function instantOf(local: string): string {
  if (!local) return '';
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/** An instant from the URL as a `datetime-local` input shows it, on the reader's clock. */
export function localOf(instant: string): string {
  if (!instant) return '';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
