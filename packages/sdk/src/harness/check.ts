/** Checks the harness makes on what a connector hands back, as the server will make them. */

import { z } from 'zod';
import { type EventEnvelope, eventEnvelopeSchema, normalizeEnvelope } from '../events/envelope.js';
import { fromOwlettoEnvelope, type OwlettoField } from '../events/owletto.js';
import { identityNamespaceProblem } from '../identity/namespaces.js';
import { syncResultSchema } from '../runtime/schema.js';

export interface EnvelopeProblem {
  /** The envelope's position among all the run's events, in the order they arrived. */
  index: number;
  /** The field at fault, e.g. `payload_text` or `score`. */
  field: string;
  message: string;
}

/** A sync handed over envelopes the server would refuse; the message names each index and field. */
export class EnvelopeError extends Error {
  constructor(readonly problems: EnvelopeProblem[]) {
    super(
      [
        `${problems.length === 1 ? 'an event envelope is' : 'event envelopes are'} invalid:`,
        ...problems.map((p) => `  events[${p.index}].${p.field}: ${p.message}`),
      ].join('\n'),
    );
    this.name = 'EnvelopeError';
  }
}

/**
 * The batch's envelopes as the server stores them, Owletto-era ones mapped to the spec's fields
 * (`onOwletto` hears which fields were); throws an `EnvelopeError` naming every problem.
 */
export function checkEnvelopes(
  events: unknown,
  firstIndex: number,
  onOwletto?: (fields: OwlettoField[]) => void,
): EventEnvelope[] {
  if (!Array.isArray(events)) {
    throw new EnvelopeError([{ index: firstIndex, field: '(batch)', message: 'events must be an array' }]);
  }
  const read = events.map(readEnvelope);
  const problems = read.flatMap((envelope, i) =>
    envelope.problems.map((p) => ({ index: firstIndex + i, ...p })),
  );
  if (problems.length > 0) throw new EnvelopeError(problems);
  const owletto = [...new Set(read.flatMap((envelope) => envelope.owletto))];
  if (owletto.length > 0) onOwletto?.(owletto);
  return read.map((envelope) => normalizeEnvelope(envelope.event as EventEnvelope));
}

/**
 * One envelope as a sync handed it over, read the way the server reads it: an Owletto-era one
 * mapped to the spec's fields first (`owletto` names those it had), then checked.
 */
export function readEnvelope(event: unknown): {
  event: unknown;
  owletto: OwlettoField[];
  problems: { field: string; message: string }[];
} {
  const mapping = fromOwlettoEnvelope(event);
  if (mapping.problems.length > 0) return { event, owletto: [], problems: mapping.problems };
  const problems = envelopeProblems(mapping.event);
  if (mapping.mapped.length > 0) {
    // A field that is neither the spec's nor Owletto's has nowhere to go: say so in those words.
    for (const problem of problems) {
      if (problem.message === 'is not a field of EventEnvelope')
        problem.message = `is not a field of EventEnvelope, nor one of the Owletto-era fields mapped to it; put it in metadata`;
    }
  }
  return { event: mapping.event, owletto: mapping.mapped, problems };
}

/** The largest event the server stores, as JSON: a feed's item, not a file. */
export const MAX_ENVELOPE_BYTES = 1024 * 1024;

/**
 * What the server would refuse in one envelope, field by field; empty when it is sound. The server's
 * worker checks each envelope with it, so that one bad item is rejected rather than its batch.
 */
export function envelopeProblems(event: unknown): { field: string; message: string }[] {
  const parsed = eventEnvelopeSchema.safeParse(event, { reportInput: true });
  if (parsed.success) {
    // occurred_at may be a Date (it is sent as its ISO text); anything else must be JSON already.
    const normalized = normalizeEnvelope(event as EventEnvelope);
    const wire = wireProblem(normalized);
    if (wire) return [{ field: wire.path, message: wire.message }];
    const identities = identityProblems(normalized);
    if (identities.length > 0) return identities;
    const bytes = Buffer.byteLength(JSON.stringify(normalized), 'utf8');
    return bytes > MAX_ENVELOPE_BYTES
      ? [
          {
            field: '(envelope)',
            message: `is ${bytes} bytes as JSON, over the ${MAX_ENVELOPE_BYTES} an event may be; keep large content out of the event (link to it with source_url)`,
          },
        ]
      : [];
  }
  return parsed.error.issues.flatMap((issue) => {
    const fields =
      issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.map(String).join('.') || '(envelope)'];
    return fields.map((field) => ({ field, message: envelopeMessage(issue, event) }));
  });
}

