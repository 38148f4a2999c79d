import { useEffect } from 'preact/hooks';
import { api, href, must, rowIdOf } from '../../api/client';
import { useSession } from '../../session';
import { useAction } from '../../ui/action';
import { ApproveReject } from '../../ui/decide';
import { useLoad } from '../../ui/load';
import { Loading, Page, Status, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import { RunLogs } from './logs';
import { RunSubject } from './subject';
import { ENDED, type Run } from './types';
import './runs.css';

/** Cancel an open run; approve or reject one that waits for approval. */
function Controls(props: { org: string; run: Run; onChanged: () => void }) {
  const { org, run } = props;
  const { busy, error, act: change } = useAction(() => props.onChanged());
  const path = { org, runId: run.id };
  const act = (verb: 'cancel' | 'approve' | 'reject') =>
    change(async () => {
      if (verb === 'cancel')
        await must(api.POST('/api/{org}/runs/{runId}/cancel', { params: { path }, body: {} }));
      if (verb === 'approve')
        await must(api.POST('/api/{org}/runs/{runId}/approve', { params: { path }, body: {} }));
      if (verb === 'reject')
        await must(api.POST('/api/{org}/runs/{runId}/reject', { params: { path }, body: {} }));
    });
  const awaiting = run.approvalStatus === 'pending' && run.status === 'pending';
  return (
    <>
      <div class="actions">
        {awaiting ? <ApproveReject busy={busy} onDecide={act} /> : null}
        {!ENDED.has(run.status) && !awaiting ? (
          <button type="button" class="danger" disabled={busy} onClick={() => act('cancel')}>
            Cancel run
          </button>
        ) : null}
      </div>
      <ProblemNote error={error} />
    </>
  );
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** One run: what it is of, how it went, and its log, followed live while it runs. */
export default function RunPage({ org, ...props }: { org: string; runId: string }) {
  const runId = rowIdOf(props.runId);
  const { can } = useSession();
  const loaded = useLoad(
    () => must(api.GET('/api/{org}/runs/{runId}', { params: { path: { org, runId } } })),
    [org, runId],
  );
  const run = loaded.data?.run;
  const open = run ? !ENDED.has(run.status) : false;
  // The record (status, items, heartbeat) changes while the run is open: read again every second.
  useEffect(() => {
    if (!open) return;
    const timer = setInterval(loaded.reload, 1000);
    return () => clearInterval(timer);
  }, [open, loaded.reload]);
  return (
    <Page
      title={`Run #${props.runId}`}
      actions={can('write') && run ? <Controls org={org} run={run} onChanged={loaded.reload} /> : null}
    >
      <Loading loaded={loaded}>
        {({ run }) => (
          <dl class="facts" aria-label="The run">
            <dt>Status</dt>
            <dd data-testid="run-status">
              <Status value={run.status} />
            </dd>
            <dt>Type</dt>
            <dd>{run.runType}</dd>
            <dt>Approval</dt>
            <dd>{run.approvalStatus === 'auto' ? 'not needed' : <Status value={run.approvalStatus} />}</dd>
            <dt>Of</dt>
            <dd>
              <RunSubject org={org} run={run} />
              {run.connectorVersion ? ` (version ${run.connectorVersion})` : ''}
            </dd>
            <dt>Created</dt>
            <dd>
              <Time at={run.createdAt} />
            </dd>
            <dt>Started</dt>
            <dd>
              <Time at={run.claimedAt} />
              {run.claimedBy ? ` by ${run.claimedBy}` : ''}
            </dd>
            <dt>Ended</dt>
            <dd>
              <Time at={run.completedAt} />
            </dd>
            <dt>Items</dt>
            <dd>
              {run.itemsCollected} collected, {run.itemsRejected} rejected
            </dd>
            {run.errorMessage ? (
              <>
                <dt>Error</dt>
                <dd class="run-error">{run.errorMessage}</dd>
              </>
            ) : null}
            {run.actionInput ? (
              <>
                <dt>Input</dt>
                <dd>
                  <pre>{json(run.actionInput)}</pre>
                </dd>
              </>
            ) : null}
            {run.actionOutput ? (
              <>
                <dt>Output</dt>
                <dd>
                  <pre>{json(run.actionOutput)}</pre>
                </dd>
              </>
            ) : null}
            {run.feedId !== null ? (
              <>
                <dt>Feed runs</dt>
                <dd>
                  <a href={href(`/orgs/${org}/runs?feedId=${run.feedId}`)}>Every run of feed #{run.feedId}</a>
                </dd>
              </>
            ) : null}
          </dl>
        )}
      </Loading>
      <RunLogs org={org} runId={runId} onEnded={loaded.reload} />
    </Page>
  );
}
