import { useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { useAction } from '../../ui/action';
import { ProblemNote } from '../../ui/problem';
import { Table } from '../../ui/table';
import type { ActionDefinition, Connection, Generated } from './types';

/** The annotations as words: why an action needs approval, and what an agent is told about it. */
function hints(action: ActionDefinition): string {
  const { destructiveHint, idempotentHint, openWorldHint } = action.annotations ?? {};
  const words = [
    destructiveHint && 'destructive',
    idempotentHint && 'idempotent',
    openWorldHint && 'open world',
  ].filter(Boolean);
  return words.join(', ') || '—';
}

/** A connector's actions: key, whether running one waits for approval, its hints. */
export function ActionsTable({
  connectorKey,
  actions,
}: {
  connectorKey: string;
  actions: ActionDefinition[];
}) {
  if (actions.length === 0) return <p class="notice">No actions.</p>;
  return (
    <Table
      head={['Action', 'Approval', 'Hints', 'Description']}
      caption={`Actions of ${connectorKey}`}
      captionClass="sr-only"
    >
      {actions.map((action) => (
        <tr key={action.key}>
          <td>
            <span class="mono">{action.key}</span>
            {/* A generated action's name is often its description again: shown once. */}
            {action.name && action.name !== action.key && action.name !== action.description ? (
              <p class="hint">{action.name}</p>
            ) : null}
          </td>
          <td>{action.requiresApproval ? <span class="badge">needs approval</span> : 'none'}</td>
          <td>{hints(action)}</td>
          <td>{action.description ?? '—'}</td>
        </tr>
      ))}
    </Table>
  );
}

/** Operations or tools of the upstream that did not become actions, each with the reason. */
export function Skipped({ generated }: { generated: Generated }) {
  if (generated.skipped.length === 0) return null;
  return (
    <>
      <h2>Not generated</h2>
      <Table
        head={['Operation', 'Why']}
        caption="Operations that did not become actions"
        captionClass="sr-only"
      >
        {generated.skipped.map((item) => (
          <tr key={item.operation}>
            <td class="mono">{item.operation}</td>
            <td>{item.reason}</td>
          </tr>
        ))}
      </Table>
    </>
  );
}

interface Refreshed {
  result: 'updated' | 'unchanged';
  added: string[];
  removed: string[];
}

/**
 * Reads the upstream again (admin): with a connection's credentials when one is chosen, else the
 * server takes the first active connection that has some, for an upstream that lists nothing
 * without them.
 */
export function RefreshControl(props: {
  org: string;
  connectorKey: string;
  connections: Connection[];
  onRefreshed: () => void;
}) {
  const [connectionId, setConnectionId] = useState('');
  const [refreshed, setRefreshed] = useState<Refreshed | null>(null);
  const { busy, error, act } = useAction(props.onRefreshed);
  const refresh = () =>
    act(async () => {
      setRefreshed(null);
      const answer = await must(
        api.POST('/api/{org}/connectors/{key}/refresh', {
          params: { path: { org: props.org, key: props.connectorKey } },
          body: connectionId ? { connectionId: Number(connectionId) } : {},
        }),
      );
      setRefreshed(answer);
    });
  return (
    <div class="card refresh-control">
      {props.connections.length > 0 ? (
        <>
          <label for="refresh-connection">Read it with the credentials of</label>
          <select
            id="refresh-connection"
            value={connectionId}
            onChange={(event) => setConnectionId((event.target as HTMLSelectElement).value)}
          >
            <option value="">the first active connection that has some</option>
            {props.connections.map((connection) => (
              <option key={connection.id} value={String(connection.id)}>
                {connection.displayName ?? `${connection.connectorKey} #${connection.id}`}
              </option>
            ))}
          </select>
        </>
      ) : null}
      <div class="actions">
        <button type="button" disabled={busy} onClick={refresh}>
          {busy ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <ProblemNote error={error} />
      {refreshed ? <p role="status">{describe(refreshed)}</p> : null}
    </div>
  );
}

function describe({ result, added, removed }: Refreshed): string {
  if (result === 'unchanged') return 'Refreshed: no change.';
  const parts = [
    added.length > 0 ? `added ${added.join(', ')}` : '',
    removed.length > 0 ? `removed ${removed.join(', ')}` : '',
  ].filter(Boolean);
  return `Refreshed: ${parts.join('; ') || 'the same actions, with changed details'}.`;
}
