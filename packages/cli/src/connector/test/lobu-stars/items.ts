/** The helper the connector imports by relative path: Owletto-era envelopes, as Lobu's older connectors wrote them. */

import { IDENTITY } from '@svc/connector-sdk';

export function stargazers(logins: string[]) {
  return logins.map((login, i) => ({
    external_id: `star-${login}`,
    content: `${login} starred the repository`,
    author: login,
    url: `https://github.com/${login}`,
    published_at: new Date(Date.UTC(2026, 10, 20, 9, i)),
    kind: 'star',
    metadata: {
      login,
      identities: [{ namespace: IDENTITY.GITHUB_LOGIN, identifier: login.toLowerCase() }],
    },
  }));
}
