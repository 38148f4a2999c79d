import {
  type CustomIdentityNamespace,
  type EntityLinkOverrides,
  type EntityLinkRule,
  type EntityTraitSpec,
  type EventEnvelope,
  type IdentityNamespace,
  normalizeIdentity,
} from '@svc/connector-sdk';

/** What `events.link_issues` holds: each link a rule asked for and that could not be made. */
export type LinkIssue =
  | {
      problem: 'ambiguous';
      entityType: string;
      /** Every identity of the event that found an entity, and the entity it found. */
      matches: { namespace: string; value: string; entityId: number }[];
    }
  | { problem: 'unknown_namespace'; entityType: string; namespace: string; message: string }
  /** The traits the event would have written fail the type's `metadata_schema`: none were written. */
  | { problem: 'invalid_metadata'; entityType: string; errors: string[] };

export type TraitBehavior = EntityTraitSpec['behavior'];

/** One rule applied to one event: the identities it found there, normalised, and what else it reads. */
export interface Claim {
  entityType: string;
  autoCreate: boolean;
  title: string | null;
  identities: { namespace: string; value: string; matchOnly: boolean }[];
  traits: { key: string; behavior: TraitBehavior; value: unknown }[];
}

/**
 * The rule as this install runs it. Overrides are keyed by the rule's declared `entityType` (as
 * Lobu's SDK documents them), so one override covers every rule of that type in the connector.
 */
export function overridden(rule: EntityLinkRule, overrides: EntityLinkOverrides): EntityLinkRule | null {
  // Own keys only: the object comes from JSON, and `constructor` must not find Object's.
  const override = Object.hasOwn(overrides, rule.entityType) ? overrides[rule.entityType] : undefined;
  if (!override) return rule;
  if (override.disable) return null;
  const masked = new Set(override.maskIdentities ?? []);
  return {
    ...rule,
    entityType: override.retargetEntityType ?? rule.entityType,
    autoCreate: override.autoCreate ?? rule.autoCreate,
    identities: rule.identities.filter((spec) => !masked.has(spec.namespace)),
  };
}

/**
 * The value at a dot path of the event (`payload_data.user.email`), or `undefined` when the path
 * does not lead anywhere. Through an array, a numeric segment indexes it and any other segment is
 * read on each element (`payload_data.assignees.login` gives every assignee's login).
 */
export function valueAt(root: unknown, path: string): unknown {
  return walk(root, path.split('.'));
}

function walk(value: unknown, segments: string[]): unknown {
  const [segment, ...rest] = segments;
  if (segment === undefined) return value;
  if (Array.isArray(value)) {
    if (/^\d+$/.test(segment)) return walk(value[Number(segment)], rest);
    return value.flatMap((element) => {
      const found = walk(element, segments);
      return found === undefined ? [] : [found];
    });
  }
  if (typeof value !== 'object' || value === null || value instanceof Date) return undefined;
  return Object.hasOwn(value, segment) ? walk((value as Record<string, unknown>)[segment], rest) : undefined;
}

/** What `prefer_non_empty` skips. */
export function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object' && !(value instanceof Date)) return Object.keys(value).length === 0;
  return false;
}

const titleOf = (value: unknown): string | null => {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  return text === '' ? null : text;
};

/**
 * Applies `rules` (after `overrides`) to one event: a claim per rule that stays enabled, and the
 * issues met on the way (a namespace the SDK does not know is the connector's bug, kept on the
 * event rather than failing the run).
 */
export function claimsOf(
  envelope: EventEnvelope,
  rules: EntityLinkRule[],
  overrides: EntityLinkOverrides,
): { claims: Claim[]; issues: LinkIssue[] } {
  const claims: Claim[] = [];
  const issues: LinkIssue[] = [];
  for (const declared of rules) {
    const rule = overridden(declared, overrides);
    if (!rule) continue;
    const identities = new Map<string, Claim['identities'][number]>();
    for (const spec of rule.identities) {
      const found = valueAt(envelope, spec.eventPath);
      for (const raw of [found].flat(Infinity)) {
        let value: string | null;
        try {
          value = normalizeIdentity(spec.namespace as IdentityNamespace | CustomIdentityNamespace, raw);
        } catch (error) {
          if (!(error instanceof RangeError)) throw error;
          issues.push({
            problem: 'unknown_namespace',
            entityType: rule.entityType,
            // A namespace the definition left undefined is said so, rather than dropped from the JSON.
            namespace: String(spec.namespace),
            message: error.message,
          });
          break;
        }
        if (value === null) continue;
        const key = JSON.stringify([spec.namespace, value]);
        const seen = identities.get(key);
        // Named twice, once to keep: it is kept.
        const matchOnly = (spec.matchOnly ?? false) && (seen?.matchOnly ?? true);
        identities.set(key, { namespace: spec.namespace, value, matchOnly });
      }
    }
    claims.push({
      entityType: rule.entityType,
      autoCreate: rule.autoCreate ?? false,
      title: rule.titlePath === undefined ? null : titleOf(valueAt(envelope, rule.titlePath)),
      identities: [...identities.values()],
      traits: Object.entries(rule.traits ?? {}).flatMap(([key, spec]) => {
        const value = valueAt(envelope, spec.eventPath);
        return value === undefined ? [] : [{ key, behavior: spec.behavior, value }];
      }),
    });
  }
  return { claims, issues };
}
