/** `[[agents.<id>.providers]]`: a key and the reference of its secret, never the secret. */

import { providerModelPreferencesSchema } from '@svc/core';
import { arrayOfTables, type Context, renderPath, report, reportIssues } from './issues.js';
import { isTable } from './shape.js';
import type { TomlPath } from './toml-locator.js';
import type { ProjectProvider } from './types.js';

/** A whole `$NAME` or `${NAME}`: a provider's key is never written into the file itself. */
const WHOLE_REFERENCE = /^(\$[A-Z_][A-Z0-9_]*|\$\{[A-Z_][A-Z0-9_]*\})$/;

export function readProviders(
  ctx: Context,
  at: (p: readonly PropertyKey[]) => TomlPath,
  value: unknown,
): ProjectProvider[] | null {
  const entries = arrayOfTables(ctx, at, 'providers', value, 'with key and secret_ref');
  if (!entries) return null;
  const out: ProjectProvider[] = [];
  const seen = new Set<string>();
  let ok = true;
  for (const [i, entry] of entries.entries()) {
    const here = (k: string) => at(['providers', i, k]);
    if (!isTable(entry)) {
      ok = false;
      report(ctx, at(['providers', i]), 'value', 'a provider must be a table with "key" and "secret_ref"');
      continue;
    }
    const key = providerModelPreferencesSchema.keyType.safeParse(entry.key);
    if (!key.success) reportIssues(ctx, key.error.issues, () => here('key'), { input: entry.key });
    const ref = entry.secret_ref;
    const refOk = typeof ref === 'string' && WHOLE_REFERENCE.test(ref);
    if (!refOk) {
      report(
        ctx,
        here('secret_ref'),
        'value',
        `${renderPath(here('secret_ref'))}: ${ref === undefined ? 'is required' : 'must be a reference such as "$OPENAI_API_KEY"'}`,
        ref === undefined
          ? 'e.g. secret_ref = "$OPENAI_API_KEY", with the key itself in the environment'
          : 'the value itself belongs in the environment, never in svc.toml',
      );
    }
    if (key.success && seen.has(key.data)) {
      ok = false;
      report(ctx, here('key'), 'value', `provider "${key.data}" is declared twice on this agent`);
    }
    if (key.success) seen.add(key.data);
    if (!key.success || !refOk) ok = false;
    else out.push({ key: key.data, secret_ref: ref as string });
  }
  return ok ? out : null;
}
