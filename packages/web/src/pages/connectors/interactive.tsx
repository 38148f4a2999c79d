import { useEffect, useState } from 'preact/hooks';
import { api, BASE, must } from '../../api/client';
import { useSession } from '../../session';
import { Status } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import { ArtifactView } from './artifact';
import { Countdown } from './countdown';
import type { Artifact, AuthMethod, AuthRunView, Connection } from './types';

const FINAL = new Set(['completed', 'failed', 'cancelled', 'timeout']);
/** The spec's default when the method names no timeoutSec. */
const DEFAULT_TIMEOUT_SEC = 300;

type Run = AuthRunView['run'];

/**
 * The connector's own sign-in (`authenticate(ctx)` in an `auth` run): its artifacts arrive over
 * the run's event stream (the session cookie authenticates the EventSource) and each is shown as
 * it comes, until the run ends; then the connection is read again, `active` when it worked.
 */
export function InteractiveAuth(props: {
  org: string;
  connection: Connection;
  method: Extract<AuthMethod, { type: 'interactive' }>;
  onConnected: () => void;
}) {
  const { org, connection, method } = props;
  const { can } = useSession();
  const [run, setRun] = useState<Run | null>(null);
  const [artifact, setArtifact] = useState<{ seq: number; value: Artifact } | null>(null);
  // Where the stream starts: a run joined late resumes at the artifact it shows now.
  const [follow, setFollow] = useState<{ runId: number; after: number } | null>(null);
  const [error, setError] = useState<Error | null>(null);

  const read = async (runId: number) => {
    const view = await must(
      api.GET('/api/{org}/auth-runs/{runId}', { params: { path: { org, runId: runId } } }),
    );
    setRun(view.run);
    return view;
  };

  useEffect(() => {
    if (!follow) return;
    const source = new EventSource(
      `${BASE}/api/${org}/auth-runs/${follow.runId}/events?after=${follow.after}`,
    );
    source.addEventListener('artifact', (event) => {
      const data = JSON.parse((event as MessageEvent).data) as { seq: number; artifact: Artifact };
      setArtifact({ seq: data.seq, value: data.artifact });
    });
    source.addEventListener('status', (event) => {
      const data = JSON.parse((event as MessageEvent).data) as {
        status: Run['status'];
        errorMessage: string | null;
      };
      setRun((before) =>
        before ? { ...before, status: data.status, errorMessage: data.errorMessage } : before,
      );
      // The worker's claim starts the server's clock: the countdown needs when it was.
      if (data.status === 'running') read(follow.runId).catch(setError);
      if (FINAL.has(data.status)) {
        // Ended: the server closes the stream, and EventSource would only open it again.
        source.close();
        props.onConnected();
      }
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED)
        setError(new Error('the event stream of the sign-in closed'));
    };
    return () => source.close();
  }, [follow]);

  /** Follows `joined`; a run already under way resumes at the artifact it shows now. */
  const join = async (joined: Run, fresh: boolean) => {
    setRun(joined);
    let after = 0;
    if (!fresh) {
      const view = await read(joined.id);
      if (view.artifact && view.artifactSeq) {
        setArtifact({ seq: view.artifactSeq, value: view.artifact });
        after = view.artifactSeq - 1;
      }
    }
    setFollow({ runId: joined.id, after });
  };

  // A sign-in under way (this page reloaded, or opened by another person) is shown as it is.
  useEffect(() => {
    api
      .GET('/api/{org}/runs', {
        params: { path: { org }, query: { connectionId: connection.id, runType: 'auth', limit: 1 } },
      })
      .then(({ data }) => {
        const latest = data?.runs[0];
        if (latest && !FINAL.has(latest.status)) return join(latest, false);
      })
      .catch(setError);
  }, [org, connection.id]);

  const start = async () => {
    setError(null);
    setArtifact(null);
    try {
      const answer = await must(
        api.POST('/api/{org}/connections/{connectionId}/auth-runs', {
          params: { path: { org, connectionId: connection.id } },
          body: {},
        }),
      );
      await join(answer.run, answer.created);
    } catch (failure) {
      setError(failure as Error);
    }
  };

  const open = run !== null && !FINAL.has(run.status);
  const timeoutSec = method.timeoutSec ?? DEFAULT_TIMEOUT_SEC;
  const deadline = run?.claimedAt ? Date.parse(run.claimedAt) + timeoutSec * 1000 : null;
  return (
    <>
      {method.description ? <p>{method.description}</p> : null}
      <p class="hint">
        The connector signs in itself and shows here what it needs: a code to scan or type, a page to open, a
        form. You have {timeoutSec} seconds once it starts.
      </p>
      {can('write') && !open ? (
        <button type="button" onClick={start}>
          {run ? 'Start again' : 'Start sign-in'}
        </button>
      ) : null}
      <ProblemNote error={error} />
      {run ? (
        <div class="auth-run">
          <p role="status">
            Sign-in run #{run.id}: <Status value={run.status} />
            {run.status === 'completed' ? ' The connection is signed in.' : ''}
            {run.errorMessage ? ` ${run.errorMessage}` : ''}
          </p>
          {open && deadline !== null ? <Countdown until={deadline} what="to finish signing in" /> : null}
          {open && artifact ? (
            <ArtifactView key={artifact.seq} org={org} runId={run.id} artifact={artifact.value} />
          ) : null}
          {open && !artifact ? <p aria-busy="true">Waiting for the connector…</p> : null}
        </div>
      ) : null}
    </>
  );
}
