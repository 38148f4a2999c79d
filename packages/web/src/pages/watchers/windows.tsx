import { useEffect, useState } from 'preact/hooks';
import { api, href, must } from '../../api/client';
import { useLoad } from '../../ui/load';
import { Loading, Status, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import { Span, type WatcherWindow } from './parts';

/** A watcher's windows, newest first, a page at a time; each links to its result. */
export function Windows(props: { org: string; slug: string; selected: string; version: number }) {
  const { org, slug } = props;
  const [rows, setRows] = useState<WatcherWindow[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [moreError, setMoreError] = useState<Error | null>(null);
  const page = (after?: string) =>
    must(
      api.GET('/api/{org}/watchers/{slug}/windows', {
        params: { path: { org, slug }, query: { limit: 20, ...(after ? { cursor: after } : {}) } },
      }),
    );
  const first = useLoad(() => page(), [org, slug, props.version]);
  useEffect(() => {
    if (!first.data) return;
    setRows(first.data.windows);
    setCursor(first.data.nextCursor);
  }, [first.data]);
  const more = async () => {
    try {
      const next = await page(cursor ?? undefined);
      setRows((previous) => [...previous, ...next.windows]);
      setCursor(next.nextCursor);
    } catch (error) {
      setMoreError(error as Error);
    }
  };
  return (
    <Loading loaded={first}>
      {() =>
        rows.length === 0 ? (
          <p class="notice">No window yet: the first one closes after its schedule's next tick.</p>
        ) : (
          <>
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Window</th>
                    <th scope="col">Status</th>
                    <th scope="col">Events</th>
                    <th scope="col">Completed</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((w) => (
                    <tr key={w.id} aria-current={w.id === props.selected ? 'true' : undefined}>
                      <td>
                        <a href={href(`/orgs/${org}/watchers/${slug}?window=${w.id}`)}>
                          <Span window={w} />
                        </a>
                      </td>
                      <td>
                        <Status value={w.status} />
                        {w.attempts > 1 ? <span class="hint"> ({w.attempts} attempts)</span> : null}
                        {w.error ? <div class="watcher-error">{w.error}</div> : null}
                      </td>
                      <td>{w.eventCount ?? '—'}</td>
                      <td>
                        <Time at={w.completedAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {cursor ? (
              <button type="button" class="secondary" onClick={more}>
                Load older windows
              </button>
            ) : null}
            <ProblemNote error={moreError} />
          </>
        )
      }
    </Loading>
  );
}
