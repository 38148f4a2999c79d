import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, href, must } from '../../api/client';
import { useSession } from '../../session';
import { useLoad } from '../../ui/load';
import { loadManifest, Managed, ManifestNote } from '../../ui/managed';
import { Loading, Page, Status, Time } from '../../ui/page';
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

function Setting({ name, value }: { name: string; value: unknown }) {
  if (value === null || value === undefined) return null;
  return (
    <details>
      <summary>{name}</summary>
      <pre>{typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

/** One agent: its settings, platforms and providers as `svc apply` left them; deletable when it is drift. */
export default function AgentPage({ org, agentId }: { org: string; agentId: string }) {
  const { can } = useSession();
  const { route } = useLocation();
  const [deleteError, setDeleteError] = useState<Error | null>(null);
  const agent = useLoad(
    () =>
      must(
        api.GET('/api/{org}/agents/{id}', {
          params: { path: { org, id: agentId }, query: { include: ['config', 'platforms'] } },
        }),
      ),
    [org, agentId],
  );
  const manifest = useLoad(() => loadManifest(org), [org]);
  const declared = manifest.data?.agents.includes(agentId) ?? false;
  const drift = manifest.data !== undefined && manifest.data !== null && !declared;
  const remove = async () => {
    if (
      !confirm(
        `Delete agent ${agentId} with its settings, platforms and conversations? This cannot be undone.`,
      )
    )
      return;
    try {
      await must(api.DELETE('/api/{org}/agents/{id}', { params: { path: { org, id: agentId } } }));
      route(href(`/orgs/${org}/agents`));
    } catch (error) {
      setDeleteError(error as Error);
    }
  };
  return (
    <Page
      title={agent.data?.agent.name ?? agentId}
      actions={
        <a class="button" href={href(`/orgs/${org}/agents/${agentId}/chat`)}>
          Chat
        </a>
      }
    >
      <Loading loaded={agent}>
        {({ agent }) => (
          <>
            <p>
              <Managed manifest={manifest.data} declared={declared} />
            </p>
            <ManifestNote manifest={manifest.data} />
            <dl class="facts">
              <dt>Agent id</dt>
              <dd class="mono">{agent.agentId}</dd>
              <dt>Description</dt>
              <dd>{agent.description || '—'}</dd>
              <dt>Updated</dt>
              <dd>
                <Time at={agent.updatedAt} />
              </dd>
            </dl>

            <h2>Providers</h2>
            {agent.providers.length === 0 ? <p>None: turns use the deployment's default, if any.</p> : null}
            <ul>
              {agent.providers.map((provider) => (
                <li key={provider.key}>
                  <strong>{provider.key}</strong> with <code>{provider.secret_ref}</code>{' '}
                  <Status value={provider.status} />
                  {provider.problems.map((problem) => (
                    <p class="hint" key={problem.path}>
                      {problem.message}
                    </p>
                  ))}
                </li>
              ))}
            </ul>

            <h2>Platforms</h2>
            {(agent.platforms ?? []).length === 0 ? (
              <p>None: the agent takes messages through the API only.</p>
            ) : null}
            {(agent.platforms ?? []).map((platform) => (
              <div class="card" key={platform.stableId}>
                <p>
                  <strong>{platform.name ?? platform.type}</strong> <span class="badge">{platform.type}</span>{' '}
                  <Managed
                    manifest={manifest.data}
                    declared={manifest.data?.platforms.includes(platform.stableId) ?? false}
                  />{' '}
                  <Status value={platform.status} />
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
              </div>
            ))}

            <h2>Settings</h2>
            <p class="hint">
              Written by <code>svc apply</code> from the agent's folder and svc.toml; change them there.
            </p>
            {Object.entries(agent.config ?? {}).every(([, value]) => value === null) ? (
              <p>No settings.</p>
            ) : null}
            {Object.entries(agent.config ?? {}).map(([name, value]) => (
              <Setting key={name} name={name} value={value} />
            ))}

            {can('admin') ? (
              <>
                <h2>Delete</h2>
                {drift ? (
                  <p class="notice">
                    No project declares this agent (it is drift): <code>svc apply</code> will never delete it.
                    Delete it here if it is no longer wanted.
                  </p>
                ) : (
                  <p class="hint">
                    {declared
                      ? 'The latest svc apply declares this agent: it would be created again by the next apply. Remove it from the project first.'
                      : 'svc apply never deletes an agent: one that no project declares is deleted here.'}
                  </p>
                )}
                <button type="button" class="danger" onClick={remove}>
                  Delete agent {agent.agentId}
                </button>
                <ProblemNote error={deleteError} />
              </>
            ) : null}
          </>
        )}
      </Loading>
    </Page>
  );
}
