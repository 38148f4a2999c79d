/** Checks the harness makes on what a connector hands back, as the server will make them. */

import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { z } from 'zod';
import type { JsonSchema } from '../definition/types.js';
import { type EventEnvelope, eventEnvelopeSchema } from '../events/envelope.js';

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

export function checkEnvelopes(events: unknown, firstIndex: number): EventEnvelope[] {
  if (!Array.isArray(events)) {
    throw new EnvelopeError([{ index: firstIndex, field: '(batch)', message: 'events must be an array' }]);
  }
  const problems: EnvelopeProblem[] = [];
  events.forEach((event, i) => {
    const parsed = eventEnvelopeSchema.safeParse(event, { reportInput: true });
    if (parsed.success) return;
    for (const issue of parsed.error.issues) {
      const fields =
        issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.map(String).join('.') || '(envelope)'];
      for (const field of fields) {
        problems.push({ index: firstIndex + i, field, message: envelopeMessage(issue) });
      }
    }
  });
  if (problems.length > 0) throw new EnvelopeError(problems);
  return events as EventEnvelope[];
}

function envelopeMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return 'is not a field of EventEnvelope';
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    return issue.path[0] === 'score' ? 'must be between 0 and 100' : issue.message;
  }
  return issue.message;
}

const checkpointSchema = z.record(z.string(), z.unknown()).nullable();

/** The parts of a `SyncResult` besides its events, which `checkEnvelopes` numbers. */
export const syncResultShape = z.object({
  events: z.array(z.unknown()),
  checkpoint: checkpointSchema,
  auth_update: z.record(z.string(), z.unknown()).nullable().optional(),
  metadata: z
    .looseObject({ items_found: z.number().optional(), items_skipped: z.number().optional() })
    .optional(),
});

export const actionResultSchema = z.strictObject({
  success: z.boolean(),
  output: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
});

export { checkpointSchema };

const ajv = new Ajv2020({ allErrors: true, strict: false });
// `format` (uri, email, date-time) is what zod's builders emit for z.url(), z.email(), z.iso.datetime().
addFormats.default(ajv);
const compiled = new WeakMap<JsonSchema, ReturnType<typeof ajv.compile>>();

/** Problems of `value` against a JSON Schema, as `path: message` lines; empty when it conforms. */
export function schemaProblems(schema: JsonSchema, value: unknown): string[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map(describeAjvError);
}

function describeAjvError(error: ErrorObject): string {
  const where = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '';
  if (error.keyword === 'required') {
    const field = (error.params as { missingProperty: string }).missingProperty;
    return `${where ? `${where}.` : ''}${field}: is required`;
  }
  if (error.keyword === 'additionalProperties') {
    const field = (error.params as { additionalProperty: string }).additionalProperty;
    return `${where ? `${where}.` : ''}${field}: is not allowed`;
  }
  return `${where || '(value)'}: ${error.message ?? 'is invalid'}`;
}
