import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import type { paths } from '../../api/schema';
import { useLoad } from '../../ui/load';
import { Loading, Time } from '../../ui/page';
import { EntityLink } from './entity-link';

export type MemoryEvent =
  paths['/api/{org}/events']['get']['responses'][200]['content']['application/json']['events'][number];

/** `«word»` marks what the search found: shown highlighted, the marks themselves dropped. */
export function Snippet({ text }: { text: string }) {
  return (
    <>
      {text
        .split(/(«[^»]*»)/)
        .map((part, i) =>
          part.startsWith('«') && part.endsWith('»') ? <mark key={i}>{part.slice(1, -1)}</mark> : part,
        )}
    </>
  );
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
const isEmpty = (value: unknown) =>
  value === null || value === undefined || (typeof value === 'object' && Object.keys(value).length === 0);

/** All of one event: its text, where it came from, its metadata and the entities it is linked to. */
export function EventBody({ org, event }: { org: string; event: MemoryEvent }) {
  return (
    <div class="event-body">
      <dl class="facts">
        <dt>Event id</dt>
        <dd class="mono">{event.id}</dd>
        <dt>Kind</dt>
        <dd>{[event.origin_type, event.semantic_type].filter(Boolean).join(' · ') || '—'}</dd>
        {event.author_name ? (
          <>
            <dt>Author</dt>
            <dd>{event.author_name}</dd>
          </>
        ) : null}
        <dt>Connection</dt>
        <dd>{event.connectionId === null ? 'none (written by svc)' : `#${event.connectionId}`}</dd>
        <dt>Received</dt>
        <dd>
          <Time at={event.createdAt} />
        </dd>
        {event.source_url ? (
          <>
            <dt>Source</dt>
            <dd>
              <a href={event.source_url} rel="noreferrer noopener" target="_blank">
                {event.source_url}
              </a>
            </dd>
          </>
        ) : null}
        <dt>Entities</dt>
        <dd>
          {event.entityIds.length === 0 ? (
            'none'
          ) : (
            <ul class="inline-list">
              {event.entityIds.map((id) => (
                <li key={id}>
                  <EntityLink org={org} id={id} />
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
      <h3>Text</h3>
      <pre class="event-text">{event.payload_text || '(empty)'}</pre>
      {isEmpty(event.payload_data) ? null : (
        <>
          <h3>Data</h3>
          <pre>{json(event.payload_data)}</pre>
        </>
      )}
      {isEmpty(event.metadata) ? null : (
        <>
          <h3>Metadata</h3>
          <pre>{json(event.metadata)}</pre>
        </>
      )}
      {event.linkIssues.length > 0 ? (
        <>
          <h3>Link issues</h3>
          <pre>{json(event.linkIssues)}</pre>
        </>
      ) : null}
    </div>
  );
}

/** An event the page has only the id of (a search hit, a window's input), loaded when opened. */
function LoadedEventBody({ org, id }: { org: string; id: number }) {
  const loaded = useLoad(
    () => must(api.GET('/api/{org}/events/{eventId}', { params: { path: { org, eventId: id } } })),
    [org, id],
  );
  return <Loading loaded={loaded}>{({ event }) => <EventBody org={org} event={event} />}</Loading>;
}

/**
 * One event in a list: its heading always shown, the rest when opened (native `<details>`, so the
 * keyboard and screen readers know how to open it). Unopened events cost no request.
 */
export function EventItem(props: {
  org: string;
  event?: MemoryEvent;
  id?: number;
  title: string | null;
  occurredAt?: string;
  children?: ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  const id = props.event?.id ?? props.id;
  return (
    <li class="event-item">
      <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <span class="event-title">{props.title || `Event ${id}`}</span>{' '}
          {props.occurredAt ? (
            <span class="hint">
              <Time at={props.occurredAt} />
            </span>
          ) : null}
        </summary>
        {open ? (
          props.event ? (
            <EventBody org={props.org} event={props.event} />
          ) : (
            <LoadedEventBody org={props.org} id={id as number} />
          )
        ) : null}
      </details>
      {props.children}
    </li>
  );
}
