import { href } from '../../api/client';
import type { Run } from './types';

/** What a run is of: its connection, its feed or its action. */
export function RunSubject({
  org,
  run,
}: {
  org: string;
  run: Pick<Run, 'connectionId' | 'feedId' | 'actionKey' | 'connectorKey'>;
}) {
  return (
    <>
      {run.connectionId !== null ? (
        <a href={href(`/orgs/${org}/connections/${run.connectionId}`)}>
          {run.connectorKey ?? 'connection'} #{run.connectionId}
        </a>
      ) : (
        (run.connectorKey ?? '—')
      )}
      {run.feedId !== null ? (
        <>
          {' · '}
          <a href={href(`/orgs/${org}/runs?feedId=${run.feedId}`)}>feed #{run.feedId}</a>
        </>
      ) : null}
      {run.actionKey ? (
        <>
          {' · action '}
          <code>{run.actionKey}</code>
        </>
      ) : null}
    </>
  );
}
