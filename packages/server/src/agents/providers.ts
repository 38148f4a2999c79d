import type { agentProviderSchema } from '@svc/core';
import type { z } from 'zod';
import { secretMissingMessage } from '../secrets/resolve.js';

/**
 * The providers of an upsert's answer, each with its secret reference checked against the names the
 * org may reference that resolve (the same rule as `svc_providers_json` for listings).
 */
export function providersAnswer(
  providers: { key: string; secret_ref: string }[],
  available: Set<string>,
): z.infer<typeof agentProviderSchema>[] {
  return providers.map(({ key, secret_ref }) => {
    const variable = secret_ref.replace(/^\$\{?|\}$/g, '');
    const missing = !available.has(variable);
    return {
      key,
      secret_ref,
      status: missing ? 'error' : 'ok',
      problems: missing
        ? [
            {
              code: 'secret_missing' as const,
              variable,
              path: '/secret_ref',
              message: secretMissingMessage(variable),
            },
          ]
        : [],
    };
  });
}
