/** One sync of the `items` feed: fetch, parse, keep what is new, move the checkpoint. */

import { log, type SyncContext, type SyncResult, withoutQuery } from '@svc/connector-sdk';
import { readCheckpoint } from './checkpoint.js';
import { configShape, type RssConfig } from './definition.js';
import { toEnvelope } from './envelope.js';
import { type FetchOptions, fetchFeed } from './fetch.js';
import { parseFeed } from './parse.js';
import { entriesOf, select } from './select.js';

export interface SyncOptions extends FetchOptions {
  now: () => Date;
}

export async function syncItems(ctx: SyncContext, options: SyncOptions): Promise<SyncResult> {
  const config = readConfig(ctx.config);
  const url = withoutQuery(config.url);
  const previous = readCheckpoint(ctx.checkpoint, config.url);
  const fetched = await fetchFeed(config.url, previous ?? {}, options);
  if (fetched.status === 'not-modified') {
    log.info('the feed has not changed since the last sync', { url });
    return {
      events: [],
      checkpoint: previous,
      metadata: { items_found: 0, items_skipped: 0, not_modified: true },
    };
  }

  const feed = parseFeed(fetched.body, config.url);
  const { entries, skipped } = entriesOf(feed, options.now());
  const selection = select(entries, previous, config.maxItems);
  if (selection.skipped > 0) {
    log.info('more new items than maxItems: the oldest were skipped', {
      max_items: config.maxItems,
      count: selection.skipped,
    });
  }
  log.info('synced the feed', {
    url,
    format: feed.format,
    items: feed.items.length,
    new: selection.fresh.length,
  });
  return {
    events: selection.fresh.map((entry) => toEnvelope(entry, feed)),
    checkpoint: {
      url: config.url,
      ...selection.checkpoint,
      ...(fetched.etag ? { etag: fetched.etag } : {}),
      ...(fetched.lastModified ? { lastModified: fetched.lastModified } : {}),
    },
    metadata: {
      items_found: feed.items.length,
      items_skipped: skipped + selection.skipped,
      ...(feed.title ? { feed_title: feed.title } : {}),
    },
  };
}

function readConfig(config: Record<string, unknown>): RssConfig {
  const parsed = configShape.safeParse(config);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || 'config'}: ${issue.message}`,
  );
  throw new Error(`the rss feed's config is invalid: ${problems.join('; ')}`);
}
