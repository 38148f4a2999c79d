import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, href, orgOfPath } from '../api/client';
import { useSession } from '../session';
import { ProblemNote } from './problem';

const SECTIONS = [
  ['agents', 'Agents'],
  ['approvals', 'Approvals'],
  ['connectors', 'Connectors'],
  ['runs', 'Runs'],
  ['memory', 'Memory'],
  ['watchers', 'Watchers'],
  ['settings', 'Settings'],
] as const;

/** An admin picks the org here; the URL carries it, and the session follows the URL. */
function OrgSwitch({ org }: { org: string }) {
  const { route } = useLocation();
  const [orgs, setOrgs] = useState<string[]>([org]);
  useEffect(() => {
    api.GET('/api/orgs', {}).then(({ data }) => data && setOrgs(data.orgs.map((o) => o.slug)));
  }, []);
  return (
    <label class="org-switch">
      <span>Org</span>
      <select
        value={org}
        onChange={(event) => route(href(`/orgs/${(event.target as HTMLSelectElement).value}/agents`))}
      >
        {orgs.map((slug) => (
          <option key={slug} value={slug}>
            {slug}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Every signed-in page: a way to skip to its content, the sections of the org, who is signed in. */
export function Shell({ children }: { children: ComponentChildren }) {
  const { session, isAdmin, signOut, moveTo } = useSession();
  const { path } = useLocation();
  const org = orgOfPath(path) ?? session.org;
  const [moveError, setMoveError] = useState<Error | null>(null);
  // The org-less routes (messages, conversations, approvals of tool calls) act in the session's
  // org: an admin's session follows the org of the page.
  const moving = isAdmin && org !== session.org;
  useEffect(() => {
    if (moving) moveTo(org).catch(setMoveError);
  }, [moving, org, moveTo]);
  const current = path.slice(href(`/orgs/${org}/`).length).split('/')[0];
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href(`/orgs/${org}/agents`)}>
          svc
        </a>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map(([key, label]) => (
              <li key={key}>
                <a href={href(`/orgs/${org}/${key}`)} aria-current={current === key ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          {isAdmin ? <OrgSwitch org={org} /> : <span>{org}</span>}
          <span class="signed-in-as">{session.token ? `token ${session.token.name}` : 'admin'}</span>
          <button type="button" onClick={() => signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <ProblemNote error={moveError} />
        {moving ? <p aria-busy="true">Opening org {org}…</p> : children}
      </main>
    </div>
  );
}
