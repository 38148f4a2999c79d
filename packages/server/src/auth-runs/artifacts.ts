/**
 * The spec's "Interactive auth types" as the server takes them from a connector's child: every
 * artifact `authenticate(ctx)` emits and its result are checked here, in the parent, before
 * anything is kept (DESIGN.md section 10, layer 3: the child may send anything). Strict shapes
 * (no unknown field), bounded strings, and a cap on the whole as JSON.
 */
import type { AuthArtifact } from '@svc/connector-sdk';
import { z } from 'zod';

/** The largest artifact kept, as JSON: a QR payload, a URL and some words, not data. */
export const MAX_ARTIFACT_BYTES = 16 * 1024;
/** The largest AuthResult taken (its credentials and metadata), as JSON. */
export const MAX_AUTH_RESULT_BYTES = 64 * 1024;
/** The largest signal body taken (what the UI posts for `awaitSignal`), as JSON. */
export const MAX_SIGNAL_BYTES = 16 * 1024;
/** Signal names: what a connector names in `awaitSignal`, `submitSignal`, a redirect's `awaitSignal`. */
export const SIGNAL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const text = (max: number) => z.string().min(1).max(max);
const instructions = z.string().max(2000).optional();
const expiresAt = z.iso.datetime({ offset: true }).optional();
const signalName = z.string().regex(SIGNAL_NAME, 'a signal name: 1 to 64 letters, digits, _ . -');

export const authArtifactSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('qr'), value: text(4096), expiresAt, instructions }),
    z.strictObject({ type: z.literal('code'), value: text(256), expiresAt, instructions }),
    z.strictObject({
      type: z.literal('redirect'),
      url: z
        .url({ protocol: /^https?$/ })
        .max(4096)
        .describe('an http(s) URL to open'),
      mode: z.enum(['popup', 'same-tab']),
      awaitSignal: signalName,
      instructions,
    }),
    z.strictObject({
      type: z.literal('prompt'),
      fields: z
        .array(
          z.strictObject({
            key: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a field key: 1 to 64 letters, digits, _ . -'),
            label: text(200),
            kind: z.enum(['text', 'password', 'otp']),
            required: z.boolean().optional(),
          }),
        )
        .min(1)
        .max(20),
      submitSignal: signalName,
      instructions,
    }),
    z.strictObject({ type: z.literal('status'), message: text(2000) }),
  ])
  .refine(
    (artifact) => Buffer.byteLength(JSON.stringify(artifact)) <= MAX_ARTIFACT_BYTES,
    `an artifact may be at most ${MAX_ARTIFACT_BYTES / 1024} KB as JSON`,
  )
  .describe(
    "the spec's AuthArtifact: what the user is shown now (a QR code, a code, a link, a form, a status)",
  );

export const authResultSchema = z
  .object({
    credentials: z.record(z.string(), z.unknown()),
    metadata: z
      .object({
        account_id: z.string().max(500).optional(),
        display_name: z.string().max(500).optional(),
        expires_at: z.string().max(100).optional(),
      })
      .loose()
      .nullish(),
  })
  .refine(
    (result) => Buffer.byteLength(JSON.stringify(result)) <= MAX_AUTH_RESULT_BYTES,
    `an AuthResult may be at most ${MAX_AUTH_RESULT_BYTES / 1024} KB as JSON`,
  )
  .refine((result) => Object.keys(result.credentials).length > 0, 'its credentials are empty');

/** The artifact as the server keeps it, or why not (a sentence naming the field). */
export function checkArtifact(raw: unknown): AuthArtifact | Error {
  const parsed = authArtifactSchema.safeParse(raw);
  if (parsed.success) return parsed.data as AuthArtifact;
  const issue = parsed.error.issues[0];
  return new Error(
    `the connector emitted an artifact the server does not take (${issue?.path.join('.') || 'artifact'}: ${issue?.message})`,
  );
}
