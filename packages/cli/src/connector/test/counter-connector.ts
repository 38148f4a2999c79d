/** A connector for the `svc connector` tests: numbered items, an action that needs approval. */

import { configSchema, defineConnector, inputSchema, log, z } from '@svc/connector-sdk';

export default defineConnector({
  key: 'counter',
  name: 'Counter',
  version: '1.0.0',
  authSchema: { methods: [{ type: 'oauth', provider: 'example', requiredScopes: [] }] },
  feeds: {
    items: {
      key: 'items',
      name: 'Items',
      configSchema: configSchema({
        count: z.number().int().min(0),
        broken: z.boolean().optional(),
        explode: z.boolean().optional(),
      }),
      async sync(ctx) {
        const from = Number(ctx.checkpoint?.next ?? 1);
        const count = Number(ctx.config.count);
        log.info('counting', { from, count, token: ctx.credentials?.accessToken });
        const events = Array.from({ length: count }, (_, i) => ({
          origin_id: `item-${from + i}`,
          payload_text: `Item ${from + i}`,
          occurred_at: new Date(Date.UTC(2026, 10, from + i)).toISOString(),
        }));
        if (ctx.config.broken)
          events.push({ origin_id: 'bad', payload_text: 'no date' } as (typeof events)[0]);
        await ctx.emitEvents?.(events.slice(0, 1));
        if (ctx.config.explode) {
          await ctx.updateCheckpoint?.({ next: from + 1 });
          throw new Error('the upstream went away');
        }
        return { events: events.slice(1), checkpoint: { next: from + count } };
      },
    },
  },
  actions: {
    reset: {
      key: 'reset',
      name: 'Reset',
      requiresApproval: true,
      inputSchema: inputSchema({ to: z.number().int() }),
      async execute(ctx) {
        return { success: true, output: { reset_to: ctx.input.to } };
      },
    },
    fail: {
      key: 'fail',
      name: 'Fail',
      requiresApproval: false,
      async execute() {
        return { success: false, error: 'the counter is read-only today' };
      },
    },
  },
});
