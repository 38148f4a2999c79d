import { useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { useSession } from '../../session';
import { useLoad } from '../../ui/load';
import { Loading, Status, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import { Table } from '../../ui/table';
import { NewTokenSecret } from './new-token';

const SCOPES = ['read', 'write', 'messages', 'admin'] as const;
type Scope = (typeof SCOPES)[number];

/** The org's API tokens: made here (the secret shown once), revoked here; never their secrets. */
export function Tokens({ org }: { org: string }) {
  const { session } = useSession();
  const tokens = useLoad(() => must(api.GET('/api/{org}/tokens', { params: { path: { org } } })), [org]);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [days, setDays] = useState('');
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const answer = await must(
        api.POST('/api/{org}/tokens', {
          params: { path: { org } },
          body: { name: name.trim(), scopes, ...(days ? { expiresInDays: Number(days) } : {}) },
        }),
      );
      setCreated({ name: answer.token.name, secret: answer.secret });
      setName('');
      setDays('');
      tokens.reload();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  const revoke = async (id: string, tokenName: string) => {
    const self =
      session.token?.id === id ? ' This is the token this session signed in with: it ends too.' : '';
    if (!confirm(`Revoke token ${tokenName}? Whatever uses it stops working at once.${self}`)) return;
    setError(null);
    try {
      await must(api.DELETE('/api/{org}/tokens/{tokenId}', { params: { path: { org, tokenId: id } } }));
      tokens.reload();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  const toggle = (scope: Scope, on: boolean) =>
    setScopes((previous) => (on ? [...previous, scope] : previous.filter((s) => s !== scope)));
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      {created ? <NewTokenSecret {...created} onDone={() => setCreated(null)} /> : null}
      <Loading loaded={tokens}>
        {({ tokens }) =>
          tokens.length === 0 ? (
            <p>No token in {org}.</p>
          ) : (
            <Table head={['Name', 'Scopes', 'Last used', <span class="sr-only">Revoke</span>]}>
              {tokens.map((token) => (
                <tr key={token.id}>
                  <td>
                    {token.name}
                    <div class="hint">
                      created <Time at={token.createdAt} />,{' '}
                      {token.expiresAt ? (
                        <>
                          expires <Time at={token.expiresAt} />
                        </>
                      ) : (
                        'never expires'
                      )}
                    </div>
                  </td>
                  <td>{token.scopes.join(', ')}</td>
                  <td>
                    <Time at={token.lastUsedAt} />
                  </td>
                  <td>
                    {token.revokedAt ? (
                      <Status value="revoked" />
                    ) : (
                      <button type="button" class="danger" onClick={() => revoke(token.id, token.name)}>
                        Revoke<span class="sr-only"> token {token.name}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loading>
      <form class="settings-form" onSubmit={create}>
        <h3>New token</h3>
        <label for="token-name">Name</label>
        <input
          id="token-name"
          required
          maxLength={100}
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label class="check" key={scope}>
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(e) => toggle(scope, (e.target as HTMLInputElement).checked)}
              />{' '}
              {scope}
            </label>
          ))}
        </fieldset>
        <label for="token-days">Expires in days (empty: never)</label>
        <input
          id="token-days"
          type="number"
          min={1}
          inputMode="numeric"
          value={days}
          onInput={(e) => setDays((e.target as HTMLInputElement).value)}
        />
        <div>
          <button type="submit" disabled={scopes.length === 0}>
            Create token
          </button>
        </div>
      </form>
      <ProblemNote error={error} />
    </section>
  );
}
