import { useRef, useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { useAction } from '../../ui/action';
import { ApproveReject } from '../../ui/decide';
import { Status, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import type { ApprovalStatus, ToolCall, Turn } from './turns';

const json = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** An MCP tool's content is `[{type: 'text', text}, ...]`: its text reads better than its JSON. */
function result(output: unknown): string {
  const content = Array.isArray(output) ? output : (output as { content?: unknown } | null)?.content;
  if (Array.isArray(content) && content.every((part) => part?.type === 'text')) {
    return content.map((part) => part.text).join('\n');
  }
  return json(output);
}

/** Approve or reject a paused call, with a reason the model is told on a rejection. */
function ApprovalPrompt(props: {
  agentId: string;
  call: ToolCall & { approval: NonNullable<ToolCall['approval']> };
  onDecided: (status: ApprovalStatus, reason: string | null) => void;
}) {
  const { approvalId, expiresAt } = props.call.approval;
  const [reason, setReason] = useState('');
  const { busy, error, act } = useAction();
  const decide = (decision: 'approve' | 'reject') =>
    act(async () => {
      const { approval } = await must(
        api.POST('/api/v1/agents/{agentId}/approvals/{approvalId}', {
          params: { path: { agentId: props.agentId, approvalId } },
          body: { decision, ...(reason.trim() ? { reason: reason.trim() } : {}) },
        }),
      );
      props.onDecided(approval.status, approval.reason);
    });
  const reasonId = `reason-${approvalId}`;
  return (
    <form
      class="chat-approval"
      aria-label={`Approve or reject ${props.call.tool}`}
      onSubmit={(event) => event.preventDefault()}
    >
      <p>
        <strong>{props.call.tool}</strong> waits for your approval (until <Time at={expiresAt} />
        ).
      </p>
      <label for={reasonId}>Reason (optional, told to the model)</label>
      <input id={reasonId} value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
      <div class="actions">
        <ApproveReject busy={busy} onDecide={decide} />
      </div>
      <ProblemNote error={error} />
    </form>
  );
}

function ToolCallView(props: {
  agentId: string;
  call: ToolCall;
  canDecide: boolean;
  onDecided: (approvalId: string, status: ApprovalStatus, reason: string | null) => void;
}) {
  const { call } = props;
  const approval = call.approval;
  const box = useRef<HTMLDivElement>(null);
  const state = call.error
    ? 'failed'
    : call.output !== undefined
      ? 'completed'
      : (approval?.status ?? 'running');
  return (
    <div class="chat-tool" ref={box}>
      <details open={approval?.status === 'pending'}>
        <summary>
          Tool <code>{call.tool}</code> <Status value={state} />
        </summary>
        <p class="hint">Input</p>
        <pre>{json(call.input)}</pre>
        {call.output !== undefined ? (
          <>
            <p class="hint">Result</p>
            <pre>{result(call.output)}</pre>
          </>
        ) : null}
        {call.error ? <p class="problem">{call.error}</p> : null}
      </details>
      {approval && approval.status !== 'pending' ? (
        <p class="hint">
          {approval.status}
          {approval.reason ? `: ${approval.reason}` : ''}
        </p>
      ) : null}
      {approval?.status === 'pending' ? (
        props.canDecide ? (
          <ApprovalPrompt
            agentId={props.agentId}
            call={{ ...call, approval }}
            onDecided={(status, reason) => {
              // The prompt goes away with the decision: the call it was about keeps the focus.
              box.current?.querySelector('summary')?.focus();
              props.onDecided(approval.approvalId, status, reason);
            }}
          />
        ) : (
          <p class="hint">Waits for approval by someone with the messages scope.</p>
        )
      ) : null}
    </div>
  );
}

function TurnView(props: {
  agentId: string;
  turn: Turn;
  canDecide: boolean;
  onDecided: (approvalId: string, status: ApprovalStatus, reason: string | null) => void;
}) {
  const { turn } = props;
  const text = turn.reply ?? turn.streamed;
  return (
    <li class="chat-turn">
      <article class="chat-message chat-user" aria-label="You">
        <p class="chat-who">You {turn.createdAt ? <Time at={turn.createdAt} /> : null}</p>
        <p class="chat-text">{turn.content}</p>
        {turn.files.length > 0 ? (
          <ul class="chat-files" aria-label="Files">
            {turn.files.map((file) => (
              <li key={file.id}>
                <a href={file.url} download={file.name}>
                  {file.name}
                </a>{' '}
                <span class="hint">
                  ({file.contentType}, {file.size} bytes)
                </span>
              </li>
            ))}
          </ul>
        ) : null}
      </article>
      <article class="chat-message chat-agent" aria-label="Agent" aria-busy={turn.status === 'running'}>
        <p class="chat-who">
          Agent <Status value={turn.status} />
          {turn.model ? <span class="hint"> {turn.model}</span> : null}
        </p>
        {turn.tools.map((call) => (
          <ToolCallView
            key={call.toolCallId}
            agentId={props.agentId}
            call={call}
            canDecide={props.canDecide}
            onDecided={props.onDecided}
          />
        ))}
        {text ? <p class="chat-text">{text}</p> : null}
        {turn.error ? (
          <p class="problem">
            {turn.error.detail} ({turn.error.code})
          </p>
        ) : null}
      </article>
    </li>
  );
}

/** The conversation as a log: screen readers hear what is added, politely. */
export function ChatLog(props: {
  agentId: string;
  turns: Turn[];
  canDecide: boolean;
  onDecided: (approvalId: string, status: ApprovalStatus, reason: string | null) => void;
}) {
  return (
    <div class="chat-log" role="log" aria-live="polite" aria-label="Messages">
      {props.turns.length === 0 ? <p class="hint">No messages yet.</p> : null}
      <ol>
        {props.turns.map((turn) => (
          <TurnView
            key={turn.id}
            agentId={props.agentId}
            turn={turn}
            canDecide={props.canDecide}
            onDecided={props.onDecided}
          />
        ))}
      </ol>
    </div>
  );
}
