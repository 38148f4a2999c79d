/** Atom 1.0 (RFC 4287), with the element names of Atom 0.3 where they differ. */

import { parseFeedDate } from './dates.js';
import { type Enclosure, enclosure, type Feed, type FeedItem } from './feed.js';
import { absoluteUrl } from './url.js';
import { attr, child, isNode, list, readLine, readText, type TextKind, textOf } from './xml.js';

/** `<feed><entry/>…</feed>` */
export function readAtom(feed: unknown, url: string): Feed {
  const base = absoluteUrl(attr(feed, 'xml:base'), url) ?? url;
  const feedAuthors = names(feed);
  return {
    format: 'atom',
    title: readLine(child(feed, 'title'), kindOf(child(feed, 'title'))),
    link: alternate(feed, base),
    updated: parseFeedDate(textOf(child(feed, 'updated')) ?? textOf(child(feed, 'modified'))),
    items: list(isNode(feed) ? feed.entry : undefined).map((entry) => readEntry(entry, base, feedAuthors)),
  };
}

function readEntry(entry: unknown, feedBase: string, feedAuthors: string[]): FeedItem {
  const base = absoluteUrl(attr(entry, 'xml:base'), feedBase) ?? feedBase;
  const publishedText = textOf(child(entry, 'published')) ?? textOf(child(entry, 'issued'));
  const updatedText = textOf(child(entry, 'updated')) ?? textOf(child(entry, 'modified'));
  const published = parseFeedDate(publishedText);
  const updated = parseFeedDate(updatedText);
  const date = published ?? updated;
  const title = child(entry, 'title');
  const authors = names(entry);
  return {
    guid: textOf(child(entry, 'id')),
    link: alternate(entry, base),
    title: readLine(title, kindOf(title)),
    text: content(entry) ?? '',
    // An entry without an author has the feed's (RFC 4287 4.2.1).
    authors: authors.length > 0 ? authors : feedAuthors,
    date,
    dateText: published ? publishedText : updatedText,
    ...(published && updated && updated.getTime() !== published.getTime() ? { updated } : {}),
    categories: list(isNode(entry) ? entry.category : undefined)
      .map((category) => attr(category, 'label') ?? attr(category, 'term'))
      .filter((label): label is string => label !== undefined),
    enclosures: links(entry, 'enclosure').flatMap((link): Enclosure[] => {
      const href = absoluteUrl(attr(link, 'href'), base);
      return href ? [enclosure(href, attr(link, 'type'), attr(link, 'length'))] : [];
    }),
  };
}

/** Content that lives elsewhere (`src`) is not fetched: the summary stands in for it. */
function content(entry: unknown): string | undefined {
  const node = child(entry, 'content');
  const inline = attr(node, 'src') ? undefined : readText(node, kindOf(node));
  const summary = child(entry, 'summary');
  return inline ?? readText(summary, kindOf(summary));
}

/** RFC 4287 3.1.1, plus Atom 0.3's MIME types. Other media types are read as text. */
function kindOf(node: unknown): TextKind {
  const type = attr(node, 'type')?.toLowerCase();
  if (type === 'html' || type === 'text/html') return 'html';
  if (type === 'xhtml' || type === 'application/xhtml+xml') return 'xhtml';
  return 'text';
}

function names(node: unknown): string[] {
  return list(isNode(node) ? node.author : undefined)
    .map((author) => textOf(child(author, 'name')))
    .filter((name): name is string => name !== undefined);
}

/** A link without `rel` is an alternate one (RFC 4287 4.2.7.2). */
function links(node: unknown, rel: string): unknown[] {
  return list(isNode(node) ? node.link : undefined).filter(
    (link) => (attr(link, 'rel') ?? 'alternate') === rel,
  );
}

/** The alternate link to a web page, over one to another format. */
function alternate(node: unknown, base: string): string | undefined {
  const candidates = links(node, 'alternate');
  const page = candidates.find((link) =>
    /^(text\/html|application\/xhtml\+xml)?$/.test(attr(link, 'type') ?? ''),
  );
  return absoluteUrl(attr(page ?? candidates[0], 'href'), base);
}
