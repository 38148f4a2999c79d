import { isIP } from 'node:net';
import { createEgressClient, type EgressClient } from '../egress/client.js';
import { bareHost, type EgressPolicy, isAllowedHost, refusedRange } from '../egress/policy.js';

/**
 * The fetch OAuth calls go through: the egress guard (the endpoints are URLs an org writes), and
 * https only, since what crosses is a client secret and tokens. Plain http is taken for an
 * address that is not public (a local identity provider, a test's fake), which only the operator
 * can let through, by SVC_EGRESS_ALLOW.
 */
export function oauthFetch(policy: EgressPolicy): EgressClient {
  const client = createEgressClient({ policy });
  const guarded: typeof globalThis.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const host = bareHost(url.hostname);
    const local = host === 'localhost' || (isIP(host) !== 0 && refusedRange(host) !== null);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (local || isAllowedHost(policy, host)))) {
      return Promise.reject(
        new Error(`${url.origin} is not https: svc sends OAuth secrets and tokens over https only`),
      );
    }
    return client.fetch(input, init);
  };
  return { ...client, fetch: guarded };
}
