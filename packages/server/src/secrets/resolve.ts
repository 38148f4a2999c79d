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

  async function values(org: OrgRef, names: string[]): Promise<Map<string, string>> {
    const wanted = names.filter((name) => !isReservedSecretName(name));
    const found = new Map<string, string>();
    if (wanted.length === 0) return found;
    const { rows } = await pool.query<{ name: string; value: Buffer }>(
      'SELECT name, value FROM org_secrets WHERE org_id = $1 AND name = ANY ($2)',
      [org.id, wanted],
    );
    for (const row of rows)
      found.set(row.name, unseal(encryptionKey, row.value, secretContext(org.id, row.name)));
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
      const found = await values(org, names);
      const missing = names.filter((name) => !found.has(name));
      if (missing.length > 0) throw new SecretMissingError(missing);
      return substitute(value, found) as typeof value;
    },
  };
}
