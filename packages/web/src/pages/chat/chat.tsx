import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { href } from '../../api/client';
import { useSession } from '../../session';
import { Page } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import './chat.css';
import { Composer } from './composer';
import { Conversations } from './conversations';
import { ChatLog } from './log';
import { type Link, useConversation } from './stream';

const LINK_WORDS: Record<Link, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
};

/** One conversation: its history, streamed on, and the composer that continues it. */
function Conversation(props: { agentId: string; conversationId: string; canSend: boolean }) {
  const { state, link, error, resolved } = useConversation(props.agentId, props.conversationId);
  const log = useRef<HTMLDivElement>(null);
  const count = state.turns.length;
  // A new message (or the history, once loaded) brings the end of the conversation into view;
  // streamed text does not move the page under a reader.
  useEffect(() => {
    log.current?.querySelector('.chat-turn:last-child')?.scrollIntoView({ block: 'nearest' });
  }, [count]);
  return (
    <>
      <p class="hint chat-link" role="status">
        {error ? '' : LINK_WORDS[link]}
      </p>
      <ProblemNote error={error} />
      <div ref={log}>
        <ChatLog agentId={props.agentId} turns={state.turns} canDecide={props.canSend} onDecided={resolved} />
      </div>
    </>
  );
}

/** Chat with an agent: its conversations (searchable), one open (its id in the URL), a composer. */
export default function ChatPage({ org, agentId }: { org: string; agentId: string }) {
  const { can } = useSession();
  const { query, route } = useLocation();
  const conversationId = query.conversation || null;
  const [generation, setGeneration] = useState(0);
  const canSend = can('messages');
  const onSent = (sentTo: string) => {
    setGeneration((n) => n + 1);
    if (sentTo !== conversationId) {
      route(href(`/orgs/${org}/agents/${agentId}/chat?conversation=${encodeURIComponent(sentTo)}`));
    }
  };
  return (
    <Page
      title={`Chat with ${agentId}`}
      actions={
        <a class="button secondary" href={href(`/orgs/${org}/agents/${agentId}`)}>
          Agent
        </a>
      }
    >
      {canSend ? (
        <div class="chat">
          <Conversations org={org} agentId={agentId} selected={conversationId} generation={generation} />
          <section class="chat-main" aria-label={conversationId ? 'Conversation' : 'New message'}>
            {conversationId ? (
              <Conversation
                key={conversationId}
                agentId={agentId}
                conversationId={conversationId}
                canSend={canSend}
              />
            ) : (
              <p class="notice">Pick a conversation, or write to the agent below.</p>
            )}
            <Composer agentId={agentId} conversationId={conversationId} onSent={onSent} />
          </section>
        </div>
      ) : (
        <p class="notice">
          Conversations are read and written through the messages API, which takes the <code>messages</code>{' '}
          scope; this session's token lacks it. Sign in with a token that has it to chat with {agentId}.
        </p>
      )}
    </Page>
  );
}
