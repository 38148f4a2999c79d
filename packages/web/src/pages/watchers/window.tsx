import { api, href, must } from '../../api/client';
import { useLoad } from '../../ui/load';
import { Loading, Status, Time } from '../../ui/page';
import { EventItem } from '../memory/event-item';
import '../memory/memory.css';
import { Span } from './parts';

/** What one window did: its agent's reply, the structured result, the events it was given. */
export function WindowResult(props: {
  org: string;
  slug: string;
  agent: string;
  windowId: number;
  version: number;
}) {
  const { org, slug, windowId } = props;
  const loaded = useLoad(
    () =>
      must(
        api.GET('/api/{org}/watchers/{slug}/windows/{windowId}', {
          params: { path: { org, slug, windowId } },
        }),
      ),
    [org, slug, windowId, props.version],
  );
  return (
    <section class="card window-result" aria-labelledby="window-title">
      {/* A `?window=` that is no id is NaN here: the 404 below says so, the heading need not. */}
      <h2 id="window-title">Window {Number.isNaN(windowId) ? '' : windowId}</h2>
      <Loading loaded={loaded}>
        {({ window }) => (
          <>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <Status value={window.status} /> after {window.attempts}{' '}
                {window.attempts === 1 ? 'attempt' : 'attempts'}
                {window.retryAt ? (
                  <>
                    , retried at <Time at={window.retryAt} />
                  </>
                ) : null}
              </dd>
              <dt>Events that arrived</dt>
              <dd>
                <Span window={window} />
              </dd>
              <dt>Completed</dt>
              <dd>
                <Time at={window.completedAt} />
              </dd>
              <dt>Turn</dt>
              <dd>
                {window.runId ? (
                  <a href={href(`/orgs/${org}/runs/${window.runId}`)}>Run {window.runId}</a>
                ) : (
                  '—'
                )}
                {window.conversationId ? (
                  <>
                    {' · '}
                    <a
                      href={href(
                        `/orgs/${org}/agents/${props.agent}/chat?conversation=${encodeURIComponent(window.conversationId)}`,
                      )}
                    >
                      Conversation
                    </a>
                  </>
                ) : null}
              </dd>
              {window.summaryEventId ? (
                <>
                  <dt>Summary event</dt>
                  <dd class="mono">{window.summaryEventId}</dd>
                </>
              ) : null}
            </dl>
            {window.error ? (
              <p class="problem">
                <strong>Error:</strong> {window.error}
              </p>
            ) : null}
            <h3>Reply</h3>
            <pre class="window-reply">{window.reply ?? '(no reply yet)'}</pre>
            {window.extractedData ? (
              <>
                <h3>Structured result</h3>
                <dl class="facts extracted">
                  {Object.entries(window.extractedData).map(([name, value]) => [
                    <dt key={`k-${name}`}>{name}</dt>,
                    <dd key={`v-${name}`} class="mono">
                      {typeof value === 'string' ? value : JSON.stringify(value)}
                    </dd>,
                  ])}
                </dl>
              </>
            ) : null}
            <h3>
              Events given to the model ({window.eventIds.length}
              {window.truncated ? ', some left out: the model was told how many' : ''})
            </h3>
            {window.eventIds.length === 0 ? (
              <p>None arrived in this window.</p>
            ) : (
              <ol class="event-list">
                {window.eventIds.map((id) => (
                  <EventItem key={id} org={org} id={id} title={`Event ${id}`} />
                ))}
              </ol>
            )}
          </>
        )}
      </Loading>
    </section>
  );
}
