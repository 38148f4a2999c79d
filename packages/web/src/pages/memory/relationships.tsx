import { api, must } from '../../api/client';
import { Loading, Time } from '../../ui/page';
import { usePaged } from '../../ui/paged';
import { ProblemNote } from '../../ui/problem';
import { Table } from '../../ui/table';
import { EntityLink } from './entity-link';

/** Every relationship of one entity, whichever end it is, newest first, a page at a time. */
export function Relationships({ org, entityId }: { org: string; entityId: number }) {
  const { first, rows, hasMore, more, moreError } = usePaged(
    (after?: string) =>
      must(
        api.GET('/api/{org}/relationships', {
          params: { path: { org }, query: { entityId, limit: 50, ...(after ? { cursor: after } : {}) } },
        }),
      ),
    (data) => ({ rows: data.relationships, nextCursor: data.nextCursor }),
    [org, entityId],
  );
  return (
    <Loading loaded={first}>
      {() =>
        rows.length === 0 ? (
          <p>No relationships.</p>
        ) : (
          <>
            <Table head={['Relationship', 'With', 'Metadata', 'Since']}>
              {rows.map((r) => {
                const outgoing = r.sourceEntityId === entityId;
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
            </Table>
            {hasMore ? (
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
