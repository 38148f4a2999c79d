import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, href, must, rowIdOf } from '../../api/client';
import { useLoad } from '../../ui/load';
import { Loading, Page, Status, Time } from '../../ui/page';
import { FilterForm, filtersOf, type RunFilters } from './filters';
import { RunSubject } from './subject';
import './runs.css';
import { Table } from '../../ui/table';

const OPEN = new Set(['pending', 'running']);

/** The filters as the API types them: the ids of rows are integers. */
function apiQueryOf({ connectionId, feedId, ...chosen }: RunFilters) {
  return {
    ...chosen,
    ...(connectionId ? { connectionId: rowIdOf(connectionId) } : {}),
    ...(feedId ? { feedId: rowIdOf(feedId) } : {}),
  };
}

/** The org's runs, newest first, a page at a time; the filters and the page are in the URL. */
export default function RunsPage({ org }: { org: string }) {
  const { path, query, route } = useLocation();
  const filters = filtersOf(query);
  const cursor = query.cursor || undefined;
  const search = (next: RunFilters & { cursor?: string }) => {
    const params = new URLSearchParams(
      Object.entries(next).filter((entry): entry is [string, string] => Boolean(entry[1])),
    ).toString();
    return `${path}${params ? `?${params}` : ''}`;
  };
  const key = JSON.stringify([filters, cursor]);
  const runs = useLoad(
    () =>
      must(
        api.GET('/api/{org}/runs', {
          params: { path: { org }, query: { ...apiQueryOf(filters), cursor, limit: 50 } },
        }),
      ),
    [org, key],
  );
  // Open runs change by themselves: the list is read again while any is shown.
  const open = runs.data?.runs.some((run) => OPEN.has(run.status)) ?? false;
  useEffect(() => {
    if (!open) return;
    const timer = setInterval(runs.reload, 3000);
    return () => clearInterval(timer);
  }, [open, runs.reload]);

  return (
    <Page title="Runs">
      <FilterForm key={key} filters={filters} onApply={(next) => route(search(next))} />
      {Object.keys(filters).length > 0 ? (
        <p>
          <a href={path}>All runs</a>
        </p>
      ) : null}
      <Loading loaded={runs}>
        {({ runs: list, nextCursor }) => (
          <>
            {list.length === 0 ? (
              <p class="notice">
                No run{Object.keys(filters).length > 0 ? ' matches these filters' : ' yet'}.
              </p>
            ) : (
              <Table
                head={['Run', 'Status', 'What', 'Items', 'Created', 'Ended']}
                caption={`Runs of ${org}, newest first`}
                captionClass="sr-only"
              >
                {list.map((run) => (
                  <tr key={run.id}>
                    <td>
                      <a href={href(`/orgs/${org}/runs/${run.id}`)}>#{run.id}</a>{' '}
                      <span class="badge">{run.runType}</span>
                    </td>
                    <td>
                      <Status value={run.status} />
                      {run.approvalStatus === 'pending' ? <span class="badge">awaiting approval</span> : null}
                      {run.errorMessage ? <p class="hint run-error">{run.errorMessage}</p> : null}
                    </td>
                    <td>
                      <RunSubject org={org} run={run} />
                    </td>
                    <td>{run.itemsCollected}</td>
                    <td>
                      <Time at={run.createdAt} />
                    </td>
                    <td>
                      <Time at={run.completedAt} />
                    </td>
                  </tr>
                ))}
              </Table>
            )}
            <nav class="pager" aria-label="Pages of runs">
              {cursor ? <a href={search(filters)}>Newest runs</a> : null}
              {nextCursor ? <a href={search({ ...filters, cursor: nextCursor })}>Older runs</a> : null}
            </nav>
          </>
        )}
      </Loading>
    </Page>
  );
}
