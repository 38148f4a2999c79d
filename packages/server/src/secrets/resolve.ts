import { findSecretReferences, isReservedSecretName, resolveSecretReferences } from '@svc/core';
import type { Pool } from 'pg';
import type { OrgRef } from '../http/types.js';
import { unseal } from './cipher.js';
import type { EnvSecretPolicy } from './env-policy.js';

/** A reference that does not resolve for the org: the names, never a value. */
export class SecretMissingError extends Error {
  constructor(readonly variables: string[]) {
    super(
      `secret ${variables.join(', ')} ${variables.length === 1 ? 'is' : 'are'} not set for this org: ` +
        `store ${variables.length === 1 ? 'it' : 'them'} with "svc secrets set NAME"`,
    );
    this.name = 'SecretMissingError';
  }
}

export interface SecretResolver {
  /** The names `org` may reference that resolve now: its secrets, and the environment's it may use. */
  available(org: OrgRef): Promise<Set<string>>;
  /**
   * `value` with every `$NAME`/`${NAME}` in its strings replaced, the org's secrets first, then
   * the environment where the policy lets this org use it. Throws `SecretMissingError` naming every
   * reference that does not resolve. Reserved names never resolve: they are refused at write time,
   * and a row written before that rule existed must not leak them either.
   */
  resolve<T>(org: OrgRef, value: T): Promise<T>;
  /**
   * As `resolve`, from org secrets the caller read itself, still sealed (name to `value` column),
   * without the database: for a caller that keeps what it read and checks, when it writes, that
   * those rows did not change since (webhooks/platform-hints.ts). Nothing is opened but for now.
   */
  resolveSealed<T>(org: OrgRef, value: T, sealed: ReadonlyMap<string, Buffer>): T;
}

export const secretContext = (orgId: string, name: string) => `org_secret:${orgId}:${name}`;

export function createSecretResolver(deps: {
  pool: Pool;
  encryptionKey: Buffer;
  env: Record<string, string | undefined>;
  policy: EnvSecretPolicy;
}): SecretResolver {
  const { pool, encryptionKey, env, policy } = deps;
  const fromEnv = (org: OrgRef, name: string): string | undefined =>
    !isReservedSecretName(name) && policy.allows(org.slug, name) && env[name] ? env[name] : undefined;

  const wantedOf = (names: string[]) => names.filter((name) => !isReservedSecretName(name));

  async function values(org: OrgRef, names: string[]): Promise<Map<string, string>> {
    const wanted = wantedOf(names);
    if (wanted.length === 0) return new Map();
    const { rows } = await pool.query<{ name: string; value: Buffer }>(
      'SELECT name, value FROM org_secrets WHERE org_id = $1 AND name = ANY ($2)',
      [org.id, wanted],
    );
    return opened(
      org,
      wanted,
      rows.map((row): [string, Buffer] => [row.name, row.value]),
    );
  }

  /** The values of `wanted`: each sealed row opened, the environment's where the org has none. */
  function opened(org: OrgRef, wanted: string[], sealed: Iterable<[string, Buffer]>): Map<string, string> {
    const found = new Map<string, string>();
    const names = new Set(wanted);
    for (const [name, value] of sealed) {
      if (names.has(name)) found.set(name, unseal(encryptionKey, value, secretContext(org.id, name)));
    }
    for (const name of wanted) {
      const value = found.has(name) ? undefined : fromEnv(org, name);
      if (value !== undefined) found.set(name, value);
    }
    return found;
  }

  function substitute(value: unknown, found: Map<string, string>): unknown {
    if (typeof value === 'string') return resolveSecretReferences(value, Object.fromEntries(found));
    if (Array.isArray(value)) return value.map((item) => substitute(item, found));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, found)]));
    }
    return value;
  }

  function resolved<T>(value: T, names: string[], found: Map<string, string>): T {
    const missing = names.filter((name) => !found.has(name));
    if (missing.length > 0) throw new SecretMissingError(missing);
    return substitute(value, found) as T;
  }

  return {
    async available(org) {
      const { rows } = await pool.query<{ name: string }>('SELECT name FROM org_secrets WHERE org_id = $1', [
        org.id,
      ]);
      const names = new Set(rows.map((row) => row.name));
      for (const name of Object.keys(env)) if (fromEnv(org, name) !== undefined) names.add(name);
      return names;
    },
    async resolve(org, value) {
      const names = [...new Set(findSecretReferences(value).map((ref) => ref.variable))];
      return resolved(value, names, await values(org, names));
    },
    resolveSealed(org, value, sealed) {
      const names = [...new Set(findSecretReferences(value).map((ref) => ref.variable))];
      return resolved(value, names, opened(org, wantedOf(names), sealed));
    },
  };
}
