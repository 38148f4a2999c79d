/** One sync of the issues or pull requests of a repository, resumable page by page. */

import {
  type EventEnvelope,
  log,
  normalizeCodeHostRepoFullName,
  type QueryValue,
  type SyncContext,
  type SyncResult,
} from '@svc/connector-sdk';
import { createApi, paginate } from './api.js';
import {
  advance,
  type Cursor,
  isPast,
  readCheckpoint,
  sinceParam,
  toCheckpoint,
  updatedAt,
} from './checkpoint.js';
import { type FeedConfig, feedConfig, parseWith } from './config.js';
import { type Item, type OriginType, toEnvelope } from './items.js';

export interface Listing {
  originType: OriginType;
  /** Under `/repos/{owner}/{repo}/`. */
  path: string;
  /** `/pulls` has no `since`: there the checkpoint only filters, and every sync pages the whole list. */
  supportsSince: boolean;
  /** Items of the listing that are not this feed's, such as pull requests on `/issues`. */
  excludes?: (item: Item) => boolean;
}

export const ISSUES: Listing = {
  originType: 'issue',
  path: 'issues',
  supportsSince: true,
  excludes: (item) => item.pull_request != null,
};

export const PULL_REQUESTS: Listing = { originType: 'pull_request', path: 'pulls', supportsSince: false };

// Each extra pass lists again from the earliest item that moved; more than a few means a repository
// busier than one sync can keep up with, and the rest is left to the next.
const MAX_PASSES = 3;

export function syncListing(listing: Listing) {
  return async (ctx: SyncContext): Promise<SyncResult> => {
    const config = parseWith(feedConfig, ctx.config, 'feed config');
    const api = createApi(config.apiUrl, ctx.credentials);
    const scope = { repo: normalizeCodeHostRepoFullName(config.repo) ?? config.repo, state: config.state };
    const { cursor: start, reason } = readCheckpoint(ctx.checkpoint, scope);
    if (reason) log.warn(`starting over: ${reason}`);

    let cursor: Cursor | null = start;
    const returned: EventEnvelope[] = [];
    // number -> updated_at (ms) of every item dealt with in this run, emitted or skipped.
    const handled = new Map<number, number>();
    const emitted = new Set<number>();
    let from = start?.updatedSince;

    for (let pass = 1; ; pass++) {
      // The listing pages by offset: an item updated while we page moves to the end, and every item
      // after its old place moves up one, so one of them slips past a page boundary unread. Such an
      // item shows up again, newer; then a further pass from its old time finds what slipped.
      let movedFrom: number | undefined;
      let page = 0;
      for await (const items of paginate<Item>(
        api,
        `/repos/${config.repo}/${listing.path}`,
        query(listing, config, from),
      )) {
        page++;
        const events: EventEnvelope[] = [];
        for (const item of items) {
          const at = updatedAt(item);
          const before = handled.get(item.number);
          if (before !== undefined && before < at) movedFrom = Math.min(movedFrom ?? before, before);
          handled.set(item.number, at);
          cursor = advance(cursor, item);
          if (before === at || !isPast(start, item) || listing.excludes?.(item)) continue;
          events.push(toEnvelope(listing.originType, scope.repo, item));
          emitted.add(item.number);
        }
        log.info('page read', { pass, page, items: items.length, events: events.length });
        if (ctx.emitEvents) {
          if (events.length > 0) await ctx.emitEvents(events);
          await ctx.updateCheckpoint?.(toCheckpoint(cursor, scope));
        } else returned.push(...events);
      }
      if (movedFrom === undefined) break;
      if (pass === MAX_PASSES) {
        // Something may still have slipped by; the next sync lists again from the earliest move, and
        // repeats some items rather than lose one.
        cursor = { updatedSince: movedFrom, seenAtUpdatedSince: new Set() };
        log.warn('items kept moving while the listing was read; the next sync lists them again', {
          passes: pass,
          from: new Date(movedFrom).toISOString(),
        });
        break;
      }
      log.info('items were updated during the listing; listing again from the earliest', {
        from: new Date(movedFrom).toISOString(),
      });
      from = movedFrom;
    }

    return {
      events: returned,
      checkpoint: toCheckpoint(cursor, scope),
      metadata: { items_found: handled.size, items_skipped: handled.size - emitted.size },
    };
  };
}

function query(listing: Listing, config: FeedConfig, from: number | undefined): Record<string, QueryValue> {
  return {
    state: config.state,
    sort: 'updated',
    direction: 'asc',
    since: listing.supportsSince ? sinceParam(from) : undefined,
    per_page: 100,
  };
}
