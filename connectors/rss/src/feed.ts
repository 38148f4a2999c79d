/** What a feed document says, once RSS or Atom has been read: the one shape the rest works on. */

export type FeedFormat = 'rss' | 'atom';

export interface Feed {
  format: FeedFormat;
  title?: string;
  /** The site the feed belongs to. */
  link?: string;
  /** When the feed last changed (RSS `lastBuildDate` or `pubDate`, Atom `updated`): for undated items. */
  updated?: Date;
  items: FeedItem[];
}

export interface FeedItem {
  /** RSS `guid`, Atom `id`, RSS 1.0 `rdf:about`. */
  guid?: string;
  link?: string;
  title?: string;
  /** Plain text, from the fullest content the item has. */
  text: string;
  authors: string[];
  /** The date the item is filed under (RSS `pubDate`, Atom `published`, else `updated`). */
  date?: Date;
  /** That date as the feed wrote it: for the fallback ID, and to name a date that did not parse. */
  dateText?: string;
  /** Atom's `updated` when it differs from `published`: the item was edited. */
  updated?: Date;
  categories: string[];
  enclosures: Enclosure[];
}

/** A podcast episode's audio, say. */
export interface Enclosure {
  url: string;
  type?: string;
  length?: number;
}

/** Feeds write length="0" or nothing when they do not know it: then it is left out. */
export function enclosure(url: string, type: string | undefined, length: string | undefined): Enclosure {
  const bytes = Number(length);
  return {
    url,
    ...(type ? { type } : {}),
    ...(Number.isSafeInteger(bytes) && bytes > 0 ? { length: bytes } : {}),
  };
}
