import { api, must } from '../../api/client';
import { Time } from '../../ui/page';

export type Manifest = {
  project: string | null;
  agents: string[];
  platforms: string[];
  appliedAt: string;
} | null;

/** What the latest `svc apply` declared in the org (null: no apply recorded). */
export const loadManifest = (org: string) =>
  must(api.GET('/api/{org}/apply-manifest', { params: { path: { org } } })).then((answer) => answer.manifest);

/**
 * Whether a resource is one the latest apply declared ("managed by svc apply") or one no project
 * declares ("drift", which apply never deletes): a badge that says it in words.
 */
export function Managed({ manifest, declared }: { manifest: Manifest | undefined; declared: boolean }) {
  if (!manifest) return null;
  return declared ? (
    <span class="badge">managed by svc apply</span>
  ) : (
    <span class="badge status-drift">drift: declared nowhere</span>
  );
}

/** Which apply the badges are about. */
export function ManifestNote({ manifest }: { manifest: Manifest | undefined }) {
  if (manifest === undefined) return null;
  if (manifest === null) {
    return (
      <p class="hint">
        No <code>svc apply</code> has been recorded in this org: nothing is marked as managed or drift.
      </p>
    );
  }
  return (
    <p class="hint">
      Marked against the latest <code>svc apply</code>
      {manifest.project ? (
        <>
          {' '}
          of <strong>{manifest.project}</strong>
        </>
      ) : null}{' '}
      (<Time at={manifest.appliedAt} />
      ): what it did not declare is drift, which apply never deletes.
    </p>
  );
}
