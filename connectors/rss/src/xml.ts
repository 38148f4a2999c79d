/**
 * Reading fast-xml-parser's output. Text constructs (titles, descriptions, content) are parser stop
 * nodes, kept raw so that CDATA, escaped HTML and inline XHTML can each be read for what they are.
 */

import { XMLParser } from 'fast-xml-parser';
import { decodeNumericReferences } from './entities.js';
import { htmlToText, oneLine, tidy, xmlText } from './text.js';

export type XmlNode = Record<string, unknown>;

const TEXT_CONSTRUCTS = ['title', 'description', 'content:encoded', 'content', 'summary', 'subtitle'];

export const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // A guid of "0123" is a string, not the number 123.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  stopNodes: TEXT_CONSTRUCTS.map((name) => `*.${name}`),
});

/** One element or many, as the parser gives them: always a list. */
export function list(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

export const isNode = (value: unknown): value is XmlNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The child element `name` of `node`, the first one if there are several. */
export function child(node: unknown, name: string): unknown {
  return isNode(node) ? list(node[name])[0] : undefined;
}

/** A plain element's text: trimmed, undefined when empty. */
export function textOf(value: unknown): string | undefined {
  const raw = isNode(value) ? value['#text'] : value;
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  return decodeNumericReferences(String(raw)).trim() || undefined;
}

export function attr(node: unknown, name: string): string | undefined {
  return isNode(node) ? textOf(node[`@_${name}`]) : undefined;
}

export type TextKind = 'text' | 'html' | 'xhtml';

/** A text construct's content as plain text; `kind` says what the element holds. */
export function readText(value: unknown, kind: TextKind): string | undefined {
  const raw = isNode(value) ? value['#text'] : value;
  if (typeof raw !== 'string') return undefined;
  // XHTML is markup in the document itself; escaped HTML is markup once the XML is decoded.
  const text =
    kind === 'xhtml' ? htmlToText(raw) : kind === 'html' ? htmlToText(xmlText(raw)) : tidy(xmlText(raw));
  return text.trim() || undefined;
}

export const readLine = (value: unknown, kind: TextKind): string | undefined => {
  const text = readText(value, kind);
  return text === undefined ? undefined : oneLine(text) || undefined;
};
