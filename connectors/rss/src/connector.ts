/** The runtime class: `sync` for the one feed, `execute` refusing, since there is nothing to do. */

import {
  type ActionContext,
  type ActionResult,
  Connector,
  type HttpRetryOptions,
  type SyncContext,
  type SyncResult,
} from '@svc/connector-sdk';
import { definition, VERSION } from './definition.js';
import { type SyncOptions, syncItems } from './sync.js';

export const READ_ONLY = 'the rss connector is read-only: it has no actions';

export interface RssOptions {
  /** Per attempt. Default 20 000 ms. */
  timeoutMs?: number;
  /** Default: 3 attempts within 60 s. */
  retry?: HttpRetryOptions;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Dates undated items when the feed gives no date of its own. Default: the current time. */
  now?: () => Date;
}

export class RssConnector extends Connector {
  readonly definition = definition;
  readonly #options: SyncOptions;

  constructor(options: RssOptions = {}) {
    super();
    this.#options = {
      timeoutMs: options.timeoutMs ?? 20_000,
      // Three tries are enough for a hiccup; a feed that stays down is tried again next sync.
      retry: { maxAttempts: 3, maxElapsedMs: 60_000, ...options.retry },
      fetch: options.fetch,
      now: options.now ?? (() => new Date()),
      userAgent: `svc-rss/${VERSION}`,
    };
  }

  async sync(ctx: SyncContext): Promise<SyncResult> {
    if (ctx.feedKey !== 'items') {
      throw new Error(`the rss connector has one feed, "items"; there is no feed "${ctx.feedKey}"`);
    }
    return syncItems(ctx, this.#options);
  }

  async execute(_ctx: ActionContext): Promise<ActionResult> {
    return { success: false, error: READ_ONLY };
  }
}
