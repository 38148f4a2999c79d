/**
 * The spec's "Interactive auth types" as the server takes them from a connector's child: every
 * artifact `authenticate(ctx)` emits and its result are checked here, in the parent, before
 * anything is kept (DESIGN.md section 10, layer 3: the child may send anything). Strict shapes
 * (no unknown field), bounded strings, and a cap on the whole as JSON.
 */
import {
  type AuthArtifact,
  authArtifactSchema as sdkArtifactSchema,
  authResultSchema as sdkResultSchema,
} from '@svc/connector-sdk';

/** The largest artifact kept, as JSON: a QR payload, a URL and some words, not data. */
export const MAX_ARTIFACT_BYTES = 16 * 1024;
/** The largest AuthResult taken (its credentials and metadata), as JSON. */
export const MAX_AUTH_RESULT_BYTES = 64 * 1024;
/** The largest signal body taken (what the UI posts for `awaitSignal`), as JSON. */
export const MAX_SIGNAL_BYTES = 16 * 1024;
/** Signal names: what a connector names in `awaitSignal`, `submitSignal`, a redirect's `awaitSignal`. */
export const SIGNAL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The SDK's own artifact schema (the checks a connector's author gets from the SDK), then the
 * server's bounds: the whole at most MAX_ARTIFACT_BYTES, at most 20 prompt fields, and signal names
 * that a URL path carries as they are (`POST /auth-runs/:runId/signals/:name`).
 */
export const authArtifactSchema = sdkArtifactSchema
  .refine(
    (artifact) => Buffer.byteLength(JSON.stringify(artifact)) <= MAX_ARTIFACT_BYTES,
    `an artifact may be at most ${MAX_ARTIFACT_BYTES / 1024} KB as JSON`,
  )
  .refine((artifact) => artifact.type !== 'prompt' || artifact.fields.length <= 20, {
    message: 'a prompt may ask at most 20 fields',
    path: ['fields'],
  })
  .refine(
    (artifact) =>
      (artifact.type !== 'prompt' || SIGNAL_NAME.test(artifact.submitSignal)) &&
      (artifact.type !== 'redirect' || SIGNAL_NAME.test(artifact.awaitSignal)),
    {
      message:
        'a signal name is 1 to 64 letters, digits, _ . - (it is part of the URL the answer is posted to)',
      path: ['signal'],
    },
  )
  .describe(
    "the spec's AuthArtifact: what the user is shown now (a QR code, a code, a link, a form, a status)",
  );

/** The SDK's AuthResult schema, at most MAX_AUTH_RESULT_BYTES as JSON, with some credentials. */
export const authResultSchema = sdkResultSchema
  .refine(
    (result) => Buffer.byteLength(JSON.stringify(result)) <= MAX_AUTH_RESULT_BYTES,
    `an AuthResult may be at most ${MAX_AUTH_RESULT_BYTES / 1024} KB as JSON`,
  )
  .refine((result) => Object.keys(result.credentials).length > 0, 'its credentials are empty');

/** The artifact as the server keeps it, or why not (a sentence naming the field). */
export function checkArtifact(raw: unknown): AuthArtifact | Error {
  // Bounded before it is parsed: a 100 MB artifact costs a length, not a walk.
  if (Buffer.byteLength(JSON.stringify(raw) ?? '') > MAX_ARTIFACT_BYTES) {
    return new Error(
      `the connector emitted an artifact the server does not take (artifact: an artifact may be at most ${MAX_ARTIFACT_BYTES / 1024} KB as JSON)`,
    );
  }
  const parsed = authArtifactSchema.safeParse(raw);
  if (parsed.success) return parsed.data as AuthArtifact;
  const issue = parsed.error.issues[0];
  return new Error(
    `the connector emitted an artifact the server does not take (${issue?.path.join('.') || 'artifact'}: ${issue?.message})`,
  );
}
