import type { Scope } from '@svc/core';
import { type ApiClient, ApiError } from './client.js';

export interface WhoAmI {
  kind: 'token' | 'admin_password';
  org: string | null;
  scopes: Scope[];
  token: { id: string; name: string } | null;
}

export const whoAmI = (client: ApiClient) => client.request<WhoAmI>('GET', '/api/whoami');

/**
 * Why the credentials cannot act on `org`, or null when they can. The server answers a token
 * asking for another org's resources with 404 (it never tells a token that another org exists),
 * so "org acme does not exist" would send a person looking for a missing org when the token is
 * simply another org's. The admin password acts on every org that exists.
 */
export async function orgRefusal(client: ApiClient, who: WhoAmI, org: string): Promise<string | null> {
  if (who.kind === 'token') {
    if (who.org === org) return null;
    return (
      `this token belongs to org "${who.org}", not "${org}": use --org ${who.org}, ` +
      `or log in with a token of org "${org}" (svc login --token <token of ${org}>)`
    );
  }
  const { orgs } = await client.request<{ orgs: { slug: string }[] }>('GET', '/api/orgs');
  if (orgs.some((o) => o.slug === org)) return null;
  const known = orgs.map((o) => o.slug).join(', ') || 'none';
  return `org "${org}" does not exist on ${client.url} (its orgs: ${known}); use --org with one of them, or create it first (POST /api/orgs)`;
}

/**
 * Runs `work` against `org`. A 404 is explained when it comes from the org itself (see
 * `orgRefusal`); any other failure is passed on as it is.
 */
export async function onOrg<T>(client: ApiClient, org: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    const refusal = await whoAmI(client)
      .then((who) => orgRefusal(client, who, org))
      .catch(() => null);
    throw refusal ? new Error(refusal) : error;
  }
}
