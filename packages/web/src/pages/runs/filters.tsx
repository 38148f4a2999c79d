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

/** One filter chosen from a list, or "any". */
function Choice(props: {
  id: string;
  label: string;
  values: readonly string[];
  value: string | undefined;
  onChange: (event: Event) => void;
}) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value ?? ''} onChange={props.onChange}>
        <option value="">any</option>
        {props.values.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
    </div>
  );
}

/** One filter that is an id (a number). */
function IdInput(props: {
  id: string;
  label: string;
  value: string | undefined;
  onInput: (event: Event) => void;
}) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <input id={props.id} inputMode="numeric" size={8} value={props.value ?? ''} onInput={props.onInput} />
    </div>
  );
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
      <Choice
        id="runs-status"
        label="Status"
        values={RUN_STATUSES}
        value={draft.status}
        onChange={set('status')}
      />
      <Choice
        id="runs-type"
        label="Type"
        values={RUN_TYPES}
        value={draft.runType}
        onChange={set('runType')}
      />
      <IdInput
        id="runs-connection"
        label="Connection id"
        value={draft.connectionId}
        onInput={set('connectionId')}
      />
      <IdInput id="runs-feed" label="Feed id" value={draft.feedId} onInput={set('feedId')} />
      <button type="submit">Filter</button>
    </form>
  );
}
