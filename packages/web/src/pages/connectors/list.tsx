import { api, href, must } from '../../api/client';
import { useSession } from '../../session';
import { useLoad } from '../../ui/load';
import { Loading, Page, Status, Time } from '../../ui/page';
import { ConnectForm } from './connect';
import { InstallDefinitionForm } from './install-definition';
import { Packages } from './packages';
import { definitionOf, type Installed, METHOD_NAMES, methodsOf } from './types';
import './connectors.css';
import { Table } from '../../ui/table';

/** Where an installed connector came from. */
function origin(connector: Installed): string {
  if (connector.package) return `bundled: ${connector.package}`;
  if (connector.generated)
    return connector.generated.kind === 'mcp' ? 'no code: MCP server' : 'no code: OpenAPI';
  return 'posted source';
}

/** The org's connections, the connectors it has installed, and the ones this server bundles. */
export default function ConnectorsPage({ org }: { org: string }) {
  const { can } = useSession();
  const connections = useLoad(
    () => must(api.GET('/api/{org}/connections', { params: { path: { org } } })),
    [org],
  );
  const installed = useLoad(
    () => must(api.GET('/api/{org}/connectors', { params: { path: { org } } })),
    [org],
  );
  const packages = useLoad(
    () => must(api.GET('/api/{org}/connector-packages', { params: { path: { org } } })),
    [org],
  );
  const afterInstall = () => {
    installed.reload();
    packages.reload();
  };
  return (
    <Page title="Connectors">
      <h2>Connections</h2>
      <Loading loaded={connections}>
        {({ connections }) =>
          connections.length === 0 ? (
            <p class="notice">No connection yet: connect an installed connector below.</p>
          ) : (
            <Table
              head={['Connection', 'Connector', 'Status', 'Updated']}
              caption={`Connections of ${org}`}
              captionClass="sr-only"
            >
              {connections.map((connection) => (
                <tr key={connection.id}>
                  <td>
                    <a href={href(`/orgs/${org}/connections/${connection.id}`)}>
                      {connection.displayName ?? `${connection.connectorKey} #${connection.id}`}
                    </a>
                  </td>
                  <td class="mono">{connection.connectorKey}</td>
                  <td>
                    <Status value={connection.status} />
                    {connection.errorMessage ? <p class="hint">{connection.errorMessage}</p> : null}
                  </td>
                  <td>
                    <Time at={connection.updatedAt} />
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loading>

      {can('write') ? (
        <>
          <h2>Connect</h2>
          <Loading loaded={installed}>
            {({ connectors }) => <ConnectForm org={org} installed={connectors} />}
          </Loading>
        </>
      ) : null}

      <h2>Installed connectors</h2>
      <Loading loaded={installed}>
        {({ connectors }) =>
          connectors.length === 0 ? (
            <p>None installed in {org}.</p>
          ) : (
            <ul class="installed-list">
              {connectors.map((connector) => (
                <li key={connector.connectorKey}>
                  <a href={href(`/orgs/${org}/connectors/${encodeURIComponent(connector.connectorKey)}`)}>
                    <strong>{connector.name}</strong>
                  </a>{' '}
                  <span class="badge mono">{connector.connectorKey}</span> {connector.version} ·{' '}
                  {origin(connector)} · connects with{' '}
                  {methodsOf(definitionOf(connector))
                    .map((method) => METHOD_NAMES[method.type])
                    .join(', ') || METHOD_NAMES.none}
                </li>
              ))}
            </ul>
          )
        }
      </Loading>

      <h2>Bundled with this server</h2>
      <Loading loaded={packages}>
        {({ packages: list }) => <Packages org={org} packages={list} onInstalled={afterInstall} />}
      </Loading>

      {can('admin') ? (
        <>
          <h2>Without code</h2>
          <InstallDefinitionForm org={org} />
        </>
      ) : null}
    </Page>
  );
}
