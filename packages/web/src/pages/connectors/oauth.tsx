import { useEffect, useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { useSession } from '../../session';
import { Status } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import type { AuthMethod, Connection } from './types';

interface Started {
  authorizationUrl: string;
  attemptId: number;
  redirectUri: string;
  expiresAt: string;
}

interface Attempt {
  status: 'pending' | 'connected' | 'denied' | 'failed' | 'expired';
  message: string | null;
}

const SAYS: Record<Attempt['status'], string> = {
  pending: 'Waiting for the provider to send you back: consent in the tab that opened.',
  connected: 'Connected.',
  denied: 'The provider says consent was declined.',
  failed: 'Connecting failed.',
  expired: 'Nobody came back from the provider in time.',
};

/**
 * OAuth consent: the provider's page opens in a new tab, the provider sends the person back to the
 * server's callback (a page of its own), and this follows the attempt until it has an outcome.
 */
export function OAuthConnect(props: {
  org: string;
  connection: Connection;
  method: Extract<AuthMethod, { type: 'oauth' }>;
  onConnected: () => void;
}) {
  const { org, connection, method } = props;
  const { can } = useSession();
  const connectionId = connection.id;
  const [scopes, setScopes] = useState<string[]>([]);
  const [started, setStarted] = useState<Started | null>(null);
  const [attempt, setAttempt] = useState<Attempt | null>(null);
  const [error, setError] = useState<Error | null>(null);

  useEffect(() => {
    if (!started) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const look = async () => {
      try {
        const answer = await must(
          api.GET('/api/{org}/connections/{connectionId}/oauth/attempts/{attemptId}', {
            params: { path: { org, connectionId, attemptId: started.attemptId } },
          }),
        );
        if (stopped) return;
        setAttempt(answer.attempt);
        if (answer.attempt.status === 'pending') timer = setTimeout(look, 1000);
        else props.onConnected();
      } catch (failure) {
        if (!stopped) setError(failure as Error);
      }
    };
    void look();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [started]);

  const start = async () => {
    setError(null);
    setAttempt(null);
    // Opened while the click still counts as the person's: a window opened once the answer has
    // arrived is a popup that browsers may block. It is cut from this page before it goes anywhere.
    const tab = window.open('', '_blank');
    if (tab) tab.opener = null;
    try {
      const answer = await must(
        api.POST('/api/{org}/connections/{connectionId}/oauth/start', {
          params: { path: { org, connectionId } },
          body: scopes.length > 0 ? { scopes } : {},
        }),
      );
      if (tab) tab.location.href = answer.authorizationUrl;
      setStarted(answer);
    } catch (failure) {
      tab?.close();
      setError(failure as Error);
    }
  };

  const optional = method.optionalScopes ?? [];
  return (
    <>
      {method.description ? <p>{method.description}</p> : null}
      <p class="hint">
        Provider <code>{method.provider}</code>; scopes asked:{' '}
        <code>{method.requiredScopes.join(' ') || 'none'}</code>.
      </p>
      {method.setupInstructions ? <p class="hint">{method.setupInstructions}</p> : null}
      {can('write') ? (
        <>
          {optional.length > 0 ? (
            <fieldset>
              <legend>Also ask for</legend>
              {optional.map((scope) => (
                <div class="field-check" key={scope}>
                  <input
                    type="checkbox"
                    id={`scope-${connectionId}-${scope}`}
                    checked={scopes.includes(scope)}
                    onChange={(event) =>
                      setScopes((before) =>
                        (event.target as HTMLInputElement).checked
                          ? [...before, scope]
                          : before.filter((s) => s !== scope),
                      )
                    }
                  />
                  <label for={`scope-${connectionId}-${scope}`} class="mono">
                    {scope}
                  </label>
                </div>
              ))}
            </fieldset>
          ) : null}
          <button type="button" onClick={start} disabled={attempt?.status === 'pending'}>
            Connect with {method.provider}
          </button>
        </>
      ) : null}
      <ProblemNote error={error} />
      {started ? (
        <div class="oauth-attempt">
          <p role="status">
            <Status value={attempt?.status ?? 'pending'} /> {SAYS[attempt?.status ?? 'pending']}
            {attempt?.message && attempt.status !== 'pending' ? ` ${attempt.message}` : ''}
          </p>
          {attempt?.status !== 'connected' ? (
            <p class="hint">
              No tab opened?{' '}
              <a href={started.authorizationUrl} target="_blank" rel="noopener noreferrer">
                Open the provider's page
              </a>
              . The provider must know the callback <code>{started.redirectUri}</code>.
            </p>
          ) : null}
        </div>
      ) : null}
    </>
  );
}
