/**
 * Which envelopes of a batch the server stores, and why it refuses the others: the SDK's checks
 * (fields, http(s) `source_url`, text it can store, size), then the feed's declared kinds and
 * their `metadataSchema`. The child sorts a batch before sending it, so that the connector's log
 * says why at once; the server sorts it again on arrival, since the child runs connector code.
 */
import { type EventEnvelope, envelopeProblems, normalizeEnvelope, schemaProblems } from '@svc/connector-sdk';
import type { RejectedItem, SyncTask } from './protocol.js';

export function sortEnvelopes(
  events: unknown,
  kinds: SyncTask['eventKinds'],
): { events: EventEnvelope[]; rejected: RejectedItem[] } {
  if (!Array.isArray(events)) throw new Error('emitted events must be an array of event envelopes');
  const sound: EventEnvelope[] = [];
  const rejected: RejectedItem[] = [];
  for (const event of events) {
    const originId =
      typeof (event as EventEnvelope)?.origin_id === 'string'
        ? detached((event as EventEnvelope).origin_id, 500)
        : null;
    const problems = envelopeProblems(event).map((p) => `${p.field}: ${p.message}`);
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
  return { events: sound, rejected };
}

/**
 * The first `max` characters of `text` as a string of its own: a slice of a long string keeps the
 * whole of it alive, and what the server keeps of a run must not hold a 15 MB message.
 */
export function detached(text: string, max: number): string {
  return text.length <= max ? text : Buffer.from(text.slice(0, max), 'utf8').toString('utf8');
}
