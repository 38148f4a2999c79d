/** A connector with an env_keys method: its key arrives merged into config. */

import { defineConnector, log } from '@svc/connector-sdk';

export default defineConnector({
  key: 'keyed',
  name: 'Keyed',
  version: '1.0.0',
  authSchema: { methods: [{ type: 'env_keys', fields: [{ key: 'api_key', secret: true }] }] },
  feeds: {
    f: {
      key: 'f',
      name: 'F',
      async sync(ctx) {
        log.info(`calling the shop with ${ctx.config.api_key}`);
        const length = String(ctx.config.api_key ?? '').length;
        return {
          events: [
            {
              origin_id: 'k',
              payload_text: `key of ${length} characters`,
              occurred_at: '2026-11-23T00:00:00Z',
            },
          ],
          checkpoint: null,
        };
      },
    },
  },
});
