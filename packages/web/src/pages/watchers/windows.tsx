import { api, href, must } from '../../api/client';
import { Loading, Status, Time } from '../../ui/page';
import { usePaged } from '../../ui/paged';
import { ProblemNote } from '../../ui/problem';
import { Table } from '../../ui/table';
import { Span } from './parts';

/** A watcher's windows, newest first, a page at a time; each links to its result. */
export function Windows(props: { org: string; slug: string; selected: number | null; version: number }) {
  const { org, slug } = props;
  const { first, rows, hasMore, more, moreError } = usePaged(
    (after?: string) =>
      must(
        api.GET('/api/{org}/watchers/{slug}/windows', {
          params: { path: { org, slug }, query: { limit: 20, ...(after ? { cursor: after } : {}) } },
        }),
      ),
    (data) => ({ rows: data.windows, nextCursor: data.nextCursor }),
    [org, slug, props.version],
  );
  return (
    <Loading loaded={first}>
      {() =>
        rows.length === 0 ? (
          <p class="notice">No window yet: the first one closes after its schedule's next tick.</p>
        ) : (
          <>
            <Table head={['Window', 'Status', 'Events', 'Completed']}>
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
            </Table>
            {hasMore ? (
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
