import { useState } from 'preact/hooks';
import { api, href, must } from '../../api/client';
import { useLoad } from '../../ui/load';
import { Loading, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import { Table } from '../../ui/table';

/** Every org of the deployment: for the deployment admin (the admin password) only. */
export function Orgs() {
  const orgs = useLoad(() => must(api.GET('/api/orgs', {})), []);
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [note, setNote] = useState('');
  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const answer = await must(
        api.POST('/api/orgs', { body: { slug: slug.trim(), ...(name.trim() ? { name: name.trim() } : {}) } }),
      );
      setNote(`Org ${answer.org.slug}: ${answer.result}.`);
      setSlug('');
      setName('');
      orgs.reload();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <section aria-labelledby="orgs-title">
      <h2 id="orgs-title">Orgs</h2>
      <Loading loaded={orgs}>
        {({ orgs }) => (
          <Table head={['Slug', 'Name', 'Created']}>
            {orgs.map((org) => (
              <tr key={org.slug}>
                <td>
                  <a href={href(`/orgs/${org.slug}/settings`)} class="mono">
                    {org.slug}
                  </a>
                </td>
                <td>{org.name}</td>
                <td>
                  <Time at={org.createdAt} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Loading>
      <form class="inline settings-form" onSubmit={save}>
        <div>
          <label for="org-slug">Slug</label>
          <input
            id="org-slug"
            required
            pattern="[a-z0-9][a-z0-9\-]*"
            title="Lower-case letters, digits and -"
            value={slug}
            onInput={(e) => setSlug((e.target as HTMLInputElement).value)}
          />
        </div>
        <div>
          <label for="org-name">Name (optional)</label>
          <input id="org-name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </div>
        <button type="submit">Create or rename org</button>
      </form>
      <p class="hint" role="status">
        {note}
      </p>
      <ProblemNote error={error} />
    </section>
  );
}
