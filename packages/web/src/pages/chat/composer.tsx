import { useRef, useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { ProblemNote } from '../../ui/problem';

/**
 * Sends a message on platform `api`: into the open conversation, or else the session's own
 * conversation with the agent (or a channel shared with the org, when one is named). Files go as
 * multipart `files` parts beside the same fields.
 */
export function Composer(props: {
  agentId: string;
  conversationId: string | null;
  onSent: (conversationId: string) => void;
}) {
  const [content, setContent] = useState('');
  const [channel, setChannel] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const files = useRef<HTMLInputElement>(null);
  const text = useRef<HTMLTextAreaElement>(null);

  const send = async (event: Event) => {
    event.preventDefault();
    if (!content.trim() || busy) return;
    setBusy(true);
    setError(null);
    const fields: Record<string, string> = { platform: 'api', content };
    if (props.conversationId) fields.conversationId = props.conversationId;
    else if (channel.trim()) fields.channel = channel.trim();
    const chosen = [...(files.current?.files ?? [])];
    try {
      const sent = await must(
        api.POST('/api/v1/agents/{agentId}/messages', {
          params: { path: { agentId: props.agentId } },
          body: fields as { platform: string; content: string },
          ...(chosen.length > 0
            ? {
                bodySerializer: () => {
                  const form = new FormData();
                  for (const [name, value] of Object.entries(fields)) form.append(name, value);
                  for (const file of chosen) form.append('files', file, file.name);
                  return form;
                },
              }
            : {}),
        }),
      );
      setContent('');
      if (files.current) files.current.value = '';
      // The send button is disabled while the message is empty: the writer's place is the message.
      text.current?.focus();
      props.onSent(sent.conversationId);
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="chat-composer" onSubmit={send} aria-label="Send a message">
      {props.conversationId ? null : (
        <>
          <label for="chat-channel">Channel (optional)</label>
          <input
            id="chat-channel"
            value={channel}
            maxLength={200}
            aria-describedby="chat-channel-hint"
            onInput={(e) => setChannel((e.target as HTMLInputElement).value)}
          />
          <p class="hint" id="chat-channel-hint">
            Without a channel the message goes to your own conversation with the agent. A channel is shared
            with everyone in the org, its history included.
          </p>
        </>
      )}
      <label for="chat-content">Message</label>
      <textarea
        id="chat-content"
        ref={text}
        value={content}
        required
        aria-describedby="chat-content-hint"
        onInput={(e) => setContent((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void send(e);
        }}
      />
      <p class="hint" id="chat-content-hint">
        Ctrl+Enter sends.
      </p>
      <div class="chat-composer-row">
        <label for="chat-files">Attach files</label>
        <input id="chat-files" type="file" multiple ref={files} />
        <button type="submit" disabled={busy || !content.trim()}>
          {busy ? 'Sending…' : 'Send'}
        </button>
      </div>
      <ProblemNote error={error} />
    </form>
  );
}
