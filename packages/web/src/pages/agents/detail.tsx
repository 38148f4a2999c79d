import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, href, must } from '../../api/client';
import { useSession } from '../../session';
import { useLoad } from '../../ui/load';
import { loadManifest, Managed, ManifestNote } from '../../ui/managed';
import { Loading, Page, Status, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';
import { PlatformCard } from './platform';

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
  const reloadAgent = agent.reload;
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
              <PlatformCard
                key={platform.stableId}
                org={org}
                agentId={agentId}
                platform={platform}
                manifest={manifest.data}
                onDeleted={reloadAgent}
              />
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
