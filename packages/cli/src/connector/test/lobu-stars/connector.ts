/**
 * A connector as written for Lobu's SDK, imports aside: it extends `ConnectorRuntime` and writes
 * no `execute` (it is read-only), links members with `IDENTITY.GITHUB_LOGIN`, imports its helper
 * by a relative path, and hands back Owletto-era envelopes.
 */

import { ConnectorRuntime, type EventEnvelope, IDENTITY, type SyncResult } from '@svc/connector-sdk';
import { stargazers } from './items.js';

export default class Stars extends ConnectorRuntime {
  readonly definition = {
    key: 'lobu.stars',
    name: 'Stars',
    version: '1.0.0',
    feeds: {
      stars: {
        key: 'stars',
        name: 'Stargazers',
        eventKinds: {
          star: {
            entityLinks: [
              {
                entityType: 'member',
                autoCreate: true,
                titlePath: 'author_name',
                identities: [{ namespace: IDENTITY.GITHUB_LOGIN, eventPath: 'metadata.login' }],
              },
            ],
          },
        },
      },
    },
  };

  async sync(): Promise<SyncResult> {
    return { events: stargazers(['Octocat', 'hubot']) as unknown as EventEnvelope[], checkpoint: null };
  }
}
