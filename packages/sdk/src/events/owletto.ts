/**
 * The envelope connectors wrote for Owletto, Lobu's predecessor (`external_id`, `content`,
 * `published_at`, ...), read as the spec's `EventEnvelope`. Every Owletto field has a spec field
 * that means the same, so such an envelope is mapped (with a warning in the run's log naming the
 * mapping) rather than refused: its connector syncs unchanged. An envelope that has both names of
 * one field (`external_id` and `origin_id`) is refused, naming both, since which one is meant
 * cannot be told.
 */

/** Owletto's field, and the spec's field it is stored as. */
export const OWLETTO_ENVELOPE_FIELDS = {
  external_id: 'origin_id',
  content: 'payload_text',
  published_at: 'occurred_at',
  url: 'source_url',
  author: 'author_name',
  kind: 'origin_type',
  parent_external_id: 'origin_parent_id',
} as const;

export type OwlettoField = keyof typeof OWLETTO_ENVELOPE_FIELDS;

const OWLETTO_FIELDS = Object.keys(OWLETTO_ENVELOPE_FIELDS) as OwlettoField[];

export interface OwlettoMapping {
  /** The envelope with the spec's names; the input itself when it had no Owletto field. */
  event: unknown;
  /** The Owletto fields it had, mapped: empty for a spec envelope. */
  mapped: OwlettoField[];
  problems: { field: string; message: string }[];
}

/** The mapping as the run's log says it: `external_id → origin_id, content → payload_text`. */
export function describeOwlettoMapping(fields: Iterable<OwlettoField>): string {
  return [...fields].map((field) => `${field} → ${OWLETTO_ENVELOPE_FIELDS[field]}`).join(', ');
}

/** The warning a run's log carries once for the Owletto fields its events had. */
export function owlettoWarning(fields: Iterable<OwlettoField>): string {
  return (
    `events use the Owletto-era envelope; mapped to the spec's fields: ${describeOwlettoMapping(fields)}. ` +
    'Rename them in the connector: this mapping is for connectors written before the spec'
  );
}

export function fromOwlettoEnvelope(event: unknown): OwlettoMapping {
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    return { event, mapped: [], problems: [] };
  const source = event as Record<string, unknown>;
  // `undefined` is an absent field, as JSON has it: `parent_external_id: undefined` maps nothing.
  const present = OWLETTO_FIELDS.filter((field) => Object.hasOwn(source, field));
  if (present.length === 0) return { event, mapped: [], problems: [] };
  const problems = present
    .filter((field) => source[OWLETTO_ENVELOPE_FIELDS[field]] !== undefined && source[field] !== undefined)
    .map((field) => ({
      field,
      message: `is the Owletto-era name of ${OWLETTO_ENVELOPE_FIELDS[field]}, which this envelope has too: keep only ${OWLETTO_ENVELOPE_FIELDS[field]}`,
    }));
  if (problems.length > 0) return { event, mapped: [], problems };
  const mapped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    const spec = (OWLETTO_ENVELOPE_FIELDS as Record<string, string>)[key];
    if (spec === undefined) mapped[key] = value;
    else if (value !== undefined) mapped[spec] = value;
  }
  return { event: mapped, mapped: present.filter((field) => source[field] !== undefined), problems };
}
