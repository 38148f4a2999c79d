import { api, href, must } from '../../api/client';
import { useLoad } from '../../ui/load';
import { loadManifest, Managed, ManifestNote } from '../../ui/managed';
import { Loading, Page, Status, Time } from '../../ui/page';
import { Span, WatcherStatus } from './parts';
import './watchers.css';
import { Table } from '../../ui/table';

/** The org's watchers: whether each runs, when next, how its last window went. */
export default function WatchersPage({ org }: { org: string }) {
  const watchers = useLoad(() => must(api.GET('/api/{org}/watchers', { params: { path: { org } } })), [org]);
  const manifest = useLoad(() => loadManifest(org), [org]);
  return (
    <Page title="Watchers">
      <ManifestNote manifest={manifest.data} />
      <Loading loaded={watchers}>
        {({ watchers }) =>
          watchers.length === 0 ? (
            <p class="notice">
              No watchers in {org}. A watcher is declared in a memory bundle: write one and run{' '}
              <code>svc apply</code>.
            </p>
          ) : (
            <Table
              head={['Watcher', 'Status', 'Failures in a row', 'Next run', 'Last window']}
              caption={`Watchers of ${org}`}
              captionClass="hint"
            >
              {watchers.map((watcher) => (
                <tr key={watcher.slug}>
                  <td>
                    <a href={href(`/orgs/${org}/watchers/${watcher.slug}`)}>{watcher.name}</a>{' '}
                    <span class="badge mono">{watcher.slug}</span>{' '}
                    <Managed
                      manifest={manifest.data}
                      declared={manifest.data?.watchers.includes(watcher.slug) ?? false}
                    />
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
            </Table>
          )
        }
      </Loading>
    </Page>
  );
}
