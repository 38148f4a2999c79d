/** Telling a Lobu reference (`$NAME`) from a value, and naming the variables the import adds. */

const WHOLE = /^\$(?:([A-Z_][A-Z0-9_]*)|\{([A-Z_][A-Z0-9_]*)\})$/;
const INSIDE = /\$(?:[A-Z_][A-Z0-9_]*|\{[A-Z_][A-Z0-9_]*\})/;

/** The variable of a value that is one whole reference, else null. */
export function wholeReference(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = WHOLE.exec(value.trim());
  return match ? ((match[1] ?? match[2]) as string) : null;
}

/** True when the string holds a reference somewhere (`Bearer $TOKEN`). */
export const holdsReference = (value: string): boolean => INSIDE.test(value);

/** `ACME_BOT_TOKEN` from `acme`, `bot-token`: upper case, anything else an underscore. */
export function variableName(...parts: string[]): string {
  const name = parts
    .filter((p) => p !== '')
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[A-Z_]/.test(name) ? name : `_${name}`;
}

/** Names of keys whose values are credentials: a literal there is a secret, never copied. */
export const looksSecret = (key: string): boolean =>
  /(token|secret|password|passwd|api[_-]?key|apikey|authorization|credential|private)/i.test(key);
