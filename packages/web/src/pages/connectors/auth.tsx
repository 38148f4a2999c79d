import { useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { useSession } from '../../session';
import { ProblemNote } from '../../ui/problem';
import { BrowserAuth } from './browser';
import { EnvKeyFields, given } from './env-keys';
import { InteractiveAuth } from './interactive';
import { OAuthConnect } from './oauth';
import type { AuthMethod, Connection, Definition } from './types';

type Props = { org: string; connection: Connection; definition: Definition; onConnected: () => void };

/** New values for the `env_keys` fields: they replace all of them, and revive a revoked connection. */
function NewKeys(props: Props & { method: Extract<AuthMethod, { type: 'env_keys' }> }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<Error | null>(null);
  const [saved, setSaved] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await must(
        api.PATCH('/api/{org}/connections/{connectionId}', {
          params: { path: { org: props.org, connectionId: props.connection.id } },
          body: { credentials: given(values) },
        }),
      );
      setValues({});
      setSaved(true);
      props.onConnected();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <form onSubmit={submit} aria-label="New keys">
      {props.method.description ? <p class="hint">{props.method.description}</p> : null}
      <p class="hint">
        The values replace every key the connection holds. Secret values are never shown again.
      </p>
      <EnvKeyFields
        fields={props.method.fields}
        allRequired={props.method.required !== false}
        id={`keys-${props.connection.id}`}
        values={values}
        onInput={(key, value) => setValues((before) => ({ ...before, [key]: value }))}
      />
      <ProblemNote error={error} />
      {saved ? (
        <p role="status" class="hint">
          Saved.
        </p>
      ) : null}
      <button type="submit">Save keys</button>
    </form>
  );
}

const TITLES: Record<AuthMethod['type'], string> = {
  none: 'No credentials',
  env_keys: 'Keys',
  oauth: 'OAuth',
  browser: 'Browser session',
  interactive: 'Interactive sign-in',
};

/** Connecting the connection, by each auth method its connector declares. */
export function AuthSection(props: Props) {
  const { can } = useSession();
  const methods = (props.definition.authSchema?.methods ?? []).filter((method) => method.type !== 'none');
  if (methods.length === 0) {
    return (
      <>
        <h2>Connect</h2>
        <p>This connector needs no credentials.</p>
      </>
    );
  }
  return (
    <>
      <h2>Connect</h2>
      {methods.map((method) => (
        <section class="card" key={method.type} aria-labelledby={`auth-${method.type}`}>
          <h3 id={`auth-${method.type}`}>{TITLES[method.type]}</h3>
          {method.type === 'env_keys' ? (
            can('write') ? (
              <NewKeys {...props} method={method} />
            ) : (
              <p class="hint">Set by someone who may write.</p>
            )
          ) : null}
          {method.type === 'oauth' ? <OAuthConnect {...props} method={method} /> : null}
          {method.type === 'interactive' ? <InteractiveAuth {...props} method={method} /> : null}
          {method.type === 'browser' ? <BrowserAuth {...props} method={method} /> : null}
        </section>
      ))}
    </>
  );
}
