import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ConnectorAuthSchema } from '../auth/types.js';
import { configSchema } from '../definition/builders.js';
import type { JsonSchema } from '../definition/types.js';
import type { EventEnvelope } from '../events/envelope.js';
import { Connector, defineConnector, type FeedHandler } from '../runtime/connector.js';
import { log } from '../runtime/log.js';
import type { ActionResult, SyncContext, SyncResult } from '../runtime/types.js';
import { EnvelopeError } from './check.js';
import { HarnessError, SyncFailedError } from './inputs.js';
import { runAction } from './run-action.js';
import { runSync } from './run-sync.js';

const event = (n: number, extra: Partial<EventEnvelope> = {}): EventEnvelope => ({
  origin_id: `item-${n}`,
  payload_text: `Item ${n}`,
  occurred_at: `2026-11-0${n}T10:00:00Z`,
  ...extra,
});

/** Emits two batches on the long path, returns a third; logs with its token in a field. */
const counter = defineConnector({
  key: 'counter',
  name: 'Counter',
  version: '1.0.0',
  authSchema: { methods: [{ type: 'env_keys', fields: [{ key: 'api_key', secret: true }] }] },
  feeds: {
    items: {
      key: 'items',
      name: 'Items',
      configSchema: {
        type: 'object',
        properties: { from: { type: 'integer', minimum: 1 } },
        required: ['from'],
      },
      async sync(ctx: SyncContext): Promise<SyncResult> {
        const from = Number(ctx.config.from);
        log.info('syncing', {
          from,
          key: ctx.config.api_key,
          headers: { Authorization: `Bearer ${ctx.config.api_key}` },
        });
        if (ctx.emitEvents && ctx.updateCheckpoint) {
          await ctx.emitEvents([event(from)]);
          await ctx.updateCheckpoint({ last: from });
          await ctx.emitEvents([event(from + 1)]);
          return { events: [event(from + 2)], checkpoint: { last: from + 2 }, metadata: { items_found: 3 } };
        }
        return { events: [event(from), event(from + 1), event(from + 2)], checkpoint: { last: from + 2 } };
      },
    },
  },
  actions: {
    shout: {
      key: 'shout',
      name: 'Shout',
      requiresApproval: true,
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      async execute(ctx) {
        return { success: true, output: { text: String(ctx.input.text).toUpperCase() } };
      },
    },
  },
});

