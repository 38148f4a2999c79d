import { useEffect, useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import type { paths } from '../../api/schema';
import { useLoad } from '../../ui/load';
import { Loading, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import { EntityLink } from './entity-link';

type Relationship =
  paths['/api/{org}/relationships']['get']['responses'][200]['content']['application/json']['relationships'][number];

/** Every relationship of one entity, whichever end it is, newest first, a page at a time. */
export function Relationships({ org, entityId }: { org: string; entityId: string }) {
  const [rows, setRows] = useState<Relationship[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [moreError, setMoreError] = useState<Error | null>(null);
  const page = (after?: string) =>
    must(
      api.GET('/api/{org}/relationships', {
        params: { path: { org }, query: { entityId, limit: 50, ...(after ? { cursor: after } : {}) } },
      }),
    );
  const first = useLoad(() => page(), [org, entityId]);
  useEffect(() => {
    setRows(first.data?.relationships ?? []);
    setCursor(first.data?.nextCursor ?? null);
  }, [first.data]);
  const more = async () => {
    try {
      const next = await page(cursor ?? undefined);
      setRows((previous) => [...previous, ...next.relationships]);
      setCursor(next.nextCursor);
    } catch (error) {
      setMoreError(error as Error);
    }
  };
  const self = Number(entityId);
  return (
    <Loading loaded={first}>
      {() =>
        rows.length === 0 ? (
          <p>No relationships.</p>
        ) : (
          <>
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Relationship</th>
                    <th scope="col">With</th>
                    <th scope="col">Metadata</th>
                    <th scope="col">Since</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => {
                    const outgoing = r.sourceEntityId === self;
                    const other = outgoing ? r.targetEntityId : r.sourceEntityId;
                    return (
                      <tr key={r.id}>
                        <td>
                          <span class="mono">{r.type}</span> {outgoing ? '(to)' : '(from)'}
                        </td>
                        <td>
                          <EntityLink org={org} id={other} />
                        </td>
                        <td class="mono">
                          {Object.keys(r.metadata).length === 0 ? '—' : JSON.stringify(r.metadata)}
                        </td>
                        <td>
                          <Time at={r.createdAt} />
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            {cursor ? (
              <button type="button" class="secondary" onClick={more}>
                Load more relationships
              </button>
            ) : null}
            <ProblemNote error={moreError} />
          </>
        )
      }
    </Loading>
  );
}
