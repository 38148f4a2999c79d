/**
 * zod schemas of what crosses between a connector's process and the worker: credentials in,
 * results out. The wire format is these types themselves (DESIGN.md section 10).
 */

import { z } from 'zod';
import { eventEnvelopeSchema } from '../events/envelope.js';

const record = z.record(z.string(), z.unknown());

export const checkpointSchema = record.nullable();

export const syncCredentialsSchema = z.strictObject({
  provider: z.string().min(1),
  accessToken: z.string().min(1),
  refreshToken: z.string().nullable().optional(),
  expiresAt: z.string().nullable().optional(),
  scope: z.string().nullable().optional(),
});

export const syncResultSchema = z.strictObject({
  events: z.array(eventEnvelopeSchema),
  checkpoint: checkpointSchema,
  auth_update: record.nullable().optional(),
  metadata: z
    .looseObject({ items_found: z.number().optional(), items_skipped: z.number().optional() })
    .optional(),
});

export const actionResultSchema = z.strictObject({
  success: z.boolean(),
  output: record.optional(),
  error: z.string().optional(),
});
