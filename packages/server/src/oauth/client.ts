import type { OAuthAuthMethod } from '@svc/connector-sdk';
import { ProblemError } from '../http/problem.js';
import type { OrgRef } from '../http/types.js';
import { SecretMissingError, type SecretResolver } from '../secrets/resolve.js';
import { clientSecretNames, type OAuthClient } from './flow.js';

/**
 * The OAuth client (id, and secret unless the method is a public client) from the org's secrets
 * named by `clientIdKey`/`clientSecretKey` (default `<PROVIDER>_CLIENT_ID`/`_CLIENT_SECRET`). A
 * missing one is a 422 naming the `svc secrets set` line, before anyone is sent to the provider.
 */
export async function clientFor(
  secrets: SecretResolver,
  org: OrgRef,
  method: OAuthAuthMethod,
): Promise<OAuthClient> {
  const names = clientSecretNames(method);
  const publicClient = method.tokenEndpointAuthMethod === 'none';
  try {
    const resolved = await secrets.resolve(org, {
      id: `\${${names.id}}`,
      secret: publicClient ? null : `\${${names.secret}}`,
    });
    return { clientId: resolved.id, clientSecret: resolved.secret };
  } catch (error) {
    if (!(error instanceof SecretMissingError)) throw error;
    throw new ProblemError(
      422,
      'oauth_client_missing',
      `the ${method.provider} OAuth client is not set up for this org: ${error.variables
        .map((name) => `svc secrets set ${name}`)
        .join(
          ', then ',
        )} (the id and secret of an OAuth app registered at ${method.provider}, whose redirect URL is this server's OAuth callback)`,
      error.variables.map((name) => ({ path: `/secrets/${name}`, message: 'is not set' })),
    );
  }
}
