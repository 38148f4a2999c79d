import { withoutQuery } from '@svc/connector-sdk';
/** A fetched document to a `Feed`, or an error that says what the document is instead. */

import { XMLValidator } from 'fast-xml-parser';
import { readAtom } from './atom.js';
import type { Feed } from './feed.js';
import { readRdf, readRss } from './rss.js';
import { absoluteUrl } from './url.js';
import { isNode, parser } from './xml.js';

/** `url` resolves relative links and names the feed in errors. */
export function parseFeed(body: string, url: string): Feed {
  const where = withoutQuery(url);
  if (body.trim() === '') throw new Error(`the feed at ${where} is empty: the server sent no document`);
  if (looksLikeHtml(body)) throw new Error(htmlPageMessage(body, url));

  const xml = escapeBareAmpersands(body);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    const { line, col, msg } = valid.err;
    throw new Error(
      `the feed at ${where} is not well-formed XML (line ${line}${col ? `, column ${col}` : ''}: ${msg}); ` +
        'check that the url points at the feed itself',
    );
  }
  const doc: unknown = parser.parse(xml);
  const [root, node] = rootElement(doc);
  if (root === 'rss') return readRss(node, url);
  if (root === 'feed') return readAtom(node, url);
  if (root?.endsWith(':RDF') || root === 'RDF') return readRdf(node, url);
  throw new Error(
    `the document at ${where} is XML but not an RSS or Atom feed: its root element is ` +
      `<${root ?? '(none)'}>, where a feed has <rss>, <feed> or <rdf:RDF>`,
  );
}

/** The first key that is an element: the parser also lists the declaration and processing instructions. */
function rootElement(doc: unknown): [string | undefined, unknown] {
  if (!isNode(doc)) return [undefined, undefined];
  const name = Object.keys(doc).find((key) => !key.startsWith('?') && !key.startsWith('#'));
  return [name, name === undefined ? undefined : doc[name]];
}

function looksLikeHtml(body: string): boolean {
  const start = body.replace(/^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*/, '').slice(0, 200);
  return /^<!doctype\s+html\b/i.test(start) || /^<html[\s>]/i.test(start);
}

/**
 * Someone gave the address of a site rather than of its feed. Sites announce their feed with
 * `<link rel="alternate" type="application/rss+xml" href="…">`: then the message names it.
 */
function htmlPageMessage(html: string, url: string): string {
  const page = `${withoutQuery(url)} is an HTML page, not an RSS or Atom feed`;
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    if (!/\brel\s*=\s*["']?alternate\b/i.test(tag)) continue;
    if (!/\btype\s*=\s*["']?application\/(rss|atom)\+xml/i.test(tag)) continue;
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
    const feed = absoluteUrl(href?.[1] ?? href?.[2] ?? href?.[3], url);
    if (feed) return `${page}; it links to its feed at ${feed}: use that as the url`;
  }
  return `${page}: set url to the address of the feed itself (often linked as "RSS" or "Atom" on the site)`;
}

const CDATA_SECTION = /(<!\[CDATA\[[\s\S]*?\]\]>)/;

/**
 * "AT&T" in a title is the commonest way a feed is not XML, and every reader copes with it: a `&`
 * that starts no reference is read as `&amp;`. CDATA sections, where `&` is literal, are left alone.
 */
function escapeBareAmpersands(xml: string): string {
  if (!xml.includes('&')) return xml;
  return xml
    .split(CDATA_SECTION)
    .map((part, i) =>
      i % 2 === 1 ? part : part.replace(/&(?!(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z_][\w.-]*);)/g, '&amp;'),
    )
    .join('');
}
