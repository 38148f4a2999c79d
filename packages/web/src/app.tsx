import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { LocationProvider, lazy, Route, Router, useLocation } from 'preact-iso';
import { api, BASE, escapeRegExp, href, must, setCsrfToken, whenSignedOut } from './api/client';
import { NotFound } from './pages/not-found';
import { SignIn } from './pages/sign-in';
import { type Session, SessionContext } from './session';
import { Shell } from './ui/shell';

// Each page is its own chunk, loaded when first visited: the first page stays small.
const AgentsPage = lazy(() => import('./pages/agents/list'));
const AgentPage = lazy(() => import('./pages/agents/detail'));
const ChatPage = lazy(() => import('./pages/chat/chat'));
const ApprovalsPage = lazy(() => import('./pages/approvals/inbox'));
const ConnectorsPage = lazy(() => import('./pages/connectors/list'));
const ConnectorPage = lazy(() => import('./pages/connectors/connector'));
const ConnectionPage = lazy(() => import('./pages/connectors/connection'));
const RunsPage = lazy(() => import('./pages/runs/list'));
const RunPage = lazy(() => import('./pages/runs/detail'));
const MemoryPage = lazy(() => import('./pages/memory/events'));
const EntityPage = lazy(() => import('./pages/memory/entity'));
const WatchersPage = lazy(() => import('./pages/watchers/list'));
const WatcherPage = lazy(() => import('./pages/watchers/detail'));
const SettingsPage = lazy(() => import('./pages/settings/settings'));

/** Links the console handles itself: everything under the base but the API and the docs. */
const SCOPE = new RegExp(`^${escapeRegExp(BASE)}/(?!api/|docs|openapi\\.json)`);

/** The org pages, each a URL that can be shared: `{base}/orgs/{org}/...`. */
export const ROUTES = {
  agents: '/orgs/:org/agents',
  agent: '/orgs/:org/agents/:agentId',
  chat: '/orgs/:org/agents/:agentId/chat',
  approvals: '/orgs/:org/approvals',
  connectors: '/orgs/:org/connectors',
  connector: '/orgs/:org/connectors/:connectorKey',
  connection: '/orgs/:org/connections/:connectionId',
  runs: '/orgs/:org/runs',
  run: '/orgs/:org/runs/:runId',
  memory: '/orgs/:org/memory',
  entity: '/orgs/:org/memory/entities/:entityId',
  watchers: '/orgs/:org/watchers',
  watcher: '/orgs/:org/watchers/:slug',
  settings: '/orgs/:org/settings',
} as const;

function Home({ org }: { org: string }) {
  const { route } = useLocation();
  useEffect(() => route(href(`/orgs/${org}/agents`), true), [org]);
  return null;
}

function SignedIn({ session, setSession }: { session: Session; setSession: (s: Session | null) => void }) {
  const context = useMemo(() => {
    const scopes = new Set(session.scopes);
    return {
      session,
      can: (scope: Session['scopes'][number]) =>
        scopes.has('admin') || scopes.has(scope) || (scope === 'read' && scopes.has('write')),
      isAdmin: session.kind === 'admin_password',
      async signOut() {
        await api.DELETE('/api/session', { body: {} });
        setSession(null);
      },
      async moveTo(org: string) {
        const moved = await must(api.PATCH('/api/session', { body: { org } }));
        setSession(moved.session);
      },
    };
  }, [session, setSession]);
  const at = (path: string) => `${BASE}${path}`;
  return (
    <SessionContext.Provider value={context}>
      <Shell>
        <Router>
          <Route path={at('/')} component={() => <Home org={session.org} />} />
          <Route path={at(ROUTES.agents)} component={AgentsPage} />
          <Route path={at(ROUTES.agent)} component={AgentPage} />
          <Route path={at(ROUTES.chat)} component={ChatPage} />
          <Route path={at(ROUTES.approvals)} component={ApprovalsPage} />
          <Route path={at(ROUTES.connectors)} component={ConnectorsPage} />
          <Route path={at(ROUTES.connector)} component={ConnectorPage} />
          <Route path={at(ROUTES.connection)} component={ConnectionPage} />
          <Route path={at(ROUTES.runs)} component={RunsPage} />
          <Route path={at(ROUTES.run)} component={RunPage} />
          <Route path={at(ROUTES.memory)} component={MemoryPage} />
          <Route path={at(ROUTES.entity)} component={EntityPage} />
          <Route path={at(ROUTES.watchers)} component={WatchersPage} />
          <Route path={at(ROUTES.watcher)} component={WatcherPage} />
          <Route path={at(ROUTES.settings)} component={SettingsPage} />
          <Route default component={NotFound} />
        </Router>
      </Shell>
    </SessionContext.Provider>
  );
}

export function App() {
  // undefined: asking the server; null: signed out.
  const [session, setSessionState] = useState<Session | null | undefined>(undefined);
  // The CSRF token is in place before any page can send a request with the session.
  const setSession = useCallback((next: Session | null) => {
    setCsrfToken(next?.csrfToken ?? '');
    setSessionState(next);
  }, []);
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    api.GET('/api/session', {}).then(
      ({ data }) => setSession(data?.session ?? null),
      () => setSession(null),
    );
  }, [setSession]);
  if (session === undefined) return <p aria-busy="true">Loading…</p>;
  return (
    <LocationProvider scope={SCOPE}>
      {session ? <SignedIn session={session} setSession={setSession} /> : <SignIn onSignedIn={setSession} />}
    </LocationProvider>
  );
}
