import { api, href, must } from '../../api/client';
import { useSession } from '../../session';
import { useLoad } from '../../ui/load';
import { Loading, Page, Time } from '../../ui/page';
import { ActionsTable, RefreshControl, Skipped } from './generated';
import { type Definition, definitionOf, type Installed, METHOD_NAMES, methodsOf } from './types';
import './connectors.css';

const GENERATED_FROM = { openapi: 'an OpenAPI description', mcp: "an MCP server's tools" } as const;

/** Where the connector came from, as a person tells connectors apart. */
function origin(connector: Installed): string {
  if (connector.package) return `bundled: ${connector.package}`;
  if (connector.generated) return `no code: generated from ${GENERATED_FROM[connector.generated.kind]}`;
  return 'posted source';
}

/** The URL a code-less connector reads, or that its description is inline. */
function upstream(definition: Definition): string | null {
  if (definition.mcpConfig) return definition.mcpConfig.upstreamUrl;
  if (definition.openapiConfig?.specUrl) return definition.openapiConfig.specUrl;
  return definition.openapiConfig ? 'given inline (openapiConfig.spec)' : null;
}

/**
 * One installed connector: what it is, its actions (for one without code, generated from its
 * upstream, with what was left out and why) and, for an admin, reading the upstream again.
 */
export default function ConnectorPage({ org, connectorKey }: { org: string; connectorKey: string }) {
  const { can } = useSession();
  const loaded = useLoad(
    () =>
      must(api.GET('/api/{org}/connectors/{key}', { params: { path: { org, key: connectorKey } } })).then(
        (answer) => answer.connector,
      ),
    [org, connectorKey],
  );
  const connections = useLoad(
    () => must(api.GET('/api/{org}/connections', { params: { path: { org } } })),
    [org],
  );
  return (
    <Page title={loaded.data?.name ?? `Connector ${connectorKey}`}>
      <Loading loaded={loaded}>
        {(connector) => {
          const definition = definitionOf(connector);
          const source = upstream(definition);
          const generated = connector.generated;
          const own = (connections.data?.connections ?? []).filter((c) => c.connectorKey === connectorKey);
          return (
            <>
              <dl class="facts" aria-label="The connector">
                <dt>Key</dt>
                <dd class="mono">{connector.connectorKey}</dd>
                <dt>Version</dt>
                <dd>{connector.version}</dd>
                <dt>From</dt>
                <dd>{origin(connector)}</dd>
                {source ? (
                  <>
                    <dt>Upstream</dt>
                    <dd class="mono break">{source}</dd>
                  </>
                ) : null}
                {generated ? (
                  <>
                    <dt>Read</dt>
                    <dd>
                      <Time at={generated.refreshedAt} />
                    </dd>
                  </>
                ) : null}
                <dt>Connects with</dt>
                <dd>
                  {methodsOf(definition)
                    .map((method) => METHOD_NAMES[method.type])
                    .join(', ') || METHOD_NAMES.none}
                </dd>
                <dt>Connections</dt>
                <dd>
                  {own.length === 0
                    ? 'none'
                    : own.map((connection, index) => (
                        <span key={connection.id}>
                          {index > 0 ? ', ' : ''}
                          <a href={href(`/orgs/${org}/connections/${connection.id}`)}>
                            {connection.displayName ?? `${connection.connectorKey} #${connection.id}`}
                          </a>
                        </span>
                      ))}
                </dd>
              </dl>
              {connector.description ? <p>{connector.description}</p> : null}
              {generated?.warning ? (
                <p class="notice" role="note">
                  {generated.warning}
                </p>
              ) : null}
              <h2>Actions</h2>
              <ActionsTable
                connectorKey={connector.connectorKey}
                actions={Object.values(definition.actions ?? {})}
              />
              {generated ? <Skipped generated={generated} /> : null}
              {generated && can('admin') ? (
                <>
                  <h2>Read the upstream again</h2>
                  <RefreshControl
                    org={org}
                    connectorKey={connector.connectorKey}
                    connections={own}
                    onRefreshed={loaded.reload}
                  />
                </>
              ) : null}
              {Object.keys(definition.feeds ?? {}).length > 0 ? (
                <>
                  <h2>Feeds</h2>
                  <ul>
                    {Object.values(definition.feeds ?? {}).map((feed) => (
                      <li key={feed.key}>
                        {feed.name} <span class="badge mono">{feed.key}</span>
                        {feed.description ? `: ${feed.description}` : ''}
                      </li>
                    ))}
                  </ul>
                </>
              ) : null}
            </>
          );
        }}
      </Loading>
    </Page>
  );
}
