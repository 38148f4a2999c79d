/** Which of a document's items are new since the checkpoint, and the checkpoint after them. */

import { createHash } from 'node:crypto';
import { log } from '@svc/connector-sdk';
import type { RssCheckpoint } from './checkpoint.js';
import type { Feed, FeedItem } from './feed.js';

/** A feed's clock may run a little ahead; a date further out than this is a mistake in the feed. */
const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;

export interface Entry {
  item: FeedItem;
  /** The envelope's origin_id. */
  id: string;
  occurredAt: Date;
  /** True: checkpointed by date. False: no usable date, so tracked by ID. */
  dated: boolean;
}

export interface Entries {
  entries: Entry[];
  /** Items with nothing to identify them by, and repeats of an ID. */
  skipped: number;
}

/**
 * One entry per distinct item. An item without a date (or with one that does not parse, or lies
 * more than a day ahead) is not lost: it is tracked by ID, dated by the feed's own last change or,
 * lacking that, by the time of this sync. A far-future date would otherwise hold the checkpoint
 * there, and hide every item after it.
 */
export function entriesOf(feed: Feed, now: Date): Entries {
  const entries: Entry[] = [];
  const ids = new Set<string>();
  let skipped = 0;
  const unreadable: string[] = [];
  for (const item of feed.items) {
    const id = originId(item);
    if (id === undefined || ids.has(id)) {
      skipped++;
      continue;
    }
    ids.add(id);
    if (item.dateText && !item.date) unreadable.push(item.dateText);
    const dated = item.date !== undefined && item.date.getTime() <= now.getTime() + FUTURE_SLACK_MS;
    entries.push({ item, id, occurredAt: item.date ?? feed.updated ?? now, dated });
  }
  if (unreadable.length > 0) {
    log.warn('some item dates are not RFC 822 or RFC 3339 dates; those items are tracked by ID', {
      count: unreadable.length,
      example: unreadable[0],
    });
  }
  if (skipped > 0) log.warn('skipped items that are empty or repeat an ID', { count: skipped });
  return { entries, skipped };
}

/**
 * The guid or Atom id; else the link; else a hash of title and date, of the text if neither is
 * there. An item with none of these is empty.
 */
export function originId(item: FeedItem): string | undefined {
  if (item.guid) return item.guid;
  if (item.link) return item.link;
  const basis = item.title || item.dateText ? `${item.title ?? ''}\n${item.dateText ?? ''}` : item.text;
  if (!basis) return undefined;
  return `sha256:${createHash('sha256').update(basis).digest('hex').slice(0, 32)}`;
}

export interface Selection {
  /** The new entries, oldest first, at most `maxItems`. */
  fresh: Entry[];
  /** New entries past `maxItems`: the oldest ones. They are skipped for good. */
  skipped: number;
  checkpoint: Pick<RssCheckpoint, 'newest' | 'seen' | 'undated'>;
}

export function select(entries: Entry[], previous: RssCheckpoint | null, maxItems: number): Selection {
  const newestBefore = previous?.newest ? Date.parse(previous.newest) : Number.NEGATIVE_INFINITY;
  const seenBefore = new Set(previous?.seen);
  const undatedBefore = new Set(previous?.undated);
  const time = (entry: Entry) => entry.occurredAt.getTime();
  const isNew = (entry: Entry) =>
    entry.dated
      ? time(entry) > newestBefore || (time(entry) === newestBefore && !seenBefore.has(entry.id))
      : !undatedBefore.has(entry.id);

  // Newest first to apply maxItems; a stable sort keeps the feed's order between equal dates.
  const fresh = entries.filter(isNew).sort((a, b) => time(b) - time(a));
  const kept = fresh.slice(0, maxItems);

  const dated = entries.filter((entry) => entry.dated);
  const newest = Math.max(newestBefore, ...dated.map(time));
  const atNewest = dated.filter((entry) => time(entry) === newest).map((entry) => entry.id);
  // Same newest date as before: those IDs join the ones already there, which may have left the feed.
  const seen = newest === newestBefore ? [...new Set([...(previous?.seen ?? []), ...atNewest])] : atNewest;

  return {
    fresh: kept.reverse(),
    skipped: fresh.length - kept.length,
    checkpoint: {
      newest: Number.isFinite(newest) ? new Date(newest).toISOString() : null,
      seen,
      // Only those still in the feed: the list stays as short as the feed.
      undated: entries.filter((entry) => !entry.dated).map((entry) => entry.id),
    },
  };
}