describe('runSync', () => {
  it('collects emitted and returned events in order, with checkpoints, metadata and redacted logs', async () => {
    const run = await runSync(counter, { feedKey: 'items', config: { from: 1, api_key: 'sk-canary-1234' } });
    expect(run.events.map((e) => e.origin_id)).toEqual(['item-1', 'item-2', 'item-3']);
    expect(run.checkpointUpdates).toEqual([{ last: 1 }]);
    expect(run.checkpoint).toEqual({ last: 3 });
    expect(run.metadata).toEqual({ items_found: 3 });
    expect(run.logs.map((l) => l.msg)).toEqual(['syncing']);
    expect(JSON.stringify(run.logs)).not.toContain('sk-canary-1234');
  });

  it('offers the short path without emitEvents', async () => {
    const run = await runSync(counter, { feedKey: 'items', config: { from: 4 }, streaming: false });
    expect(run.events).toHaveLength(3);
    expect(run.checkpointUpdates).toEqual([]);
  });

  it('refuses an unknown feed and a config against the schema before running anything', async () => {
    await expect(runSync(counter, { feedKey: 'things' })).rejects.toThrow(
      /no feed "things"; its feeds: items/,
    );
    await expect(runSync(counter, { feedKey: 'items', config: { from: 0 } })).rejects.toThrow(
      /config does not match.*\n\s+from: must be >= 1/,
    );
    await expect(runSync(counter, { feedKey: 'items', config: {} })).rejects.toThrow(HarnessError);
  });

  /** A connector whose sync returns the given events after emitting one good one. */
  const returning = (events: unknown[]) =>
    oneFeed('bad', async (ctx) => {
      await ctx.emitEvents?.([event(1)]);
      return { events: events as EventEnvelope[], checkpoint: null };
    });

  it.each([
    [
      'without origin_id',
      { payload_text: 'x', occurred_at: '2026-11-01T00:00:00Z' },
      'origin_id',
      /is required/,
    ],
    [
      'without payload_text',
      { origin_id: 'a', occurred_at: '2026-11-01T00:00:00Z' },
      'payload_text',
      /is required/,
    ],
    ['without occurred_at', { origin_id: 'a', payload_text: 'x' }, 'occurred_at', /is required/],
    ['with a date and no zone', { ...event(2), occurred_at: '2026-11-01 10:00' }, 'occurred_at', /ISO 8601/],
    ['with score 101', event(2, { score: 101 }), 'score', /between 0 and 100/],
    [
      'with an Invalid Date',
      event(2, { occurred_at: new Date('not a date') }),
      'occurred_at',
      /Invalid Date/,
    ],
    [
      'with a javascript: source_url',
      event(2, { source_url: 'javascript:alert(1)' }),
      'source_url',
      /http\(s\)/,
    ],
    ['with a blank origin_id', event(2, { origin_id: '  ' }), 'origin_id', /non-empty/],
    ['with score -1', event(2, { score: -1 }), 'score', /between 0 and 100/],
    ['with a misspelt field', { ...event(2), autor_name: 'x' }, 'autor_name', /not a field/],
  ])('rejects an envelope %s, naming the field and the index', async (_name, bad, field, message) => {
    const error = await runSync(returning([event(2), bad]), { feedKey: 'f' }).catch((e) => e);
    expect(error).toBeInstanceOf(EnvelopeError);
    // index 2: one emitted, then one good returned, then the bad one
    expect(error.problems).toEqual([{ index: 2, field, message: expect.stringMatching(message) }]);
    expect(error.message).toContain(`events[2].${field}`);
  });

  it('takes occurred_at as a Date too, and hands it on as ISO 8601 text', async () => {
    const dated = oneFeed('dated', async (ctx) => {
      await ctx.emitEvents?.([event(1, { occurred_at: new Date(Date.UTC(2026, 10, 23, 9, 30)) })]);
      return { events: [event(2, { occurred_at: new Date(Date.UTC(2026, 10, 24)) })], checkpoint: null };
    });
    const run = await runSync(dated, { feedKey: 'f' });
    expect(run.events.map((e) => e.occurred_at)).toEqual([
      '2026-11-23T09:30:00.000Z',
      '2026-11-24T00:00:00.000Z',
    ]);
  });

  it('checks formats in a config schema built with zod (a URL must be a URL)', async () => {
    const fetcher = oneFeed('fetcher', async () => ({ events: [], checkpoint: null }), {
      configSchema: configSchema({ url: z.url() }),
    });
    await expect(runSync(fetcher, { feedKey: 'f', config: { url: 'not a url' } })).rejects.toThrow(
      /url: must match format "uri"/,
    );
    expect(
      (await runSync(fetcher, { feedKey: 'f', config: { url: 'https://example.com/feed' } })).events,
    ).toEqual([]);
  });

  it('refuses what JSON would change on the way: a Date in payload_data, a BigInt in a checkpoint', async () => {
    const dated = returning([event(2, { payload_data: { at: new Date() } as Record<string, unknown> })]);
    const error = await runSync(dated, { feedKey: 'f' }).catch((e) => e);
    expect(error.problems).toEqual([
      {
        index: 1,
        field: 'payload_data.at',
        message: 'a Date would arrive as a string; pass date.toISOString()',
      },
    ]);
    const big = oneFeed('big', async () => ({ events: [], checkpoint: { cursor: 10n } }));
    await expect(runSync(big, { feedKey: 'f' })).rejects.toThrow(
      /checkpoint\.cursor: a BigInt cannot be sent as JSON/,
    );
  });

  it('refuses text the server cannot store: a NUL, half of an emoji cut through', async () => {
    const cut = 'a smile 🙂'.slice(0, -1);
    const texts = returning([
      event(1, { payload_text: 'a \u0000 b' }),
      event(2, { metadata: { notes: [cut] } }),
      event(3, { title: 'a whole 🙂 is fine' }),
    ]);
    const error = await runSync(texts, { feedKey: 'f' }).catch((e) => e);
    expect(error.problems).toEqual([
      {
        index: 1,
        field: 'payload_text',
        message: 'contains a NUL character (\\u0000), which the server cannot store; remove it',
      },
      {
        index: 2,
        field: 'metadata.notes[0]',
        message:
          'contains half of a UTF-16 surrogate pair (text cut through an emoji?), which the server cannot store; cut on whole characters',
      },
    ]);
  });

  it('keeps each committed checkpoint as it was, though the connector mutates one object', async () => {
    const pager = oneFeed('pager', async (ctx) => {
      const cursor = { page: 0 };
      for (let page = 1; page <= 3; page++) {
        cursor.page = page;
        await ctx.updateCheckpoint?.(cursor);
      }
      return { events: [], checkpoint: cursor };
    });
    const run = await runSync(pager, { feedKey: 'f' });
    expect(run.checkpointUpdates).toEqual([{ page: 1 }, { page: 2 }, { page: 3 }]);
  });

  it('checks config against the feed schema without the env_keys values merged into it', async () => {
    const keyed = oneFeed(
      'keyed',
      async (ctx) => {
        log.info(`calling with ${ctx.config.api_key}`);
        return { events: [], checkpoint: null, auth_update: { api_key: 'rotated-key-9' } };
      },
      {
        authSchema: { methods: [{ type: 'env_keys', fields: [{ key: 'api_key', secret: true }] }] },
        configSchema: configSchema(z.strictObject({ region: z.string() })),
      },
    );
    const run = await runSync(keyed, { feedKey: 'f', config: { region: 'eu', api_key: 'first-key-1' } });
    expect(run.logs.map((l) => l.msg)).toEqual(['calling with [redacted]']);
    expect(run.auth_update).toEqual({ api_key: 'rotated-key-9' });
  });

  it('redacts every string of a captured browser session from the log', async () => {
    const browserish = oneFeed(
      'browserish',
      async (ctx) => {
        log.info(`session ${JSON.stringify(ctx.sessionState)}`);
        return { events: [], checkpoint: null };
      },
      { authSchema: { methods: [{ type: 'browser' }] } },
    );
    const sessionState = {
      cookies: [{ name: 'sid', value: 'sid-secret-1', domain: '.example.com' }],
      csrf: 'csrf-secret-2',
    };
    const run = await runSync(browserish, { feedKey: 'f', sessionState });
    const line = run.logs[0]?.msg ?? '';
    expect(line).not.toMatch(/sid-secret-1|csrf-secret-2/);
    expect(line).toContain('"name":"sid"');
  });

  it('keeps the events and checkpoints committed before a sync throws', async () => {
    const flaky = oneFeed('flaky', async (ctx) => {
      await ctx.emitEvents?.([event(1)]);
      await ctx.updateCheckpoint?.({ after: 'item-1' });
      throw new Error('connection reset');
    });
    const error = await runSync(flaky, { feedKey: 'f' }).catch((e) => e);
    expect(error).toBeInstanceOf(SyncFailedError);
    expect(error.message).toBe('connection reset');
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.events.map((e: EventEnvelope) => e.origin_id)).toEqual(['item-1']);
    expect(error.lastCheckpoint).toEqual({ after: 'item-1' });
  });

  it('rejects a sync that returns no SyncResult', async () => {
    const broken = oneFeed('broken', async () => ({ events: [] }) as unknown as SyncResult);
    await expect(runSync(broken, { feedKey: 'f' })).rejects.toThrow(/no valid SyncResult: checkpoint/);
  });

  it('reports origin_ids seen twice', async () => {
    const run = await runSync(returning([event(1)]), { feedKey: 'f' });
    expect(run.duplicateOriginIds).toEqual(['item-1']);
  });

  it('refuses a connector with an invalid definition', async () => {
    const bad = defineConnector({ key: 'x', name: 'X', version: '1', feeds: {} });
    await expect(runSync(bad, { feedKey: 'f' })).rejects.toThrow(/version: must be a semantic version/);
  });
});

