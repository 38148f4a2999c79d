import { api, href, must } from '../../api/client';
import { useLoad } from '../../ui/load';
import { loadManifest, Managed, ManifestNote } from '../../ui/managed';
import { Loading, Page, Status } from '../../ui/page';
import { Table } from '../../ui/table';

/** The org's agents: what each is, where it listens, whether its providers and platforms work. */
export default function AgentsPage({ org }: { org: string }) {
  const agents = useLoad(
    () =>
      must(api.GET('/api/{org}/agents', { params: { path: { org }, query: { include: ['platforms'] } } })),
    [org],
  );
  const manifest = useLoad(() => loadManifest(org), [org]);
  return (
    <Page title="Agents">
      <ManifestNote manifest={manifest.data} />
      <Loading loaded={agents}>
        {({ agents }) =>
          agents.length === 0 ? (
            <p class="notice">
              No agents in {org} yet. Agents are files in a project: write one and run <code>svc apply</code>.
            </p>
          ) : (
            <Table
              head={['Agent', 'Description', 'Platforms', 'Providers', <span class="sr-only">Chat</span>]}
              caption={`Agents of ${org}`}
              captionClass="hint"
            >
              {agents.map((agent) => {
                const broken = [...agent.providers, ...(agent.platforms ?? [])].filter(
                  (p) => p.status === 'error',
                );
                return (
                  <tr key={agent.agentId}>
                    <td>
                      <a href={href(`/orgs/${org}/agents/${agent.agentId}`)}>{agent.name}</a>{' '}
                      <span class="badge mono">{agent.agentId}</span>{' '}
                      <Managed
                        manifest={manifest.data}
                        declared={manifest.data?.agents.includes(agent.agentId) ?? false}
                      />
                    </td>
                    <td>{agent.description}</td>
                    <td>{(agent.platforms ?? []).map((p) => p.type).join(', ') || '—'}</td>
                    <td>
                      {agent.providers.map((p) => p.key).join(', ') || '—'}
                      {broken.length > 0 ? (
                        <>
                          {' '}
                          <Status value="error" />
                        </>
                      ) : null}
                    </td>
                    <td>
                      <a href={href(`/orgs/${org}/agents/${agent.agentId}/chat`)}>Chat</a>
                    </td>
                  </tr>
                );
              })}
            </Table>
          )
        }
      </Loading>
    </Page>
  );
}
