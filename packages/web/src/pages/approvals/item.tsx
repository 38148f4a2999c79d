import { useState } from 'preact/hooks';
import { api, href, must } from '../../api/client';
import type { paths } from '../../api/schema';
import { useSession } from '../../session';
import { ApproveReject } from '../../ui/decide';
import { Status, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';

export type Item =
  paths['/api/{org}/approvals']['get']['responses'][200]['content']['application/json']['approvals'][number];

/**
 * Posts a decision where the inbox said to: its paths are relative to the API base, as the client's
 * are (the client adds SVC_BASE_PATH). They are the routes `decideApproval`, `approveRun` and
 * `rejectRun`; the client cannot know that from a string, hence the cast.
 */
async function post(path: string, body: object): Promise<unknown> {
  type AnyPath = '/api/v1/agents/{agentId}/approvals/{approvalId}';
  return must(api.POST(path as AnyPath, { body } as never));
}

const what = (item: Item) =>
  item.kind === 'tool_call' ? item.tool : `${item.connectorKey}.${item.actionKey}`;

/** Where the item comes from: the agent and its conversation, or the connection and its run. */
function Origin({ org, item }: { org: string; item: Item }) {
  if (item.kind === 'tool_call') {
    return (
      <p>
        Tool call of agent <a href={href(`/orgs/${org}/agents/${item.agentId}`)}>{item.agentId}</a>, in{' '}
        <a href={href(`/orgs/${org}/agents/${item.agentId}/chat?conversation=${item.conversationId}`)}>
          its conversation
        </a>
      </p>
    );
  }
  return (
    <p>
      Action run <a href={href(`/orgs/${org}/runs/${item.id}`)}>#{item.id}</a> on{' '}
      <a href={href(`/orgs/${org}/connections/${item.connectionId}`)}>connection {item.connectionId}</a>
    </p>
  );
}

/** Approve or reject, when the session has the scope the decision takes. */
function Decide({ item, onDecided }: { item: Item; onDecided: (item: Item, decision: string) => void }) {
  const { can } = useSession();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  if (!can(item.decide.scope)) {
    return (
      <p class="hint">
        Deciding takes the <code>{item.decide.scope}</code> scope, which this session lacks.
      </p>
    );
  }
  const decide = async (decision: 'approve' | 'reject') => {
    setBusy(true);
    setError(null);
    try {
      if (item.kind === 'tool_call') {
        await post(item.decide.path, { decision, ...(reason.trim() ? { reason: reason.trim() } : {}) });
      } else {
        await post(decision === 'approve' ? item.decide.approvePath : item.decide.rejectPath, {});
      }
      onDecided(item, decision === 'approve' ? 'approved' : 'rejected');
    } catch (failure) {
      setError(failure as Error);
      setBusy(false);
    }
  };
  const reasonId = `inbox-reason-${item.kind}-${item.id}`;
  return (
    <form
      class="inbox-decide"
      onSubmit={(event) => event.preventDefault()}
      aria-label={`Decide ${what(item)}`}
    >
      {item.kind === 'tool_call' ? (
        <>
          <label for={reasonId}>Reason (optional, told to the model)</label>
          <input
            id={reasonId}
            value={reason}
            maxLength={2000}
            onInput={(e) => setReason((e.target as HTMLInputElement).value)}
          />
        </>
      ) : (
        <p class="hint">A run is approved or rejected without a reason.</p>
      )}
      <div class="actions">
        <ApproveReject busy={busy} onDecide={decide} />
      </div>
      <ProblemNote error={error} />
    </form>
  );
}

/** One approval: what it is, its input, its time, and its decision (or the controls to take it). */
export function InboxItem(props: {
  org: string;
  item: Item;
  onDecided: (item: Item, decision: string) => void;
}) {
  const { item } = props;
  return (
    <li class="card inbox-item">
      <article aria-labelledby={`inbox-${item.kind}-${item.id}`}>
        <h2 id={`inbox-${item.kind}-${item.id}`}>
          <code>{what(item)}</code> <Status value={item.status} />
        </h2>
        <Origin org={props.org} item={item} />
        <dl class="facts">
          <dt>Asked</dt>
          <dd>
            <Time at={item.createdAt} />
          </dd>
          {item.kind === 'tool_call' && item.status === 'pending' ? (
            <>
              <dt>Expires</dt>
              <dd>
                <Time at={item.expiresAt} />
              </dd>
            </>
          ) : null}
          {item.decidedAt ? (
            <>
              <dt>Decided</dt>
              <dd>
                <Time at={item.decidedAt} />
                {item.kind === 'tool_call' && item.reason ? `: ${item.reason}` : ''}
              </dd>
            </>
          ) : null}
        </dl>
        <p class="hint">Input</p>
        <pre>{JSON.stringify(item.input, null, 2)}</pre>
        {item.status === 'pending' ? <Decide item={item} onDecided={props.onDecided} /> : null}
      </article>
    </li>
  );
}
