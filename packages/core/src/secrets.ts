import { z } from 'zod';

/**
 * Secret references (DESIGN.md section 6): `$NAME` or `${NAME}`, as a whole value or inside a string.
 * Values never travel; only the reference text does.
 */
const REFERENCE = /\$\{([A-Z_][A-Z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)/g;

export interface SecretReference {
  /** The variable's name, e.g. `SLACK_BOT_TOKEN`. */
  variable: string;
  /** JSON Pointer of the value that holds the reference, relative to the object searched. */
  path: string;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A value that is one reference and nothing else, as a secret must be: `$NAME` or `${NAME}`. */
export const WHOLE_SECRET_REFERENCE = /^\$(\{[A-Z_][A-Z0-9_]*\}|[A-Z_][A-Z0-9_]*)$/;

export function isSecretReference(value: unknown): value is string {
  return typeof value === 'string' && WHOLE_SECRET_REFERENCE.test(value);
}

/** Every reference inside every string of `value`, depth first, in key order. */
export function findSecretReferences(value: unknown, path = ''): SecretReference[] {
  if (typeof value === 'string') {
    return [...value.matchAll(REFERENCE)].map((m) => ({ variable: (m[1] ?? m[2]) as string, path }));
  }
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => findSecretReferences(item, `${path}/${i}`));
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => findSecretReferences(v, `${path}/${escapePointer(k)}`));
  }
  return [];
}

/** Replaces every reference with its value from `env`; throws naming the first unset variable. */
export function resolveSecretReferences(text: string, env: Record<string, string | undefined>): string {
  return text.replace(REFERENCE, (_all, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare) as string;
    const value = env[name];
    if (value === undefined || value === '') throw new Error(`environment variable ${name} is not set`);
    return value;
  });
}

/** The form of a reference's name, and of an org secret's name. */
export const SECRET_NAME_PATTERN = /^[A-Z_][A-Z0-9_]*$/;

/**
 * The server's own settings, which no reference may name (DESIGN.md section 6): resolved into an
 * outbound call an org controls, `$SVC_ADMIN_PASSWORD` or `$DATABASE_URL` would leave the server.
 */
export function isReservedSecretName(name: string): boolean {
  return /^(SVC_|PG|NODE_)/.test(name) || name === 'DATABASE_URL';
}

export const RESERVED_SECRET_RULE =
  "names starting with SVC_, PG or NODE_, and DATABASE_URL, are the server's own settings and cannot be referenced";

// ---- org secrets (PUT/GET/DELETE /api/:org/secrets) --------------------------------------------

/** Values up to 64 KiB: enough for a PEM key or a service account's JSON, not for a file store. */
export const SECRET_VALUE_MAX_CHARS = 65_536;

export const secretNameSchema = z
  .string()
  .max(200)
  .regex(SECRET_NAME_PATTERN, { message: 'must be a variable name such as OPENAI_API_KEY (A-Z, 0-9, _)' });

export const secretPutSchema = z.strictObject({
  value: z.string().min(1, { message: 'must not be empty' }).max(SECRET_VALUE_MAX_CHARS),
});

/** What the API tells about a secret: never its value. */
export const secretSchema = z.object({
  name: z.string(),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
});
export type Secret = z.infer<typeof secretSchema>;
