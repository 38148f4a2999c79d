import { api, href, must } from '../../api/client';
import { useLoad } from '../../ui/load';
import { Loading, Page, Status, Time } from '../../ui/page';
import { Span, WatcherStatus } from './parts';
import './watchers.css';

/** The org's watchers: whether each runs, when next, how its last window went. */
export default function WatchersPage({ org }: { org: string }) {
  const watchers = useLoad(() => must(api.GET('/api/{org}/watchers', { params: { path: { org } } })), [org]);
  return (
    <Page title="Watchers">
      <Loading loaded={watchers}>
        {({ watchers }) =>
          watchers.length === 0 ? (
            <p class="notice">
              No watchers in {org}. A watcher is declared in a memory bundle: write one and run{' '}
              <code>svc apply</code>.
            </p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="hint">Watchers of {org}</caption>
                <thead>
                  <tr>
                    <th scope="col">Watcher</th>
                    <th scope="col">Status</th>
                    <th scope="col">Failures in a row</th>
                    <th scope="col">Next run</th>
                    <th scope="col">Last window</th>
                  </tr>
                </thead>
                <tbody>
                  {watchers.map((watcher) => (
                    <tr key={watcher.slug}>
                      <td>
                        <a href={href(`/orgs/${org}/watchers/${watcher.slug}`)}>{watcher.name}</a>{' '}
                        <span class="badge mono">{watcher.slug}</span>
                        <div class="hint">
                          agent {watcher.agent}, <code>{watcher.schedule}</code> {watcher.timezone}
                        </div>
                      </td>
                      <td>
                        <WatcherStatus watcher={watcher} />
                      </td>
                      <td>
                        {watcher.consecutiveFailures}
                        {watcher.lastError ? <div class="watcher-error">{watcher.lastError}</div> : null}
                      </td>
                      <td>
                        <Time at={watcher.nextRunAt} />
                      </td>
                      <td>
                        {watcher.lastWindow ? (
                          <>
                            <Status value={watcher.lastWindow.status} />
                            <div class="hint">
                              <Span window={watcher.lastWindow} />
                            </div>
                          </>
                        ) : (
                          'none yet'
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loading>
    </Page>
  );
}
