import { useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { useSession } from '../../session';
import { ProblemNote } from '../../ui/problem';
import { type ConnectorPackage, METHOD_NAMES } from './types';

/** What the button does for a package: install it, upgrade it to this version, or nothing. */
function verb(pkg: ConnectorPackage) {
  if (!pkg.installed) return 'Install';
  return pkg.installedVersion === pkg.version ? null : 'Upgrade';
}

/** The bundled connectors this server can install; an admin installs or upgrades one here. */
export function Packages(props: { org: string; packages: ConnectorPackage[]; onInstalled: () => void }) {
  const { can } = useSession();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const install = async (pkg: ConnectorPackage) => {
    setBusy(pkg.package);
    setError(null);
    try {
      await must(
        api.POST('/api/{org}/connectors', {
          params: { path: { org: props.org } },
          body: { package: pkg.package },
        }),
      );
      props.onInstalled();
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(null);
    }
  };
  if (props.packages.length === 0) return <p>This server bundles no connector.</p>;
  return (
    <>
      <ProblemNote error={error} />
      <div class="grid wide-grid">
        {props.packages.map((pkg) => {
          const action = verb(pkg);
          return (
            <article class="card package-card" key={pkg.package} aria-labelledby={`package-${pkg.package}`}>
              <h3 id={`package-${pkg.package}`}>{pkg.name}</h3>
              {pkg.description ? <p>{pkg.description}</p> : null}
              <dl class="facts">
                <dt>Key</dt>
                <dd class="mono">{pkg.key}</dd>
                <dt>Version</dt>
                <dd>
                  {pkg.version}
                  {pkg.installed ? ` (installed: ${pkg.installedVersion})` : ' (not installed)'}
                </dd>
                <dt>Connects with</dt>
                <dd>{pkg.authMethods.map((method) => METHOD_NAMES[method]).join(', ') || 'nothing'}</dd>
              </dl>
              {can('admin') && action ? (
                <button
                  type="button"
                  disabled={busy !== null}
                  aria-label={`${action} ${pkg.name}`}
                  onClick={() => install(pkg)}
                >
                  {busy === pkg.package ? `${action === 'Install' ? 'Installing' : 'Upgrading'}…` : action}
                </button>
              ) : null}
            </article>
          );
        })}
      </div>
    </>
  );
}
