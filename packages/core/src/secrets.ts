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
