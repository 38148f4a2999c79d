export const REDACTED = '[redacted]';

/**
 * Keys whose values are credentials whatever they look like. Compared without case, `-` or `_`, so
 * that `Set-Cookie`, `access_token` and the spec's own `accessToken` all match.
 */
const SENSITIVE_KEYS = new Set(
  [
    'authorization',
    'proxy-authorization',
    'cookie',
    'set-cookie',
    'x-api-key',
    'api_key',
    'password',
    'token',
    'access_token',
    'refresh_token',
    'id_token',
    'client_secret',
  ].map(normalizeKey),
);

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

/** `apiToken`, `x-auth-token`, `privateToken`, `webhook_secret`...; not `tokenCount`. */
const SENSITIVE_ENDINGS = ['token', 'secret', 'password', 'apikey', 'cookie'];

export const isSensitiveKey = (key: string): boolean => {
  const normal = normalizeKey(key);
  return SENSITIVE_KEYS.has(normal) || SENSITIVE_ENDINGS.some((end) => normal.endsWith(end));
};

/** Credentials written into text rather than fields: a header line, a token in a URL's query. */
const SECRET_IN_TEXT = [
  /\b((?:proxy-)?authorization\s*[:=]\s*)(?:(?:bearer|basic|token)\s+)?[^\s,;'"]+/gi,
  /([?&#](?:access_token|refresh_token|id_token|token|api_key|apikey|key|password|secret|client_secret|sig|signature)=)[^&#\s'"]+/gi,
];

// Log entries are kept in memory for the run record; one logged response body must not fill it.
const MAX_STRING = 8192;
const MAX_DEPTH = 10;

/**
 * A function that turns any value into a JSON-safe copy with credentials removed: every occurrence
 * of a secret, also inside longer strings (URLs, messages, stacks), and every value under a
 * sensitive key (see `isSensitiveKey`), at any depth, including Headers and header arrays.
 * Errors become `{ name, message, stack, ...own fields, cause }`.
 */
export interface Redactor {
  (value: unknown): unknown;
  /** More values to hide from now on: a token that rotated during the run, say. */
  addSecrets(secrets: readonly unknown[]): void;
}

export function createRedactor(secrets: readonly string[] = []): Redactor {
  let ordered: string[] = [];
  const addSecrets = (more: readonly unknown[]) => {
    const strings = more.filter((s): s is string => typeof s === 'string' && s !== '');
    // Longest first, so that a secret containing another is replaced whole.
    ordered = [...new Set([...ordered, ...strings])].sort((a, b) => b.length - a.length);
  };
  addSecrets(secrets);
  const redactText = (text: string) =>
    SECRET_IN_TEXT.reduce(
      (out, pattern) => out.replace(pattern, `$1${REDACTED}`),
      ordered.reduce((out, secret) => out.replaceAll(secret, REDACTED), text),
    );
  const cut = (text: string) =>
    text.length > MAX_STRING
      ? `${text.slice(0, MAX_STRING)}… [${text.length - MAX_STRING} more characters]`
      : text;

  const walk = (value: unknown, depth: number, ancestors: object[]): unknown => {
    switch (typeof value) {
      case 'string':
        // Redact before cutting: a cut could leave part of a secret that no longer matches.
        return cut(redactText(value));
      case 'number':
      case 'bigint': {
        const text = String(value);
        if (redactText(text) !== text) return REDACTED;
        return typeof value === 'bigint' ? text : value;
      }
      case 'symbol':
        return redactText(String(value));
      case 'function':
        return `[function ${value.name || 'anonymous'}]`;
      case 'object':
        break;
      default:
        return value;
    }
    if (value === null) return null;
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
    if (value instanceof URL) return cut(redactText(value.href));
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
    if (ancestors.includes(value)) return '[circular]';
    if (depth >= MAX_DEPTH) return '[too deep]';
    const inner = [...ancestors, value];

    if (value instanceof Error) return walkError(value, depth, inner);
    if (value instanceof Headers) return walkEntries([...value], depth, inner);
    if (value instanceof Map)
      return walkEntries(
        [...value].map(([k, v]) => [String(k), v]),
        depth,
        inner,
      );
    if (value instanceof Set) return [...value].map((item) => walk(item, depth + 1, inner));
    if (Array.isArray(value)) return walkArray(value, depth, inner);
    return walkEntries(Object.entries(value), depth, inner);
  };

  const walkEntries = (entries: [string, unknown][], depth: number, ancestors: object[]) => {
    const out: Record<string, unknown> = {};
    for (const [key, item] of entries) {
      const safeKey = redactText(key);
      // null and empty stay visible: "the token is missing" is worth seeing and gives nothing away.
      out[safeKey] =
        isSensitiveKey(key) && item != null && item !== '' ? REDACTED : walk(item, depth + 1, ancestors);
    }
    return out;
  };

  // Header lists come as [name, value] pairs (fetch's HeadersInit) or flat, as in Node's rawHeaders.
  const walkArray = (items: unknown[], depth: number, ancestors: object[]) => {
    const headerList = items.length % 2 === 0 && items.every((item) => typeof item === 'string');
    return items.map((item, i) => {
      const previous = items[i - 1];
      if (headerList && i % 2 === 1 && isSensitiveKey(previous as string)) return REDACTED;
      return walk(item, depth + 1, ancestors);
    });
  };

  const walkError = (error: Error, depth: number, ancestors: object[]) => {
    const out: Record<string, unknown> = {
      name: walk(error.name, depth + 1, ancestors),
      message: walk(error.message, depth + 1, ancestors),
      stack: walk(error.stack, depth + 1, ancestors),
      ...walkEntries(Object.entries(error), depth, ancestors),
    };
    if (error.cause !== undefined) out.cause = walk(error.cause, depth + 1, ancestors);
    if (error instanceof AggregateError) out.errors = walk(error.errors, depth + 1, ancestors);
    return out;
  };

  return Object.assign((value: unknown) => walk(value, 0, []), { addSecrets });
}
