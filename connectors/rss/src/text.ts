/** From the raw inside of an XML element to the plain text an agent reads. */

import { decodeEntities } from './entities.js';

const CDATA = /<!\[CDATA\[([\s\S]*?)\]\]>/g;

/**
 * The character data of an element read raw (a parser stop node): CDATA sections as written,
 * references decoded elsewhere. What comes out is what the feed meant, which may itself be HTML.
 */
export function xmlText(raw: string): string {
  let out = '';
  let last = 0;
  for (const match of raw.matchAll(CDATA)) {
    out += decodeEntities(raw.slice(last, match.index)) + match[1];
    last = match.index + match[0].length;
  }
  return out + decodeEntities(raw.slice(last));
}

/** Elements whose content is never text a reader sees. */
const INVISIBLE = /<(script|style|noscript|template|head)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const BLOCK =
  /<\/?(?:p|div|h[1-6]|ul|ol|dl|dt|dd|blockquote|pre|table|tr|section|article|aside|header|footer|figure|figcaption|hr|nav|main|address)\b[^>]*>/gi;
/** A tag starts with a letter, `/` or `!`: "a < b" in text is not one. */
const TAG = /<[/!]?[A-Za-z][^>]*>/g;

/**
 * HTML to readable text: paragraphs and line breaks kept, list items as "- ", every tag and
 * comment dropped, references decoded, runs of spaces and blank lines collapsed.
 */
export function htmlToText(html: string): string {
  const text = html
    .replace(CDATA, '$1')
    .replace(/<!--[\s\S]*?(?:-->|$)/g, '')
    .replace(INVISIBLE, '')
    // Line breaks in HTML source are spaces; only the markup below makes real ones.
    .replace(/\s+/g, ' ')
    .replace(/<br\b[^>]*>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(BLOCK, '\n\n')
    .replace(/<\/t[dh]\s*>/gi, ' ')
    .replace(TAG, '');
  return tidy(decodeEntities(text));
}

/** Non-breaking spaces become plain ones: they only ever mattered for layout. */
export function tidy(text: string): string {
  return text
    .replace(/\u00a0/g, ' ')
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\r]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Titles, names and the like: one line. */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
