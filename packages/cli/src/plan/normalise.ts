/**
 * Comparison rules of a plan, so that only real differences show:
 * - key order never matters (objects compare by their sorted keys);
 * - an absent setting and `null` are the same: both mean "unset", and applying clears it;
 * - an absent description is `""`, as the server stores it; an absent platform name is `null`;
 * - `""` is a value: an empty IDENTITY.md file is not the same as no file.
 */
export function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value ?? null));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);
