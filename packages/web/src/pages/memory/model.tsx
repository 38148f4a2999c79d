import { api, must } from '../../api/client';
import { useLoad } from '../../ui/load';
import { loadManifest, ManifestNote, MemoryDeclared } from '../../ui/managed';
import { Loading } from '../../ui/page';
import { Table } from '../../ui/table';

const rule = (side: string | string[]) => (Array.isArray(side) ? side.join(' | ') : side);

/** The org's memory model: the entity and relationship types `svc apply` declared. */
export function MemoryModel({ org }: { org: string }) {
  const manifest = useLoad(() => loadManifest(org), [org]);
  // `list` only reads: the operation takes a read session for it.
  const model = useLoad(
    () =>
      must(
        api.POST('/api/{org}/operations/manage_entity_schema', {
          params: { path: { org } },
          body: { action: 'list' },
        }),
      ),
    [org],
  );
  return (
    <section aria-labelledby="model-title">
      <h2 id="model-title">Memory model</h2>
      <p class="hint">
        Declared in the project's memory bundle and written by <code>svc apply</code>; change them there.
      </p>
      <ManifestNote manifest={manifest.data} />
      <Loading loaded={model}>
        {(data) => {
          const entityTypes = 'entityTypes' in data ? (data.entityTypes ?? []) : [];
          const relationshipTypes = 'relationshipTypes' in data ? (data.relationshipTypes ?? []) : [];
          return (
            <>
              <h3>Entity types</h3>
              {entityTypes.length === 0 ? (
                <p>None declared.</p>
              ) : (
                <Table head={['Type', 'Name', 'Description', 'Declared']}>
                  {entityTypes.map((type) => (
                    <tr key={type.slug}>
                      <td class="mono">{type.slug}</td>
                      <td>{type.name}</td>
                      <td>{type.description ?? '—'}</td>
                      <td>
                        <MemoryDeclared
                          org={org}
                          kind="entity_type"
                          slug={type.slug}
                          manifest={manifest.data}
                          onDeleted={model.reload}
                        />
                      </td>
                    </tr>
                  ))}
                </Table>
              )}
              <h3>Relationship types</h3>
              {relationshipTypes.length === 0 ? (
                <p>None declared.</p>
              ) : (
                <Table head={['Type', 'Name', 'Joins', 'Declared']}>
                  {relationshipTypes.map((type) => (
                    <tr key={type.slug}>
                      <td class="mono">{type.slug}</td>
                      <td>{type.name}</td>
                      <td>
                        {(type.rules ?? []).length === 0
                          ? 'any two entities'
                          : (type.rules ?? []).map((r) => `${rule(r.source)} → ${rule(r.target)}`).join(', ')}
                      </td>
                      <td>
                        <MemoryDeclared
                          org={org}
                          kind="relationship_type"
                          slug={type.slug}
                          manifest={manifest.data}
                          onDeleted={model.reload}
                        />
                      </td>
                    </tr>
                  ))}
                </Table>
              )}
            </>
          );
        }}
      </Loading>
    </section>
  );
}
