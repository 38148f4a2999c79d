import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, must, orgOfPath } from '../api/client';
import type { Session } from '../session';
import { ProblemNote } from '../ui/problem';

/**
 * The admin password or an API token, exchanged for a session cookie (HttpOnly: this script never
 * sees it). The page asked for stays in the address bar and opens once signed in.
 */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [credential, setCredential] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · svc';
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const org = orgOfPath(location.pathname) ?? undefined;
      const answer = await must(api.POST('/api/session', { body: { credential, ...(org ? { org } : {}) } }));
      setCredential('');
      onSignedIn(answer.session);
    } catch (failure) {
      // A token of another org asked for this page's org: sign in to its own.
      if (failure instanceof ApiError && failure.problem.status === 404) {
        const answer = await must(api.POST('/api/session', { body: { credential } })).catch((e: Error) => {
          setError(e);
          return null;
        });
        if (answer) {
          setCredential('');
          onSignedIn(answer.session);
        }
      } else {
        setError(failure as Error);
      }
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to svc</h1>
      <form onSubmit={submit}>
        <label for="credential">Admin password or API token</label>
        <input
          id="credential"
          name="credential"
          type="password"
          autocomplete="current-password"
          required
          value={credential}
          onInput={(event) => setCredential((event.target as HTMLInputElement).value)}
        />
        <p class="hint">
          The admin password is in <code>.svc/admin-password</code> on the server (or{' '}
          <code>SVC_ADMIN_PASSWORD</code>). A token can do here exactly what its scopes allow.
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ProblemNote error={error} />
    </main>
  );
}
