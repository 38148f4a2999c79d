import type { agentProviderSchema } from '@svc/core';
import type { z } from 'zod';

/**
 * The providers of an upsert's answer, each with its secret reference checked against this
 * server's environment (the same rule as `svc_providers_json` for listings).
 */
export function providersAnswer(
  providers: { key: string; secret_ref: string }[],
  env: Record<string, string | undefined>,
): z.infer<typeof agentProviderSchema>[] {
  return providers.map(({ key, secret_ref }) => {
    const variable = secret_ref.replace(/^\$\{?|\}$/g, '');
    const missing = !env[variable];
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
              message: `environment variable ${variable} is not set on the server`,
            },
          ]
        : [],
    };
  });
}
