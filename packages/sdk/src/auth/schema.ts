/** zod schemas of what an `authenticate` hands over a process boundary: artifacts and its result. */

import { z } from 'zod';

const optionalText = z.string().optional();

export const authArtifactSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('qr'),
      value: z.string(),
      expiresAt: optionalText,
      instructions: optionalText,
    }),
    z.strictObject({
      type: z.literal('code'),
      value: z.string(),
      expiresAt: optionalText,
      instructions: optionalText,
    }),
    z.strictObject({
      type: z.literal('redirect'),
      url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
      mode: z.enum(['popup', 'same-tab']),
      awaitSignal: z.string().min(1),
      instructions: optionalText,
    }),
    z.strictObject({
      type: z.literal('prompt'),
      fields: z
        .array(
          z.strictObject({
            key: z.string().min(1),
            label: z.string(),
            kind: z.enum(['text', 'password', 'otp']),
            required: z.boolean().optional(),
          }),
        )
        .min(1, 'a prompt needs at least one field'),
      submitSignal: z.string().min(1),
      instructions: optionalText,
    }),
    z.strictObject({ type: z.literal('status'), message: z.string() }),
  ],
  { error: 'type must be one of qr, code, redirect, prompt, status' },
);

export const authResultSchema = z.strictObject({
  credentials: z.record(z.string(), z.unknown()),
  metadata: z
    .looseObject({
      account_id: z.string().optional(),
      display_name: z.string().optional(),
      expires_at: z.string().optional(),
    })
    .optional(),
});
