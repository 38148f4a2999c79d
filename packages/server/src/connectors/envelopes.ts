/**
 * Which envelopes of a batch the server stores, and why it refuses the others: the SDK's checks
 * (fields, http(s) `source_url`, text it can store, size, identity namespaces), then the feed's
 * declared kinds and their `metadataSchema`. An Owletto-era envelope (`external_id`, `content`,
 * ...) is read as the spec's first, as the SDK's harness reads it (`owletto` names the fields, for
 * the run's log). The child sorts a batch before sending it, so that the connector's log says why
 * at once; the server sorts it again on arrival, since the child runs connector code.
 */
import {
  type EventEnvelope,
  normalizeEnvelope,
  type OwlettoField,
  readEnvelope,
  schemaProblems,
} from '@svc/connector-sdk';
import type { RejectedItem, SyncTask } from './protocol.js';

export function sortEnvelopes(
  events: unknown,
  kinds: SyncTask['eventKinds'],
): { events: EventEnvelope[]; rejected: RejectedItem[]; owletto: OwlettoField[] } {
  if (!Array.isArray(events)) throw new Error('emitted events must be an array of event envelopes');
  const sound: EventEnvelope[] = [];
  const rejected: RejectedItem[] = [];
  const owletto = new Set<OwlettoField>();
  for (const given of events) {
    const read = readEnvelope(given);
    const event = read.event;
    const originId =
      typeof (event as EventEnvelope)?.origin_id === 'string'
        ? detached((event as EventEnvelope).origin_id, 500)
        : null;
    const problems = read.problems.map((p) => `${p.field}: ${p.message}`);
    if (problems.length === 0) for (const field of read.owletto) owletto.add(field);
    if (problems.length === 0 && kinds) {
      const envelope = event as EventEnvelope;
      const kind = envelope.origin_type ?? envelope.semantic_type;
      const declared = kind === undefined || !Object.hasOwn(kinds, kind) ? undefined : kinds[kind];
      if (!declared) {
        problems.push(
          `kind "${detached(String(kind ?? '(none)'), 200)}" (origin_type, else semantic_type) is not one of the feed's eventKinds: ${Object.keys(kinds).join(', ')}`,
        );
      } else if (declared.metadataSchema) {
        problems.push(
          ...schemaProblems(declared.metadataSchema, envelope.metadata ?? {}).map((p) => `metadata.${p}`),
        );
      }
    }
    if (problems.length > 0)
      rejected.push({ origin_id: originId, reason: detached(problems.join('; '), 2000) });
    else sound.push(normalizeEnvelope(event as EventEnvelope));
  }
  return { events: sound, rejected, owletto: [...owletto] };
}

/**
 * The first `max` characters of `text` as a string of its own: a slice of a long string keeps the
 * whole of it alive, and what the server keeps of a run must not hold a 15 MB message.
 */
export function detached(text: string, max: number): string {
  return text.length <= max ? text : Buffer.from(text.slice(0, max), 'utf8').toString('utf8');
}
