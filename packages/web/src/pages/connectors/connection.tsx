import { ApiError, api, href, must, rowIdOf } from '../../api/client';
import { useSession } from '../../session';
import { useAction } from '../../ui/action';
import { useLoad } from '../../ui/load';
import { Loading, Page, Status, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import { Actions } from './actions';
import { AuthSection } from './auth';
import { Feeds } from './feeds';
import { type Connection, type Definition, definitionOf, METHOD_NAMES, methodsOf } from './types';
import './connectors.css';

/** Which of its credentials a connection holds: the field names, never a value. */
function Credentials({ connection, definition }: { connection: Connection; definition: Definition }) {
  const envKeys = methodsOf(definition).find((method) => method.type === 'env_keys');
  const fields = envKeys?.type === 'env_keys' ? envKeys.fields : [];
  const set = new Set(connection.credentialKeys);
  const others = connection.credentialKeys.filter((key) => !fields.some((field) => field.key === key));
  if (fields.length === 0 && others.length === 0) return <>none</>;
  return (
    <ul class="credential-list">
      {fields.map((field) => (
        <li key={field.key}>
          {field.label ?? field.key}: {set.has(field.key) ? 'set' : 'not set'}
        </li>
      ))}
      {others.map((key) => (
        <li key={key}>{key}: set</li>
      ))}
    </ul>
  );
}

/** Pause, resume, revoke: what changes the connection as a whole. */
function Controls(props: { org: string; connection: Connection; onChanged: () => void }) {
  const { org, connection } = props;
  const { busy, error, act } = useAction(() => props.onChanged());
  const path = { org, connectionId: connection.id };
  const setStatus = (status: 'active' | 'paused') =>
    act(() =>
      must(api.PATCH('/api/{org}/connections/{connectionId}', { params: { path }, body: { status } })),
    );
  const revoke = () => {
    if (!confirm('Forget the credentials of this connection? It stops syncing until it is connected again.'))
      return;
    return act(() =>
      must(api.POST('/api/{org}/connections/{connectionId}/revoke', { params: { path }, body: {} })),
    );
  };
  return (
    <>
      <div class="actions">
        {connection.status === 'active' ? (
          <button type="button" class="secondary" disabled={busy} onClick={() => setStatus('paused')}>
            Pause connection
          </button>
        ) : null}
        {connection.status === 'paused' ? (
          <button type="button" disabled={busy} onClick={() => setStatus('active')}>
            Resume connection
          </button>
        ) : null}
        {connection.status !== 'revoked' ? (
          <button type="button" class="danger" disabled={busy} onClick={revoke}>
            Revoke
          </button>
        ) : null}
      </div>
      <ProblemNote error={error} />
    </>
  );
}

/** One connection: its status and credentials, connecting it, its feeds and its actions. */
export default function ConnectionPage({ org, ...props }: { org: string; connectionId: string }) {
  const connectionId = rowIdOf(props.connectionId);
  const { can } = useSession();
  const loaded = useLoad(
    () => must(api.GET('/api/{org}/connections/{connectionId}', { params: { path: { org, connectionId } } })),
    [org, connectionId],
  );
  const key = loaded.data?.connection.connectorKey;
  const connector = useLoad(
    () =>
      key
        ? must(api.GET('/api/{org}/connectors/{key}', { params: { path: { org, key } } })).then(
            (answer) => answer.connector,
            // A connection outlives an uninstalled connector: its page still shows what it can.
            (error: Error) => {
              if (error instanceof ApiError && error.problem.status === 404) return null;
              throw error;
            },
          )
        : new Promise<never>(() => {}),
    [org, key],
  );
  const connection = loaded.data?.connection;
  const title = connection
    ? (connection.displayName ?? `${connection.connectorKey} #${connection.id}`)
    : `Connection ${props.connectionId}`;
  return (
    <Page
      title={title}
      actions={
        can('write') && connection ? (
          <Controls org={org} connection={connection} onChanged={loaded.reload} />
        ) : null
      }
    >
      <Loading loaded={loaded}>
        {({ connection }) => (
          <Loading loaded={connector}>
            {(connector) => {
              const definition: Definition = connector
                ? definitionOf(connector)
                : { key: connection.connectorKey, name: connection.connectorKey, version: '' };
              return (
                <>
                  <dl class="facts" aria-label="The connection">
                    <dt>Status</dt>
                    <dd data-testid="connection-status">
                      <Status value={connection.status} />
                    </dd>
                    {connection.errorMessage ? (
                      <>
                        <dt>Why</dt>
                        <dd>{connection.errorMessage}</dd>
                      </>
                    ) : null}
                    <dt>Connector</dt>
                    <dd>
                      {definition.name} <span class="badge mono">{connection.connectorKey}</span>{' '}
                      {connector ? connector.version : '(not installed in this org any more)'}
                    </dd>
                    <dt>Auth method</dt>
                    <dd>
                      {methodsOf(definition)
                        .map((method) => METHOD_NAMES[method.type])
                        .join(', ') || METHOD_NAMES.none}
                    </dd>
                    <dt>Account</dt>
                    <dd>{connection.accountId ?? '—'}</dd>
                    <dt>Credentials</dt>
                    <dd>
                      <Credentials connection={connection} definition={definition} />
                    </dd>
                    {connection.grantedScopes ? (
                      <>
                        <dt>Granted scopes</dt>
                        <dd class="mono">{connection.grantedScopes.join(' ') || '—'}</dd>
                      </>
                    ) : null}
                    <dt>Created</dt>
                    <dd>
                      <Time at={connection.createdAt} /> by {connection.createdBy ?? '—'}
                    </dd>
                    <dt>Runs</dt>
                    <dd>
                      <a href={href(`/orgs/${org}/runs?connectionId=${connection.id}`)}>
                        Runs of this connection
                      </a>
                    </dd>
                  </dl>
                  <AuthSection
                    org={org}
                    connection={connection}
                    definition={definition}
                    onConnected={loaded.reload}
                  />
                  <Feeds org={org} connectionId={connectionId} definition={definition} />
                  <Actions org={org} connection={connection} definition={definition} />
                </>
              );
            }}
          </Loading>
        )}
      </Loading>
    </Page>
  );
}
