import { useState } from 'preact/hooks';
import { api, href, must } from '../../api/client';
import type { paths } from '../../api/schema';
import { Time } from '../../ui/page';
import { useLoadMore } from '../../ui/paged';
import { ProblemNote } from '../../ui/problem';

type Conversation =
  paths['/api/v1/agents/{agentId}/conversations']['get']['responses'][200]['content']['application/json']['conversations'][number];

const PAGE = 20;

function name(conversation: Conversation): string {
  if (conversation.channel) return `#${conversation.channel}`;
  if (conversation.platform !== 'api') return `${conversation.platform} ${conversation.thread ?? ''}`.trim();
  return conversation.private ? 'Private conversation' : 'Conversation';
}

/** The agent's conversations, newest first, searchable, a page at a time. */
export function Conversations(props: {
  org: string;
  agentId: string;
  selected: string | null;
  /** Changes when a message was sent: the list's order (and maybe its members) changed. */
  generation: number;
}) {
  const [draft, setDraft] = useState('');
  const [q, setQ] = useState('');
  // A newer search or send makes an answer stale: a fast typist never sees an old list.
  const {
    rows: items,
    loading,
    error,
    hasMore,
    more,
  } = useLoadMore(
    async (after?: string) => {
      const page = await must(
        api.GET('/api/v1/agents/{agentId}/conversations', {
          params: {
            path: { agentId: props.agentId },
            query: { limit: PAGE, ...(q ? { q } : {}), ...(after ? { cursor: after } : {}) },
          },
        }),
      );
      return { rows: page.conversations, nextCursor: page.nextCursor };
    },
    [props.agentId, q, props.generation],
  );

  const chatHref = (id?: string) =>
    href(`/orgs/${props.org}/agents/${props.agentId}/chat${id ? `?conversation=${id}` : ''}`);
  return (
    <nav class="chat-conversations" aria-label="Conversations">
      <h2>Conversations</h2>
      <search>
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            setQ(draft.trim());
          }}
        >
          <label for="chat-search" class="sr-only">
            Search conversations
          </label>
          <input
            id="chat-search"
            type="search"
            placeholder="Search messages"
            value={draft}
            maxLength={200}
            onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="secondary">
            Search
          </button>
        </form>
      </search>
      <p>
        <a href={chatHref()} aria-current={props.selected === null ? 'page' : undefined}>
          New message
        </a>
      </p>
      <ProblemNote error={error} />
      {!loading && items.length === 0 ? (
        <p class="hint">{q ? `No conversation mentions “${q}”.` : 'No conversations yet.'}</p>
      ) : null}
      <ul>
        {items.map((conversation) => (
          <li key={conversation.id}>
            <a
              href={chatHref(conversation.id)}
              aria-current={conversation.id === props.selected ? 'page' : undefined}
            >
              {name(conversation)}
            </a>
            <span class="hint">
              {' '}
              <Time at={conversation.lastMessageAt ?? conversation.createdAt} />
            </span>
          </li>
        ))}
      </ul>
      {loading ? <p aria-busy="true">Loading…</p> : null}
      {hasMore && !loading ? (
        <button type="button" class="secondary" onClick={more}>
          More conversations
        </button>
      ) : null}
    </nav>
  );
}
