import { useState } from 'preact/hooks';

export const RUN_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled', 'timeout'] as const;
export const RUN_TYPES = ['sync', 'action', 'code', 'watcher', 'auth'] as const;

export interface RunFilters {
  status?: (typeof RUN_STATUSES)[number];
  runType?: (typeof RUN_TYPES)[number];
  connectionId?: string;
  feedId?: string;
}

/** The filters a runs URL carries (`?status=failed&connectionId=7`): unknown values are dropped. */
export function filtersOf(query: Record<string, string>): RunFilters {
  const filters: RunFilters = {};
  if ((RUN_STATUSES as readonly string[]).includes(query.status ?? ''))
    filters.status = query.status as RunFilters['status'];
  if ((RUN_TYPES as readonly string[]).includes(query.runType ?? ''))
    filters.runType = query.runType as RunFilters['runType'];
  if (query.connectionId) filters.connectionId = query.connectionId;
  if (query.feedId) filters.feedId = query.feedId;
  return filters;
}

/** A form of the filters; applying it changes the URL, so that a filtered list can be shared. */
export function FilterForm(props: { filters: RunFilters; onApply: (filters: RunFilters) => void }) {
  const [draft, setDraft] = useState<Record<string, string>>({ ...props.filters });
  const set = (name: string) => (event: Event) =>
    setDraft((before) => ({ ...before, [name]: (event.target as HTMLInputElement).value }));
  const submit = (event: Event) => {
    event.preventDefault();
    props.onApply(filtersOf(Object.fromEntries(Object.entries(draft).map(([k, v]) => [k, v.trim()]))));
  };
  return (
    <form class="inline run-filters" onSubmit={submit} aria-label="Filter runs">
      <div>
        <label for="runs-status">Status</label>
        <select id="runs-status" value={draft.status ?? ''} onChange={set('status')}>
          <option value="">any</option>
          {RUN_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="runs-type">Type</label>
        <select id="runs-type" value={draft.runType ?? ''} onChange={set('runType')}>
          <option value="">any</option>
          {RUN_TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="runs-connection">Connection id</label>
        <input
          id="runs-connection"
          inputMode="numeric"
          size={8}
          value={draft.connectionId ?? ''}
          onInput={set('connectionId')}
        />
      </div>
      <div>
        <label for="runs-feed">Feed id</label>
        <input
          id="runs-feed"
          inputMode="numeric"
          size={8}
          value={draft.feedId ?? ''}
          onInput={set('feedId')}
        />
      </div>
      <button type="submit">Filter</button>
    </form>
  );
}
