import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, href, must } from '../../api/client';
import { ProblemNote } from '../../ui/problem';
import { EnvKeyFields, given } from './env-keys';
import { hasFields, ObjectInput } from './object-input';
import { definitionOf, type Installed, METHOD_NAMES, methodsOf } from './types';

const BY_PERSON = ['oauth', 'browser', 'interactive'];

/**
 * A new connection of an installed connector: its options and the values of its `env_keys`
 * fields. Sent once; the secrets are dropped from the form as soon as the server has them, and the
 * connection's page that opens next shows only which fields are set.
 */
export function ConnectForm({ org, installed }: { org: string; installed: Installed[] }) {
  const { route } = useLocation();
  const [key, setKey] = useState(installed[0]?.connectorKey ?? '');
  const [displayName, setDisplayName] = useState('');
  const [config, setConfig] = useState<Record<string, unknown> | Error>({});
  const [credentials, setCredentials] = useState<Record<string, string>>({});
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const chosen = installed.find((connector) => connector.connectorKey === key);
  const definition = chosen ? definitionOf(chosen) : undefined;
  const methods = methodsOf(definition);
  const envKeys = methods.find((method) => method.type === 'env_keys');
  const later = methods.filter((method) => BY_PERSON.includes(method.type));
  // As the server checks it: every field is needed only when nothing else can connect it.
  const allRequired =
    envKeys?.required !== false && later.length === 0 && !methods.some((m) => m.type === 'none');

  const choose = (next: string) => {
    setKey(next);
    setCredentials({});
    setConfig({});
    setError(null);
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    if (config instanceof Error) return setError(config);
    setBusy(true);
    setError(null);
    try {
      const values = given(credentials);
      const made = await must(
        api.POST('/api/{org}/connections', {
          params: { path: { org } },
          body: {
            connectorKey: key,
            ...(displayName.trim() ? { displayName: displayName.trim() } : {}),
            ...(Object.keys(config).length > 0 ? { config } : {}),
            ...(Object.keys(values).length > 0 ? { credentials: values } : {}),
          },
        }),
      );
      setCredentials({});
      route(href(`/orgs/${org}/connections/${made.connection.id}`));
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };

  if (installed.length === 0) {
    return <p class="notice">Install a connector first: the bundled ones are listed below.</p>;
  }
  return (
    <form class="card connect-form" onSubmit={submit} aria-labelledby="connect-title">
      <h3 id="connect-title">New connection</h3>
      <label for="connect-connector">Connector</label>
      <select
        id="connect-connector"
        value={key}
        onChange={(e) => choose((e.target as HTMLSelectElement).value)}
      >
        {installed.map((connector) => (
          <option key={connector.connectorKey} value={connector.connectorKey}>
            {connector.name} ({connector.connectorKey})
          </option>
        ))}
      </select>
      {definition?.description ? <p class="hint">{definition.description}</p> : null}
      <label for="connect-name">Display name (optional)</label>
      <input
        id="connect-name"
        value={displayName}
        onInput={(e) => setDisplayName((e.target as HTMLInputElement).value)}
      />
      {hasFields(definition?.optionsSchema) ? (
        <fieldset>
          <legend>Options</legend>
          <ObjectInput
            key={key}
            schema={definition?.optionsSchema}
            id="connect-config"
            label="Options"
            onChange={setConfig}
          />
        </fieldset>
      ) : null}
      {envKeys?.type === 'env_keys' ? (
        <fieldset>
          <legend>Keys</legend>
          {envKeys.description ? <p class="hint">{envKeys.description}</p> : null}
          <p class="hint">Secret values are stored encrypted and never shown again.</p>
          <EnvKeyFields
            fields={envKeys.fields}
            allRequired={allRequired}
            id="connect-key"
            values={credentials}
            onInput={(field, value) => setCredentials((before) => ({ ...before, [field]: value }))}
          />
        </fieldset>
      ) : null}
      {later.length > 0 ? (
        <p class="hint">
          Then connect it on its page: {later.map((method) => METHOD_NAMES[method.type]).join(' or ')}.
        </p>
      ) : null}
      <ProblemNote error={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Connecting…' : 'Create connection'}
      </button>
    </form>
  );
}
