import { useState } from 'preact/hooks';
import { api, href, must } from '../../api/client';
import { useSession } from '../../session';
import { useAction } from '../../ui/action';
import { useLoad } from '../../ui/load';
import { Loading, Status, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import { FeedConfig } from './feed-config';
import type { Definition, Feed } from './types';

const every = (ms: number) =>
  ms % 86_400_000 === 0
    ? `${ms / 86_400_000} d`
    : ms % 3_600_000 === 0
      ? `${ms / 3_600_000} h`
      : `${Math.round(ms / 60_000)} min`;

/** One feed: when it syncs, how the last went, and sync now / pause / resume. */
function FeedCard(props: { org: string; feed: Feed; definition: Definition; onChanged: () => void }) {
  const { org, feed } = props;
  const { can } = useSession();
  const [run, setRun] = useState<{ id: number; created: boolean } | null>(null);
  const { busy, error, act } = useAction(() => props.onChanged());
  const path = { org, feedId: feed.id };
  const sync = () =>
    act(async () => {
      const answer = await must(api.POST('/api/{org}/feeds/{feedId}/sync', { params: { path }, body: {} }));
      setRun({ id: answer.run.id, created: answer.created });
    });
  const setStatus = (status: 'active' | 'paused') =>
    act(async () => {
      await must(api.PATCH('/api/{org}/feeds/{feedId}', { params: { path }, body: { status } }));
    });
  const name = feed.displayName ?? feed.feedKey;
  return (
    <article class="card" aria-labelledby={`feed-${feed.id}`}>
      <h3 id={`feed-${feed.id}`}>
        {name} <Status value={feed.status} />
      </h3>
      <dl class="facts">
        <dt>Feed</dt>
        <dd class="mono">{feed.feedKey}</dd>
        <dt>Next sync</dt>
        <dd>{feed.status === 'active' ? <Time at={feed.nextSyncAt} /> : `none while ${feed.status}`}</dd>
        <dt>Every</dt>
        <dd>{every(feed.syncIntervalMs)}</dd>
        <dt>Last sync</dt>
        <dd>
          <Time at={feed.lastSyncAt} /> {feed.lastSyncStatus ? <Status value={feed.lastSyncStatus} /> : null}
        </dd>
        <dt>Failures in a row</dt>
        <dd>{feed.consecutiveFailures}</dd>
        <dt>Items collected</dt>
        <dd>{feed.itemsCollected}</dd>
        {feed.lastError ? (
          <>
            <dt>Last error</dt>
            <dd class="error-text">{feed.lastError}</dd>
          </>
        ) : null}
      </dl>
      <div class="actions">
        {can('write') ? (
          <>
            <button type="button" disabled={busy} onClick={sync} aria-label={`Sync now: ${name}`}>
              Sync now
            </button>
            {feed.status === 'paused' || feed.status === 'error' ? (
              <button type="button" class="secondary" disabled={busy} onClick={() => setStatus('active')}>
                Resume feed
              </button>
            ) : (
              <button type="button" class="secondary" disabled={busy} onClick={() => setStatus('paused')}>
                Pause feed
              </button>
            )}
          </>
        ) : null}
        <a class="button secondary" href={href(`/orgs/${org}/runs?feedId=${feed.id}`)}>
          Runs of {name}
        </a>
      </div>
      {can('write') ? (
        <FeedConfig
          org={org}
          feed={feed}
          schema={props.definition.feeds?.[feed.feedKey]?.configSchema}
          onSaved={props.onChanged}
        />
      ) : null}
      {run ? (
        <p role="status">
          {run.created ? 'Sync requested: ' : 'A sync is already open: '}
          <a href={href(`/orgs/${org}/runs/${run.id}`)}>run #{run.id}</a>
        </p>
      ) : null}
      <ProblemNote error={error} />
    </article>
  );
}

/** A connection's feeds. */
export function Feeds({
  org,
  connectionId,
  definition,
}: {
  org: string;
  connectionId: number;
  definition: Definition;
}) {
  const feeds = useLoad(
    () =>
      must(
        api.GET('/api/{org}/connections/{connectionId}/feeds', { params: { path: { org, connectionId } } }),
      ),
    [org, connectionId],
  );
  return (
    <>
      <h2>Feeds</h2>
      <Loading loaded={feeds}>
        {({ feeds: list }) =>
          list.length === 0 ? (
            <p>This connector has no feed.</p>
          ) : (
            <div class="grid wide-grid">
              {list.map((feed) => (
                <FeedCard
                  key={feed.id}
                  org={org}
                  feed={feed}
                  definition={definition}
                  onChanged={feeds.reload}
                />
              ))}
            </div>
          )
        }
      </Loading>
    </>
  );
}
