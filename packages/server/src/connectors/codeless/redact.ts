/**
 * Every string value in `value` with each secret (and its percent-encoded form, as it appears in
 * a URL an upstream echoes) replaced by `[redacted]`. Keys stay: they are names an upstream chose.
 */
export function redact(value: unknown, secrets: readonly string[]): unknown {
  const forms = [...new Set(secrets.filter((s) => s.length >= 4).flatMap((s) => [s, encodeURIComponent(s)]))];
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string')
      return forms.reduce((text, form) => text.replaceAll(form, '[redacted]'), item);
    if (Array.isArray(item)) return item.map(walk);
    if (item && typeof item === 'object')
      return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, walk(v)]));
    return item;
  };
  return walk(value);
}
