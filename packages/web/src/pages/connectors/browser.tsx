import { useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { useSession } from '../../session';
import { useLoad } from '../../ui/load';
import { Loading, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import type { AuthMethod, Connection } from './types';

/** The spec's default DevTools address when the method names none. */
const DEFAULT_CDP_URL = 'http://127.0.0.1:9222';

/**
 * A browser session: captured on the person's own computer by the CLI, or read by the server from
 * a Chromium it can reach. Only when it was captured and how many cookies of each domain are
 * shown; the cookies themselves stay sealed on the server.
 */
export function BrowserAuth(props: {
  org: string;
  connection: Connection;
  method: Extract<AuthMethod, { type: 'browser' }>;
  onConnected: () => void;
}) {
  const { org, connection, method } = props;
  const { can } = useSession();
  const connectionId = connection.id;
  const session = useLoad(
    () =>
      must(
        api.GET('/api/{org}/connections/{connectionId}/browser-session', {
          params: { path: { org, connectionId } },
        }),
      ),
    [org, connectionId],
  );
  const [cdpUrl, setCdpUrl] = useState(method.defaultCdpUrl ?? DEFAULT_CDP_URL);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const capture = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await must(
        api.POST('/api/{org}/connections/{connectionId}/browser-session', {
          params: { path: { org, connectionId } },
          body: { cdpUrl },
        }),
      );
      session.reload();
      props.onConnected();
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  const domains = method.requiredDomains ?? [];
  return (
    <>
      {method.description ? <p>{method.description}</p> : null}
      <Loading loaded={session}>
        {({ session: facts }) =>
          facts ? (
            <p>
              Session captured <Time at={facts.capturedAt} />: {facts.cookies} cookies (
              {facts.domains.map((d) => `${d.domain}: ${d.cookies}`).join(', ')}).
            </p>
          ) : (
            <p>No session captured yet.</p>
          )
        }
      </Loading>
      <p>
        Sign in to {domains.length > 0 ? domains.map((d) => <code key={d}>{d} </code>) : 'the service'} in a
        browser whose cookies the server then keeps. On your own computer, run:
      </p>
      <pre>svc memory browser-auth --connection {connection.id}</pre>
      <p class="hint">
        It opens Chromium with a fresh profile; sign in there, and it uploads the cookies of those domains.
      </p>
      {can('write') ? (
        <>
          <p class="hint">
            Or start Chromium with <code>--remote-debugging-port=9222</code> where the server can reach it
            (its address must be allowed by <code>SVC_EGRESS_ALLOW</code>), sign in, and let the server read
            the cookies:
          </p>
          <form class="inline" onSubmit={capture}>
            <div>
              <label for={`cdp-${connectionId}`}>DevTools address</label>
              <input
                id={`cdp-${connectionId}`}
                type="url"
                value={cdpUrl}
                onInput={(e) => setCdpUrl((e.target as HTMLInputElement).value)}
              />
            </div>
            <button type="submit" disabled={busy}>
              {busy ? 'Capturing…' : 'Capture from this browser'}
            </button>
          </form>
        </>
      ) : null}
      <ProblemNote error={error} />
    </>
  );
}
