import { useEffect, useState } from 'preact/hooks';
import { api, href } from '../../api/client';

// One request per entity for as long as the page lives: lists name the same entities often.
const titles = new Map<string, Promise<string | null>>();

function titleOf(org: string, id: number): Promise<string | null> {
  const key = `${org}/${id}`;
  let title = titles.get(key);
  if (!title) {
    title = api.GET('/api/{org}/entities/{entityId}', { params: { path: { org, entityId: id } } }).then(
      ({ data }) => data?.entity.title ?? null,
      () => null,
    );
    titles.set(key, title);
  }
  return title;
}

/** A link to an entity's page, named by its title once known (its id until then). */
export function EntityLink({ org, id }: { org: string; id: number }) {
  const [title, setTitle] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    titleOf(org, id).then((t) => current && setTitle(t));
    return () => {
      current = false;
    };
  }, [org, id]);
  return (
    <a href={href(`/orgs/${org}/memory/entities/${id}`)}>
      {title ?? `Entity ${id}`}
      {title ? <span class="hint"> (#{id})</span> : null}
    </a>
  );
}
