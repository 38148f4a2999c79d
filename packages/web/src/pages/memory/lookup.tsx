import { useState } from 'preact/hooks';
import { api, href, must } from '../../api/client';
import { useLoad } from '../../ui/load';
import { Loading } from '../../ui/page';

/** The org's entities, or the ones a type or an identity (`email:jane@example.com`) finds. */
export function EntityLookup({ org }: { org: string }) {
  const [draft, setDraft] = useState({ type: '', identity: '' });
  const [asked, setAsked] = useState({ type: '', identity: '' });
  const found = useLoad(
    () =>
      must(
        api.GET('/api/{org}/entities', {
          params: {
            path: { org },
            query: {
              limit: 25,
              ...(asked.type ? { type: asked.type } : {}),
              ...(asked.identity ? { identity: asked.identity } : {}),
            },
          },
        }),
      ),
    [org, asked.type, asked.identity],
  );
  return (
    <section aria-labelledby="entities-title">
      <h2 id="entities-title">Entities</h2>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          setAsked({ type: draft.type.trim(), identity: draft.identity.trim() });
        }}
      >
        <div>
          <label for="entity-type">Type</label>
          <input
            id="entity-type"
            value={draft.type}
            onInput={(e) => setDraft({ ...draft, type: (e.target as HTMLInputElement).value })}
          />
        </div>
        <div>
          <label for="entity-identity">Identity</label>
          <input
            id="entity-identity"
            placeholder="email:jane@example.com"
            value={draft.identity}
            onInput={(e) => setDraft({ ...draft, identity: (e.target as HTMLInputElement).value })}
          />
        </div>
        <button type="submit">Find entities</button>
      </form>
      <Loading loaded={found}>
        {({ entities }) =>
          entities.length === 0 ? (
            <p class="notice">No entity{asked.type || asked.identity ? ' matches' : ' yet'}.</p>
          ) : (
            <ul class="entity-list">
              {entities.map((entity) => (
                <li key={entity.id}>
                  <a href={href(`/orgs/${org}/memory/entities/${entity.id}`)}>
                    {entity.title ?? `Entity ${entity.id}`}
                  </a>{' '}
                  <span class="badge">{entity.entityType}</span>{' '}
                  <span class="hint">
                    {entity.identities.map((i) => `${i.namespace}:${i.value}`).join(', ')}
                  </span>
                </li>
              ))}
            </ul>
          )
        }
      </Loading>
    </section>
  );
}
