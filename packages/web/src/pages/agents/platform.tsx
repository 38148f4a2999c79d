import { api, must } from '../../api/client';
import { useSession } from '../../session';
import { useAction } from '../../ui/action';
import { Managed, type Manifest } from '../../ui/managed';
import { Status } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';

type Platform = {
  type: string;
  stableId: string;
  name: string | null;
  webhookUrl: string;
  config: Record<string, unknown>;
};

/**
 * The URL a platform calls: absolute when SVC_PUBLIC_URL is set, else a path of this server, which
 * the platform needs whole.
 */
const absolute = (url: string) => (url.startsWith('/') ? `${location.origin}${url}` : url);

/** What a person does on the platform's side so that its messages reach this webhook. */
function ConnectStep({ platform }: { platform: Platform }) {
  const url = <code>{absolute(platform.webhookUrl)}</code>;
  if (platform.type === 'team_chat') {
    return (
      <p class="hint">
        In your Slack app, under Event Subscriptions, set the Request URL to {url}, subscribe to the bot
        events <code>message.channels</code> and <code>app_mention</code>, and reinstall the app.
      </p>
    );
  }
  if (platform.config.flavor === 'whatsapp') {
    return (
      <p class="hint">
        In the Meta app's WhatsApp configuration, set the callback URL to {url} and the verify token to the
        value of <code>verify_token</code>, then subscribe to <code>messages</code>.
      </p>
    );
  }
  if (platform.type === 'messenger') {
    return (
      <p class="hint">
        Call Telegram's <code>setWebhook</code> with <code>url</code> {url} and <code>secret_token</code> set
        to the value of the platform's <code>secret_token</code>.
      </p>
    );
  }
  return <p class="hint">Send this platform's webhooks to {url}.</p>;
}

type PlatformRecord = Platform & {
  status: string;
  problems: { path: string; message: string }[];
};

/**
 * One platform of an agent: where its webhooks go and how to connect it; one that no project
 * declares (drift) may be deleted by an admin.
 */
export function PlatformCard(props: {
  org: string;
  agentId: string;
  platform: PlatformRecord;
  manifest: Manifest | undefined;
  onDeleted: () => void;
}) {
  const { org, agentId, platform, manifest } = props;
  const { can } = useSession();
  const { busy, error, act } = useAction(props.onDeleted);
  const declared = manifest?.platforms.includes(platform.stableId) ?? false;
  const remove = () => {
    if (!confirm(`Delete platform ${platform.stableId}? Its webhook stops being answered.`)) return;
    void act(() =>
      must(
        api.DELETE('/api/{org}/agents/{id}/platforms/by-stable-id/{stableId}', {
          params: { path: { org, id: agentId, stableId: platform.stableId } },
        }),
      ),
    );
  };
  return (
    <div class="card">
      <p>
        <strong>{platform.name ?? platform.type}</strong> <span class="badge">{platform.type}</span>{' '}
        <Managed manifest={manifest} declared={declared} /> <Status value={platform.status} />
      </p>
      <dl class="facts">
        <dt>Stable id</dt>
        <dd class="mono">{platform.stableId}</dd>
        <dt>Webhook URL</dt>
        <dd class="mono">{absolute(platform.webhookUrl)}</dd>
      </dl>
      <ConnectStep platform={platform} />
      {platform.problems.map((problem) => (
        <p class="problem" key={problem.path}>
          {problem.message}
        </p>
      ))}
      {manifest && !declared && can('admin') ? (
        <button type="button" class="secondary" disabled={busy} onClick={remove}>
          Delete platform {platform.stableId}
        </button>
      ) : null}
      <ProblemNote error={error} />
    </div>
  );
}
