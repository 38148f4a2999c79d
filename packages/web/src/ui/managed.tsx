import { api, must } from '../api/client';
import { useSession } from '../session';
import { useAction } from './action';
import { Time } from './page';
import { ProblemNote } from './problem';

export type Manifest = {
  project: string | null;
  agents: string[];
  platforms: string[];
  entityTypes: string[];
  relationshipTypes: string[];
  watchers: string[];
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

type MemoryKind = 'entity_type' | 'relationship_type' | 'watcher';
const declaredOf = (manifest: NonNullable<Manifest>, kind: MemoryKind) =>
  kind === 'entity_type'
    ? manifest.entityTypes
    : kind === 'relationship_type'
      ? manifest.relationshipTypes
      : manifest.watchers;

/**
 * Whether the latest apply declared a part of the memory model, and for one it did not (drift,
 * which apply never deletes) a Delete for a session that may write.
 */
export function MemoryDeclared(props: {
  org: string;
  kind: MemoryKind;
  slug: string;
  manifest: Manifest | undefined;
  onDeleted: () => void;
}) {
  const { can } = useSession();
  const { busy, error, act } = useAction(props.onDeleted);
  const { manifest, kind, slug } = props;
  const declared = manifest ? declaredOf(manifest, kind).includes(slug) : false;
  const remove = () => {
    const what = kind.replace('_', ' ');
    if (!confirm(`Delete ${what} ${slug}? No project declares it, so svc apply will not bring it back.`))
      return;
    void act(() =>
      must(
        api.POST('/api/{org}/operations/manage_entity_schema', {
          params: { path: { org: props.org } },
          body: { action: 'delete', kind, slug },
        }),
      ),
    );
  };
  return (
    <>
      <Managed manifest={manifest} declared={declared} />
      {manifest && !declared && can('write') ? (
        <>
          {' '}
          <button type="button" class="secondary" disabled={busy} onClick={remove}>
            Delete {slug}
          </button>
        </>
      ) : null}
      <ProblemNote error={error} />
    </>
  );
}
