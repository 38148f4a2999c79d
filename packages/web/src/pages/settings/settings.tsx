import { useSession } from '../../session';
import { Page } from '../../ui/page';
import { Orgs } from './orgs';
import { Secrets } from './secrets';
import './settings.css';
import { Tokens } from './tokens';

/** The org's secrets and tokens, and the deployment's orgs: each part for the sessions that may use it. */
export default function SettingsPage({ org }: { org: string }) {
  const { can, isAdmin } = useSession();
  return (
    <Page title="Settings">
      {can('read') ? <Secrets org={org} /> : null}
      {can('admin') ? (
        <Tokens org={org} />
      ) : (
        <p class="notice">API tokens are managed by a session with the admin scope.</p>
      )}
      {isAdmin ? <Orgs /> : null}
    </Page>
  );
}
