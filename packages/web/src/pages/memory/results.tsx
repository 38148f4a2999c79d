import { useEffect, useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { useLoad } from '../../ui/load';
import { Loading } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import { EventItem, type MemoryEvent, Snippet } from './event-item';
import { apiQuery, type Filters } from './filters';

/** The hits of a search, best first, each with the passage that matched. */
export function SearchResults({ org, filters }: { org: string; filters: Filters }) {
  const key = JSON.stringify(filters);
  const found = useLoad(
    () =>
      must(
        api.GET('/api/{org}/search', {
          params: {
            path: { org },
            query: {
              q: filters.q,
              limit: 50,
              ...apiQuery(filters, ['connectionId', 'kind', 'entityId', 'since', 'until'] as const),
            },
          },
        }),
      ),
    [org, key],
  );
  return (
    <Loading loaded={found}>
      {({ hits, coverage, modeNote }) => (
        <section aria-labelledby="results-title">
          <h2 id="results-title">
            {hits.length === 0
              ? 'No event matches'
              : `${hits.length} ${hits.length === 1 ? 'match' : 'matches'}`}
          </h2>
          <p class="hint">
            Best first. {modeNote}
            {coverage === 'newest' ? ' Only the newest events were searched: add words or a time range.' : ''}
          </p>
          <ol class="event-list">
            {hits.map((hit) => (
              <EventItem
                key={hit.eventId}
                org={org}
                id={hit.eventId}
                title={hit.title}
                occurredAt={hit.occurredAt}
              >
                <p class="snippet">
                  <Snippet text={hit.snippet} />
                </p>
              </EventItem>
            ))}
          </ol>
        </section>
      )}
    </Loading>
  );
}

/** Events newest first, a page at a time: filters as the URL has them, `entityId` too. */
export function EventList(props: { org: string; filters: Partial<Filters>; heading: string }) {
  const { org, filters } = props;
  const key = JSON.stringify(filters);
  const [events, setEvents] = useState<MemoryEvent[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [more, setMore] = useState<Error | null>(null);
  const query = apiQuery(
    { q: '', connectionId: '', feedKey: '', kind: '', entityId: '', since: '', until: '', ...filters },
    ['connectionId', 'feedKey', 'kind', 'entityId', 'since', 'until'] as const,
  );
  const first = useLoad(
    () => must(api.GET('/api/{org}/events', { params: { path: { org }, query: { ...query, limit: 25 } } })),
    [org, key],
  );
  useEffect(() => {
    setEvents(first.data?.events ?? []);
    setCursor(first.data?.nextCursor);
  }, [first.data]);
  const loadMore = async () => {
    if (!cursor) return;
    try {
      const page = await must(
        api.GET('/api/{org}/events', { params: { path: { org }, query: { ...query, limit: 25, cursor } } }),
      );
      setEvents((previous) => [...previous, ...page.events]);
      setCursor(page.nextCursor);
    } catch (error) {
      setMore(error as Error);
    }
  };
  return (
    <Loading loaded={first}>
      {() => (
        <section aria-labelledby={`${props.heading.replace(/\W/g, '')}-title`}>
          <h2 id={`${props.heading.replace(/\W/g, '')}-title`}>{props.heading}</h2>
          {events.length === 0 ? <p class="notice">No events.</p> : null}
          <ol class="event-list">
            {events.map((event) => (
              <EventItem
                key={event.id}
                org={org}
                event={event}
                title={event.title ?? event.payload_text.slice(0, 100)}
                occurredAt={event.occurred_at}
              >
                {event.title && event.payload_text ? (
                  <p class="snippet">{event.payload_text.slice(0, 200)}</p>
                ) : null}
              </EventItem>
            ))}
          </ol>
          {cursor ? (
            <button type="button" class="secondary" onClick={loadMore}>
              Load more events
            </button>
          ) : null}
          <ProblemNote error={more} />
        </section>
      )}
    </Loading>
  );
}
