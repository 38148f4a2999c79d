import { useState } from 'preact/hooks';
import { api, href, must } from '../../api/client';
import { useSession } from '../../session';
import { ProblemNote } from '../../ui/problem';
import { hasFields, ObjectInput } from './object-input';
import type { ActionDefinition, Connection, Definition } from './types';

/** One action: its input as a form (or JSON), run as a queued run whose page follows it. */
function ActionForm(props: { org: string; connection: Connection; action: ActionDefinition }) {
  const { org, connection, action } = props;
  const [input, setInput] = useState<Record<string, unknown> | Error>({});
  const [run, setRun] = useState<{ id: number; approvalStatus: string } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (input instanceof Error) return setError(input);
    setBusy(true);
    setError(null);
    try {
      const answer = await must(
        api.POST('/api/{org}/connections/{connectionId}/actions/{actionKey}', {
          params: { path: { org, connectionId: connection.id, actionKey: action.key } },
          body: { input },
        }),
      );
      setRun(answer.run);
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  const id = `action-${connection.id}-${action.key}`;
  return (
    <form class="card" onSubmit={submit} aria-labelledby={id}>
      <h3 id={id}>
        {action.name} <span class="badge mono">{action.key}</span>
        {action.requiresApproval ? <span class="badge">needs approval</span> : null}
      </h3>
      {action.description ? <p class="hint">{action.description}</p> : null}
      {hasFields(action.inputSchema) ? (
        <ObjectInput schema={action.inputSchema} id={`${id}-input`} label="Input" onChange={setInput} />
      ) : null}
      <ProblemNote error={error} />
      <button type="submit" disabled={busy}>
        Run {action.name}
      </button>
      {run ? (
        <p role="status">
          {run.approvalStatus === 'pending' ? 'Waiting for approval: ' : 'Queued: '}
          <a href={href(`/orgs/${org}/runs/${run.id}`)}>run #{run.id}</a>
        </p>
      ) : null}
    </form>
  );
}

/** What the connection can do when asked (the connector's actions); running one needs write. */
export function Actions(props: { org: string; connection: Connection; definition: Definition }) {
  const { can } = useSession();
  const actions = Object.values(props.definition.actions ?? {});
  if (actions.length === 0) return null;
  return (
    <>
      <h2>Actions</h2>
      {can('write') ? (
        actions.map((action) => (
          <ActionForm key={action.key} org={props.org} connection={props.connection} action={action} />
        ))
      ) : (
        <ul>
          {actions.map((action) => (
            <li key={action.key}>
              {action.name}
              {action.description ? `: ${action.description}` : ''}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
