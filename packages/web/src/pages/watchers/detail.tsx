import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, href, must, rowIdOf } from '../../api/client';
import { useLoad } from '../../ui/load';
import { loadManifest, MemoryDeclared } from '../../ui/managed';
import { Loading, Page, Time } from '../../ui/page';
import { WatcherDefinition } from './definition';
import { WatcherControls, WatcherStatus } from './parts';
import { WindowResult } from './window';
import { Windows } from './windows';
import './watchers.css';

/** While a window waits or runs, the page looks again this often, so that its result shows up. */
const FOLLOW_MS = 1500;

/** One watcher: how it runs, its windows, the result of the one picked (`?window=` in the URL). */
export default function WatcherPage({ org, slug }: { org: string; slug: string }) {
  const { query, route } = useLocation();
  const manifest = useLoad(() => loadManifest(org), [org]);
  const [version, setVersion] = useState(0);
  const loaded = useLoad(
    () => must(api.GET('/api/{org}/watchers/{slug}', { params: { path: { org, slug } } })),
    [org, slug, version],
  );
  const watcher = loaded.data?.watcher;
  const busy = watcher?.lastWindow && ['pending', 'running'].includes(watcher.lastWindow.status);
  // Once more after it ends: the windows and the result were read beside the watcher, maybe first.
  const wasBusy = useRef(false);
  useEffect(() => {
    if (!busy) {
      if (wasBusy.current) setVersion((n) => n + 1);
      wasBusy.current = false;
      return;
    }
    wasBusy.current = true;
    const timer = setTimeout(() => setVersion((n) => n + 1), FOLLOW_MS);
    return () => clearTimeout(timer);
  }, [busy, version]);
  // `?window=` as the API takes it: text that is no id is NaN, which the server answers with a 404.
  const selected = query.window ? rowIdOf(query.window) : null;
  return (
    <Page title={watcher?.name ?? slug}>
      <p>
        <a href={href(`/orgs/${org}/watchers`)}>All watchers</a>
      </p>
      <Loading loaded={loaded}>
        {({ watcher }) => (
          <>
            <div>
              <MemoryDeclared
                org={org}
                kind="watcher"
                slug={slug}
                manifest={manifest.data}
                onDeleted={() => route(href(`/orgs/${org}/watchers`))}
              />
            </div>
            <dl class="facts">
              <dt>Slug</dt>
              <dd class="mono">{watcher.slug}</dd>
              <dt>Status</dt>
              <dd>
                <WatcherStatus watcher={watcher} />
              </dd>
              <dt>Agent</dt>
              <dd>
                <a href={href(`/orgs/${org}/agents/${watcher.agent}`)}>{watcher.agent}</a>
              </dd>
              <dt>Schedule</dt>
              <dd>
                <code>{watcher.schedule}</code> ({watcher.timezone})
              </dd>
              <dt>Next run</dt>
              <dd>
                <Time at={watcher.nextRunAt} />
              </dd>
              <dt>Next window starts</dt>
              <dd>
                <Time at={watcher.nextWindowStart} />
              </dd>
              <dt>Failures in a row</dt>
              <dd>{watcher.consecutiveFailures}</dd>
              {watcher.lastError ? (
                <>
                  <dt>Last error</dt>
                  <dd class="watcher-error">{watcher.lastError}</dd>
                </>
              ) : null}
            </dl>
            <WatcherDefinition org={org} slug={slug} />
            <WatcherControls org={org} watcher={watcher} onChanged={() => setVersion((n) => n + 1)} />
            {selected !== null ? (
              <WindowResult
                org={org}
                slug={slug}
                agent={watcher.agent}
                windowId={selected}
                version={version}
              />
            ) : null}
            <h2>Windows</h2>
            <Windows org={org} slug={slug} selected={selected} version={version} />
          </>
        )}
      </Loading>
    </Page>
  );
}
