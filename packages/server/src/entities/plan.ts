import { type Claim, isEmpty, type TraitBehavior } from './rules.js';

/** The key of an identity across the call: (type, namespace, value) within the org. */
export const identityKey = (entityType: string, namespace: string, value: string) =>
  JSON.stringify([entityType, namespace, value]);

/** What the call does to one entity; `ref` is its id, or `new:<n>` for one it creates. */
export interface EntityChange {
  ref: string;
  entityType: string;
  /** A new entity's title; for an existing one, written only where it has none. */
  title: string | null;
  /** Traits decided by `overwrite` (or a non-empty `prefer_non_empty`): written whatever the entity holds. */
  set: Map<string, unknown>;
  /** Traits `init_only` offers: written only where the entity holds no value (absent or null). */
  init: Map<string, unknown>;
}

export interface Plan {
  changes: Map<string, EntityChange>;
  attach: { entityType: string; namespace: string; value: string; ref: string }[];
  /** Event index and entity ref, each pair once. */
  links: { event: number; ref: string }[];
  /** Claims whose identities found two or more entities: linked to none of them. */
  ambiguous: {
    event: number;
    entityType: string;
    matches: { namespace: string; value: string; ref: string }[];
  }[];
}

export const isNew = (ref: string) => ref.startsWith('new:');

/**
 * Decides every link of the call in memory, claims in the order of the events, so that a later
 * event sees what an earlier one created or attached. `owners` maps each identity key to the
 * entity that holds it (as read under the locks) and is updated as identities are attached.
 */
export function planLinks(claims: { event: number; claim: Claim }[], owners: Map<string, string>): Plan {
  const changes = new Map<string, EntityChange>();
  const attach: Plan['attach'] = [];
  const ambiguous: Plan['ambiguous'] = [];
  const links = new Map<string, Plan['links'][number]>();
  let created = 0;

  for (const { event, claim } of claims) {
    const found = new Map<string, { namespace: string; value: string }[]>();
    for (const { namespace, value } of claim.identities) {
      const owner = owners.get(identityKey(claim.entityType, namespace, value));
      if (owner !== undefined) found.set(owner, [...(found.get(owner) ?? []), { namespace, value }]);
    }
    if (found.size > 1) {
      ambiguous.push({
        event,
        entityType: claim.entityType,
        matches: [...found].flatMap(([ref, identities]) =>
          identities.map((identity) => ({ ...identity, ref })),
        ),
      });
      continue;
    }
    const kept = claim.identities.filter((identity) => !identity.matchOnly);
    let ref = [...found.keys()][0];
    if (ref === undefined) {
      // An entity made of match-only identities could never be found again: each sync would add one.
      if (!claim.autoCreate || kept.length === 0) continue;
      ref = `new:${created++}`;
    }
    let change = changes.get(ref);
    if (!change) {
      change = { ref, entityType: claim.entityType, title: null, set: new Map(), init: new Map() };
      changes.set(ref, change);
    }
    change.title ??= claim.title;
    for (const { namespace, value } of kept) {
      const key = identityKey(claim.entityType, namespace, value);
      if (owners.has(key)) continue;
      owners.set(key, ref);
      attach.push({ entityType: claim.entityType, namespace, value, ref });
    }
    for (const { key, behavior, value } of claim.traits) applyTrait(change, key, behavior, value);
    links.set(`${event}:${ref}`, { event, ref });
  }
  return { changes, attach, links: [...links.values()], ambiguous };
}

/** As if the events were applied one after another, whatever the entity already holds. */
function applyTrait(change: EntityChange, key: string, behavior: TraitBehavior, value: unknown): void {
  if (behavior === 'overwrite' || (behavior === 'prefer_non_empty' && !isEmpty(value))) {
    change.set.set(key, value);
    change.init.delete(key);
    return;
  }
  if (behavior !== 'init_only' || value === null) return;
  if (change.set.has(key)) {
    // An earlier event of the batch cleared it: the entity holds no value any more.
    if (change.set.get(key) === null) change.set.set(key, value);
    return;
  }
  if (!change.init.has(key)) change.init.set(key, value);
}
