import { useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { useSession } from '../../session';
import { useLoad } from '../../ui/load';
import { Loading, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import { Table } from '../../ui/table';

/**
 * The org's secrets by name: references (`$NAME`) resolve to them. A value goes in and never comes
 * back: the API answers names and times only, and the field is emptied once it is saved.
 */
export function Secrets({ org }: { org: string }) {
  const { can } = useSession();
  const secrets = useLoad(() => must(api.GET('/api/{org}/secrets', { params: { path: { org } } })), [org]);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [note, setNote] = useState('');
  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setNote('');
    try {
      const answer = await must(
        api.PUT('/api/{org}/secrets/{name}', {
          params: { path: { org, name: name.trim() } },
          body: { value },
        }),
      );
      setValue('');
      setName('');
      setNote(`${answer.secret.name}: ${answer.result}.`);
      secrets.reload();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <section aria-labelledby="secrets-title">
      <h2 id="secrets-title">Secrets</h2>
      <p class="hint">
        What <code>$NAME</code> references of this org resolve to, before the server's environment. Values are
        encrypted and never shown.
      </p>
      <Loading loaded={secrets}>
        {({ secrets }) =>
          secrets.length === 0 ? (
            <p>No secret in {org}.</p>
          ) : (
            <Table head={['Name', 'Updated']}>
              {secrets.map((secret) => (
                <tr key={secret.name}>
                  <td class="mono">{secret.name}</td>
                  <td>
                    <Time at={secret.updatedAt} />
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loading>
      {can('admin') ? (
        <form class="inline settings-form" onSubmit={save} autoComplete="off">
          <div>
            <label for="secret-name">Name</label>
            <input
              id="secret-name"
              required
              pattern="[A-Z_][A-Z0-9_]*"
              title="Capital letters, digits and _, not starting with a digit"
              placeholder="OPENAI_API_KEY"
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </div>
          <div>
            <label for="secret-value">Value</label>
            <input
              id="secret-value"
              type="password"
              required
              autoComplete="new-password"
              value={value}
              onInput={(e) => setValue((e.target as HTMLInputElement).value)}
            />
          </div>
          <button type="submit">Set value</button>
        </form>
      ) : (
        <p class="hint">Setting a value needs a session with the admin scope.</p>
      )}
      <p class="hint" role="status">
        {note}
      </p>
      <ProblemNote error={error} />
    </section>
  );
}
