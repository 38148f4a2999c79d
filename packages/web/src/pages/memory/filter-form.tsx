import { useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { useLoad } from '../../ui/load';
import { type Filters, instantOf, localOf } from './filters';

/**
 * The search box and the filters. What is typed stays in the form until it is submitted, then the
 * URL carries it: the page loads from the URL alone, so a reload or a shared link shows the same.
 */
export function FilterForm(props: { org: string; filters: Filters; onSubmit: (next: Filters) => void }) {
  const [draft, setDraft] = useState<Filters>(props.filters);
  const connections = useLoad(
    () => must(api.GET('/api/{org}/connections', { params: { path: { org: props.org } } })),
    [props.org],
  );
  const field = (key: keyof Filters) => ({
    id: `filter-${key}`,
    name: key,
    value: draft[key],
    onInput: (event: Event) => setDraft({ ...draft, [key]: (event.target as HTMLInputElement).value }),
  });
  const time = (key: 'since' | 'until') => ({
    id: `filter-${key}`,
    name: key,
    type: 'datetime-local' as const,
    value: localOf(draft[key]),
    onInput: (event: Event) =>
      setDraft({ ...draft, [key]: instantOf((event.target as HTMLInputElement).value) }),
  });
  return (
    <form
      class="memory-filters"
      aria-label="Search and filter events"
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit(draft);
      }}
    >
      <div class="memory-search">
        <label for="filter-q">Search events</label>
        <input {...field('q')} type="search" placeholder='words, "a phrase", -word' />
        <button type="submit">Search</button>
      </div>
      <details class="memory-more" open={Object.entries(props.filters).some(([k, v]) => k !== 'q' && v)}>
        <summary>Filters</summary>
        <div class="memory-filter-grid">
          <div>
            <label for="filter-connectionId">Connection</label>
            <select {...field('connectionId')}>
              <option value="">Any connection</option>
              {(connections.data?.connections ?? []).map((c) => (
                <option key={c.id} value={String(c.id)}>
                  {c.displayName ?? c.connectorKey} (#{c.id})
                </option>
              ))}
              {draft.connectionId &&
              !connections.data?.connections.some((c) => String(c.id) === draft.connectionId) ? (
                <option value={draft.connectionId}>#{draft.connectionId}</option>
              ) : null}
            </select>
          </div>
          <div>
            <label for="filter-feedKey">Feed key</label>
            <input {...field('feedKey')} aria-describedby="filter-feedKey-hint" />
            <p class="hint" id="filter-feedKey-hint">
              Lists only; a search ignores it.
            </p>
          </div>
          <div>
            <label for="filter-kind">Kind</label>
            <input {...field('kind')} aria-describedby="filter-kind-hint" />
            <p class="hint" id="filter-kind-hint">
              An origin type (email, message) or a semantic type (summary).
            </p>
          </div>
          <div>
            <label for="filter-entityId">Entity id</label>
            <input {...field('entityId')} inputMode="numeric" pattern="[0-9]*" />
          </div>
          <div>
            <label for="filter-since">Occurred since</label>
            <input {...time('since')} />
          </div>
          <div>
            <label for="filter-until">Occurred before</label>
            <input {...time('until')} />
          </div>
        </div>
        <div class="actions">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            class="secondary"
            onClick={() =>
              props.onSubmit({
                ...draft,
                connectionId: '',
                feedKey: '',
                kind: '',
                entityId: '',
                since: '',
                until: '',
              })
            }
          >
            Clear filters
          </button>
        </div>
      </details>
    </form>
  );
}