describe('runAction', () => {
  it('runs an action, checks its input and output, and says it would need approval', async () => {
    const run = await runAction(counter, { actionKey: 'shout', input: { text: 'hi' } });
    expect(run.result).toEqual({ success: true, output: { text: 'HI' } });
    expect(run.requiresApproval).toBe(true);
    expect(run.outputProblems).toEqual([]);
    await expect(runAction(counter, { actionKey: 'shout', input: {} })).rejects.toThrow(/text: is required/);
    await expect(runAction(counter, { actionKey: 'whisper' })).rejects.toThrow(
      /no action "whisper"; its actions: shout/,
    );
  });
});

describe('the Connector class', () => {
  class ReadOnly extends Connector {
    readonly definition = { key: 'ro', name: 'Read only', version: '1.0.0' };
    async sync(): Promise<SyncResult> {
      return { events: [], checkpoint: null };
    }
    async execute(): Promise<ActionResult> {
      return { success: false, error: 'this connector is read-only' };
    }
  }

  it('throws from the default authenticate, naming the connector', async () => {
    const ctx = {} as Parameters<Connector['authenticate']>[0];
    await expect(new ReadOnly().authenticate(ctx)).rejects.toThrow(/"ro" has no interactive authentication/);
  });

  it('defineConnector strips handlers from the definition and answers unknown actions with a failure', async () => {
    expect(counter.definition.feeds?.items).not.toHaveProperty('sync');
    expect(counter.definition.actions?.shout).not.toHaveProperty('execute');
    expect(await counter.execute({ actionKey: 'nope', input: {}, credentials: null, config: {} })).toEqual({
      success: false,
      error: 'this connector has no action "nope" (actions: "shout")',
    });
  });
});

/** A connector with one feed, `f`, whose sync is given, and an auth schema or config schema if asked. */
function oneFeed(
  key: string,
  sync: FeedHandler,
  extra: { authSchema?: ConnectorAuthSchema; configSchema?: JsonSchema } = {},
): Connector {
  const { authSchema, configSchema: schema } = extra;
  return defineConnector({
    key,
    name: key,
    version: '0.0.1',
    ...(authSchema ? { authSchema } : {}),
    feeds: { f: { key: 'f', name: 'F', ...(schema ? { configSchema: schema } : {}), sync } },
  });
}
