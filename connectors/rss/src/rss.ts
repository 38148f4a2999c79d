/** RSS 2.0 (and the 0.9x it grew from) and RSS 1.0, the RDF one: the same items under other roots. */

import { parseFeedDate } from './dates.js';
import { type Enclosure, enclosure, type Feed, type FeedItem } from './feed.js';
import { absoluteUrl } from './url.js';
import { attr, child, isNode, list, readLine, readText, textOf } from './xml.js';

/** `<rss><channel>…<item/></channel></rss>` */
export function readRss(root: unknown, url: string): Feed {
  const channel = child(root, 'channel');
  return readChannel(channel, list(isNode(channel) ? channel.item : undefined), url);
}

/** `<rdf:RDF><channel/><item/>…</rdf:RDF>`: items are the channel's siblings. */
export function readRdf(root: unknown, url: string): Feed {
  return readChannel(child(root, 'channel'), list(isNode(root) ? root.item : undefined), url);
}

function readChannel(channel: unknown, items: unknown[], url: string): Feed {
  const link = absoluteUrl(textOf(child(channel, 'link')), url);
  const updated =
    textOf(child(channel, 'lastBuildDate')) ??
    textOf(child(channel, 'pubDate')) ??
    textOf(child(channel, 'dc:date'));
  return {
    format: 'rss',
    title: readLine(child(channel, 'title'), 'html'),
    link,
    updated: parseFeedDate(updated),
    items: items.map((item) => readItem(item, link ?? url)),
  };
}

function readItem(item: unknown, base: string): FeedItem {
  const guidNode = child(item, 'guid');
  const guid = textOf(guidNode) ?? attr(item, 'rdf:about');
  // A guid is a permalink unless it says otherwise; then it can stand in for a missing link.
  const permalink = attr(guidNode, 'isPermaLink') !== 'false' ? absoluteUrl(guid, undefined) : undefined;
  const dateText = textOf(child(item, 'pubDate')) ?? textOf(child(item, 'dc:date'));
  return {
    guid,
    link: absoluteUrl(textOf(child(item, 'link')), base) ?? permalink,
    title: readLine(child(item, 'title'), 'html'),
    text:
      readText(child(item, 'content:encoded'), 'html') ?? readText(child(item, 'description'), 'html') ?? '',
    authors: authors(item),
    date: parseFeedDate(dateText),
    dateText,
    categories: [...texts(item, 'category'), ...texts(item, 'dc:subject')],
    enclosures: enclosures(item, base),
  };
}

function texts(node: unknown, name: string): string[] {
  return list(isNode(node) ? node[name] : undefined)
    .map(textOf)
    .filter((text): text is string => text !== undefined);
}

/** RSS 2.0's `author` is an email address, by convention followed by the name in parentheses. */
function authors(item: unknown): string[] {
  const creators = texts(item, 'dc:creator');
  if (creators.length > 0) return creators;
  return texts(item, 'author').map((author) => /^\S+@\S+\s*\((.+)\)$/.exec(author)?.[1]?.trim() ?? author);
}

function enclosures(item: unknown, base: string): Enclosure[] {
  return list(isNode(item) ? item.enclosure : undefined).flatMap((node) => {
    const url = absoluteUrl(attr(node, 'url'), base);
    return url ? [enclosure(url, attr(node, 'type'), attr(node, 'length'))] : [];
  });
}
