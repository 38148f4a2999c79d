/** Telling a Lobu reference (`$NAME`) from a value, and naming the variables the import adds. */

import { isReservedSecretName } from '@svc/core';

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

/**
 * Names that may carry a credential, wider than `looksSecret` for where a miss prints or copies
 * one: a connection's `key`, `dsn` or `connection_string`, a `--password` flag, an `X-Auth` or
 * `Cookie` header, a `sig` query parameter.
 */
export const mayBeCredential = (name: string): boolean =>
  looksSecret(name) ||
  /(^|[^a-z])(keys?|dsn|pass|pwd|passphrase|auth|cookie|session|sig|signature|connection(_?string)?|conn_?str)([^a-z]|$)/i.test(
    name,
  );

/** A URL's query parameters that may carry a credential, by name. */
export function credentialParams(url: URL): string[] {
  return [...new Set(url.searchParams.keys())].filter(mayBeCredential);
}

/** Values shaped like a provider's key or token, whatever the key they are written under. */
export const KEY_SHAPED = /^(sk-|ghp_|gho_|ghs_|github_pat_|xox[abpr]-|glpat-|AKIA[0-9A-Z]{12})/;

/**
 * True when a value, or anything nested in it, may be a credential: a key that names one, a string
 * shaped like a key, or a URL holding one. A table of options is judged by everything inside it,
 * since it is printed whole.
 */
export function holdsCredential(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return KEY_SHAPED.test(value.trim()) || carriesCredential(value);
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(
    ([k, v]) => (!Array.isArray(value) && mayBeCredential(k)) || holdsCredential(v, depth + 1),
  );
}

/** True when a value holds a URL with user info (`user:pass@`) or a credential-looking query parameter. */
export function carriesCredential(value: string): boolean {
  for (const match of value.matchAll(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi)) {
    if (/^[^/?#]*@/.test(match[0].replace(/^[^:]+:\/\//, ''))) return true;
    const url = URL.canParse(match[0]) ? new URL(match[0]) : null;
    if (url && credentialParams(url).length > 0) return true;
  }
  return false;
}

/**
 * Variables the import names, each for one owner (a platform key, an MCP value): names made by
 * joining ids (`a-b` + `c`, `a` + `b-c`) can meet, and a second owner then gets `_2`, `_3`, so two
 * bots never silently share one token.
 */
export class VariableNames {
  private readonly owners = new Map<string, string>();

  name(owner: string, ...parts: string[]): string {
    // An agent named `pgbot` or `node-helper` would give a name svc keeps for the server (PG*,
    // NODE_*, SVC_*), which the project could not reference.
    const joined = variableName(...parts);
    const base = isReservedSecretName(joined) ? `LOBU_${joined}` : joined;
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? base : `${base}_${n}`;
      const taken = this.owners.get(candidate);
      if (taken === undefined) this.owners.set(candidate, owner);
      if (taken === undefined || taken === owner) return candidate;
    }
  }
}