/**
 * Identities an envelope carries for the server to link, as Lobu's connectors write them into
 * `metadata` or `payload_data` (`identities: [{ namespace, identifier }]`, `identity: {...}`): each
 * namespace must be one there is. One written as an `IDENTITY` name this SDK lacks is `undefined`
 * (`{ namespace: undefined, ... }` here, and with no `namespace` at all once sent as JSON): stored,
 * it would be an identity under no namespace, so the envelope is refused, naming the field.
 */
function identityProblems(envelope: EventEnvelope): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  const visit = (value: unknown, path: string, inIdentities: boolean, depth: number) => {
    if (depth > 8 || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) visit(item, `${path}[${i}]`, inIdentities, depth + 1);
      return;
    }
    const object = value as Record<string, unknown>;
    const isIdentity =
      Object.hasOwn(object, 'identifier') && (Object.hasOwn(object, 'namespace') || inIdentities);
    if (isIdentity) {
      const problem = identityNamespaceProblem(object.namespace);
      if (problem) problems.push({ field: `${path}.namespace`, message: problem });
      return;
    }
    for (const [key, item] of Object.entries(object))
      visit(item, `${path}.${key}`, key === 'identities', depth + 1);
  };
  visit(envelope.metadata, 'metadata', false, 0);
  visit(envelope.payload_data, 'payload_data', false, 0);
  return problems;
}

function envelopeMessage(issue: z.core.$ZodIssue, event: unknown): string {
  if (issue.code === 'unrecognized_keys') return 'is not a field of EventEnvelope';
  // A union (occurred_at: text or Date) does not report its input: the envelope says what was there.
  const given = issue.path.length === 1 ? (event as Record<string, unknown>)?.[String(issue.path[0])] : null;
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && given === undefined)
    return 'is required';
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    return issue.path[0] === 'score' ? 'must be between 0 and 100' : issue.message;
  }
  return issue.message;
}

/** The parts of a `SyncResult` besides its events, which `checkEnvelopes` numbers. */
export const syncResultShape = syncResultSchema.extend({ events: z.array(z.unknown()) });

// Half of a UTF-16 surrogate pair: what is left of an emoji cut through by a text's truncation.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored by the server (PostgreSQL text and jsonb), or null. */
function textProblem(text: string): string | null {
  if (text.includes('\u0000'))
    return 'contains a NUL character (\\u0000), which the server cannot store; remove it';
  if (LONE_SURROGATE.test(text))
    return 'contains half of a UTF-16 surrogate pair (text cut through an emoji?), which the server cannot store; cut on whole characters';
  return null;
}

/**
 * Where `value` holds something JSON would change on the way to the server: a Date (becomes a
 * string), a BigInt (throws), NaN or Infinity (become null), a Map, a class instance, a function;
 * or text the server cannot store (a NUL character, half of a surrogate pair). `undefined` is
 * allowed: JSON leaves the key out, which is what an absent optional field is.
 */
export function wireProblem(value: unknown, path = ''): { path: string; message: string } | null {
  const problem = (message: string) => ({ path: path || '(value)', message });
  if (typeof value === 'string') {
    const why = textProblem(value);
    return why ? problem(why) : null;
  }
  if (value === null || value === undefined || typeof value === 'boolean') return null;
  if (typeof value === 'number')
    return Number.isFinite(value) ? null : problem(`${value} is not a JSON number`);
  if (typeof value === 'bigint') return problem('a BigInt cannot be sent as JSON; use a string or a number');
  if (typeof value !== 'object') return problem(`a ${typeof value} cannot be sent as JSON`);
  if (value instanceof Date) return problem('a Date would arrive as a string; pass date.toISOString()');
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = wireProblem(item, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    return problem(
      `a ${value.constructor?.name ?? 'class instance'} cannot be sent as JSON; use a plain object`,
    );
  }
  for (const [key, item] of Object.entries(value)) {
    const found = wireProblem(item, path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return null;
}

/** `wireProblem` as one line, for the harness's errors. */
export function notWireSafe(value: unknown, path: string): string | null {
  const found = wireProblem(value, path);
  return found ? `${found.path}: ${found.message}` : null;
}
