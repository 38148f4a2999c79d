import { isReservedSecretName, RESERVED_SECRET_RULE, SECRET_NAME_PATTERN } from '@svc/core';

/**
 * Which names an org may resolve from the server's environment (DESIGN.md section 6). Org secrets
 * always come first; the environment is the deployment's secret manager, shared by every org, so an
 * operator says which of its names orgs may use.
 */
export interface EnvSecretPolicy {
  allows(orgSlug: string, name: string): boolean;
  /** For messages and logs: what the policy is, e.g. `OPENAI_API_KEY, SLACK_*`. */
  readonly description: string;
}

/**
 * `SVC_SECRETS_FROM_ENV`: a comma list of names and `PREFIX_*` patterns (`*` alone: every name),
 * for every org. Unset: every name, for the org `default` only, on an embedded deployment (one
 * person's machine); none elsewhere. Reserved names never resolve, whatever the list says.
 */
export function parseEnvSecretPolicy(raw: string | undefined, embedded: boolean): EnvSecretPolicy {
  if (raw === undefined) {
    return embedded
      ? {
          allows: (org, name) => org === 'default' && !isReservedSecretName(name),
          description: 'unset: every name, for the org "default" of this embedded deployment',
        }
      : { allows: () => false, description: 'unset: none' };
  }
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const names = new Set<string>();
  const prefixes: string[] = [];
  for (const entry of entries) {
    const prefix = entry.endsWith('*') ? entry.slice(0, -1) : null;
    const name = prefix ?? entry;
    if (name !== '' && !SECRET_NAME_PATTERN.test(name)) {
      throw new Error(
        `SVC_SECRETS_FROM_ENV: "${entry}" is neither a variable name (OPENAI_API_KEY) nor a pattern (SLACK_*, or * for all)`,
      );
    }
    if (name !== '' && prefix === null && isReservedSecretName(name)) {
      throw new Error(`SVC_SECRETS_FROM_ENV: "${entry}" cannot be allowed: ${RESERVED_SECRET_RULE}`);
    }
    if (prefix === null) names.add(name);
    else prefixes.push(prefix);
  }
  return {
    allows: (_org, name) =>
      !isReservedSecretName(name) && (names.has(name) || prefixes.some((p) => name.startsWith(p))),
    description: entries.length > 0 ? entries.join(', ') : 'none',
  };
}
