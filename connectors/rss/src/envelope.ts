/** An entry as the event the server stores. */

import type { EventEnvelope } from '@svc/connector-sdk';
import type { Feed } from './feed.js';
import type { Entry } from './select.js';

/** The eventKinds key and the origin_type: one of SOURCE_NATIVE_EVENT_TYPES. */
export const ITEM_KIND = 'article';

export function toEnvelope(entry: Entry, feed: Feed): EventEnvelope {
  const { item } = entry;
  return {
    origin_id: entry.id,
    origin_type: ITEM_KIND,
    payload_type: 'text',
    // payload_text is required: a title-only item (a link blog, say) is its title.
    payload_text: item.text || item.title || '',
    ...(item.title ? { title: item.title } : {}),
    ...(item.authors.length > 0 ? { author_name: item.authors.join(', ') } : {}),
    ...(item.link ? { source_url: item.link } : {}),
    occurred_at: entry.occurredAt.toISOString(),
    semantic_type: 'content',
    ...(item.enclosures.length > 0 ? { attachments: item.enclosures } : {}),
    metadata: {
      ...(feed.title ? { feed_title: feed.title } : {}),
      ...(feed.link ? { feed_link: feed.link } : {}),
      categories: item.categories,
      ...(item.updated ? { updated_at: item.updated.toISOString() } : {}),
      // occurred_at is then the feed's last change or the sync's time, not the item's own date.
      ...(item.date ? {} : { date_estimated: true }),
    },
  };
}
