import { useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { ApiError, api, href, must, type Problem } from '../../api/client';
import {
  type ApprovalStatus,
  applyEvent,
  type ChatEvent,
  type ChatState,
  EMPTY,
  EVENT_TYPES,
  type Message,
  resolveApproval,
  withMessages,
} from './turns';

type Action =
  | { kind: 'event'; event: ChatEvent }
  | { kind: 'messages'; messages: Message[] }
  | { kind: 'resolved'; approvalId: string; status: ApprovalStatus; reason: string | null };

function reduce(state: ChatState, action: Action): ChatState {
  if (action.kind === 'event') return applyEvent(state, action.event);
  if (action.kind === 'messages') return withMessages(state, action.messages);
  return resolveApproval(state, action.approvalId, action.status, action.reason);
}

/** `connecting` until the history is in and the stream open; `reconnecting` while it is away. */
export type Link = 'connecting' | 'live' | 'reconnecting';

async function history(agentId: string, conversationId: string): Promise<Message[]> {
  const messages: Message[] = [];
  let cursor: string | undefined;
  do {
    const page = await must(
      api.GET('/api/v1/agents/{agentId}/conversations/{conversationId}/messages', {
        params: { path: { agentId, conversationId }, query: { limit: 200, ...(cursor ? { cursor } : {}) } },
      }),
    );
    messages.push(...page.messages);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return messages;
}

/**
 * A conversation as it is and as it goes on: its history, then its event stream (native
 * EventSource, authenticated by the session cookie) from the first event, live after that. A
 * reconnecting EventSource sends Last-Event-ID itself; a stream the server ended for good is
 * opened again after the last event seen. Either way an event already applied is dropped, so no
 * text shows twice.
 */
export function useConversation(agentId: string, conversationId: string) {
  const [state, dispatch] = useReducer(reduce, EMPTY);
  const [link, setLink] = useState<Link>('connecting');
  const [error, setError] = useState<Error | null>(null);
  const lastSeq = useRef(0);
  useEffect(() => {
    let closed = false;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const known = new Set<string>();
    lastSeq.current = 0;

    const fetchMessage = (messageId: string) =>
      api
        .GET('/api/v1/agents/{agentId}/messages/{messageId}', { params: { path: { agentId, messageId } } })
        .then(({ data }) => data && !closed && dispatch({ kind: 'messages', messages: [data] }));

    const onEvent = (type: string) => (event: MessageEvent<string>) => {
      const seq = Number(event.lastEventId);
      if (seq <= lastSeq.current) return;
      lastSeq.current = seq;
      const data = JSON.parse(event.data) as ChatEvent['data'];
      dispatch({ kind: 'event', event: { type, data } });
      // Sent from another tab or client: the stored message has its files.
      if (type === 'message.queued' && !known.has(data.messageId)) {
        known.add(data.messageId);
        void fetchMessage(data.messageId);
      }
    };

    const open = () => {
      const url = href(
        `/api/v1/agents/${encodeURIComponent(agentId)}/conversations/${conversationId}/events?after=${lastSeq.current}`,
      );
      source = new EventSource(url);
      for (const type of EVENT_TYPES) source.addEventListener(type, onEvent(type) as EventListener);
      source.onopen = () => setLink('live');
      source.onerror = () => {
        if (closed || !source) return;
        setLink('reconnecting');
        // CONNECTING: the browser retries by itself. CLOSED: the server answered something else
        // than a stream; find out what before trying again.
        if (source.readyState === EventSource.CLOSED) {
          source.close();
          retry = setTimeout(reopen, 3000);
        }
      };
    };
    // An EventSource cannot read an answer's status: a request through the client can, and a 401
    // there signs the page out. A refusal stops here; anything else (the server away) tries again.
    const reopen = () =>
      api
        .GET('/api/v1/agents/{agentId}/conversations/{conversationId}/messages', {
          params: { path: { agentId, conversationId }, query: { limit: 1 } },
        })
        .then(
          ({ error: refused, response }) => {
            if (closed) return;
            if (refused && response.status < 500) setError(new ApiError(refused as Problem));
            else if (refused) retry = setTimeout(reopen, 3000);
            else open();
          },
          () => {
            if (!closed) retry = setTimeout(reopen, 3000);
          },
        );

    history(agentId, conversationId).then(
      (messages) => {
        if (closed) return;
        for (const message of messages) known.add(message.id);
        dispatch({ kind: 'messages', messages });
        open();
      },
      (failure: Error) => !closed && setError(failure),
    );
    return () => {
      closed = true;
      clearTimeout(retry);
      source?.close();
    };
  }, [agentId, conversationId]);

  return {
    state,
    link,
    error,
    /** A decision taken here shows at once, before its event arrives. */
    resolved: (approvalId: string, status: ApprovalStatus, reason: string | null) =>
      dispatch({ kind: 'resolved', approvalId, status, reason }),
  };
}
