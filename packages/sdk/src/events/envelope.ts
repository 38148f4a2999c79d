/** The spec's "Event envelope": what a sync emits; each one becomes one row in `events`. */

import { z } from 'zod';

export const PAYLOAD_TYPES = ['text', 'markdown', 'json_template', 'media', 'empty'] as const;
export type PayloadType = (typeof PAYLOAD_TYPES)[number];

export interface EventEnvelope {
  /** The platform's unique ID for the item; a re-sync of the same item updates its row. */
  origin_id: string;
  /** The source-native item type; see `SOURCE_NATIVE_EVENT_TYPES`. */
  origin_type?: string;
  payload_type?: PayloadType;
  /** The main content. */
  payload_text: string;
  payload_data?: Record<string, unknown>;
  payload_template?: Record<string, unknown> | null;
  attachments?: unknown[];
  title?: string;
  author_name?: string;
  source_url?: string;
  /**
   * When it happened: an ISO 8601 date-time with a zone (`2026-11-23T09:00:00Z`), or a `Date`
   * (stored as its ISO 8601 text), as connectors written for other SDKs pass it.
   */
  occurred_at: string | Date;
  /** For example `content`, `note`, `summary`, `fact`. */
  semantic_type?: string;
  /** Engagement, 0 to 100; see `calculateEngagementScore`. */
  score?: number;
  origin_parent_id?: string;
  metadata?: Record<string, unknown>;
  /** A pre-computed embedding. */
  embedding?: number[];
}

const record = z.record(z.string(), z.unknown());

/** Strict: a misspelt field is an error rather than data silently dropped on the way to the server. */
export const eventEnvelopeSchema = z.strictObject({
  origin_id: z.string().trim().min(1, 'must be a non-empty string'),
  origin_type: z.string().optional(),
  payload_type: z.enum(PAYLOAD_TYPES).optional(),
  payload_text: z.string(),
  payload_data: record.optional(),
  payload_template: record.nullable().optional(),
  attachments: z.array(z.unknown()).optional(),
  title: z.string().optional(),
  author_name: z.string().optional(),
  // A link people will click in the UI: an absolute http(s) URL, never `javascript:`.
  source_url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).optional(),
  occurred_at: z.union(
    [
      z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone (or a Date)' }),
      z.date(),
    ],
    {
      error: (issue) =>
        issue.input instanceof Date
          ? 'is an Invalid Date (new Date() of something that is not a date)'
          : 'must be an ISO 8601 date-time with a zone, or a Date',
    },
  ),
  semantic_type: z.string().optional(),
  score: z.number().min(0).max(100).optional(),
  origin_parent_id: z.string().optional(),
  metadata: record.optional(),
  embedding: z.array(z.number()).optional(),
});

/** The envelope as it is sent and stored: `occurred_at` as ISO 8601 text, whatever was passed. */
export function normalizeEnvelope(envelope: EventEnvelope): EventEnvelope & { occurred_at: string } {
  const { occurred_at } = envelope;
  return { ...envelope, occurred_at: occurred_at instanceof Date ? occurred_at.toISOString() : occurred_at };
}
