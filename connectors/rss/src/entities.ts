/**
 * Character references, decoded once. Feeds carry HTML that was escaped for XML, so after the XML
 * layer the HTML layer still holds references such as `&nbsp;` or `&eacute;` that XML never defined.
 */

/** HTML's Latin-1 names, in code point order from U+00A0. */
const LATIN_1 =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 ' +
  'acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde ' +
  'Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute ' +
  'Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde ' +
  'auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc ' +
  'otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml';

/** The rest of what turns up in feeds: punctuation, typography, arrows. */
const OTHERS: Record<string, number> = {
  quot: 34,
  amp: 38,
  apos: 39,
  lt: 60,
  gt: 62,
  OElig: 338,
  oelig: 339,
  Scaron: 352,
  scaron: 353,
  Yuml: 376,
  fnof: 402,
  circ: 710,
  tilde: 732,
  ensp: 8194,
  emsp: 8195,
  thinsp: 8201,
  zwnj: 8204,
  zwj: 8205,
  lrm: 8206,
  rlm: 8207,
  ndash: 8211,
  mdash: 8212,
  lsquo: 8216,
  rsquo: 8217,
  sbquo: 8218,
  ldquo: 8220,
  rdquo: 8221,
  bdquo: 8222,
  dagger: 8224,
  Dagger: 8225,
  bull: 8226,
  hellip: 8230,
  permil: 8240,
  prime: 8242,
  Prime: 8243,
  lsaquo: 8249,
  rsaquo: 8250,
  euro: 8364,
  trade: 8482,
  larr: 8592,
  uarr: 8593,
  rarr: 8594,
  darr: 8595,
  harr: 8596,
  minus: 8722,
  hearts: 9829,
};

const NAMED = new Map<string, number>([
  ...LATIN_1.split(' ').map((name, i): [string, number] => [name, 0xa0 + i]),
  ...Object.entries(OTHERS),
]);

const REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g;

/** A reference to nothing (an unknown name) stays as written, so no text is lost. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) {
      const code = NAMED.get(name);
      return code === undefined ? whole : String.fromCodePoint(code);
    }
    return codePoint(dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16));
  });
}

/** As HTML does: NUL, surrogates and values past Unicode become U+FFFD rather than throwing. */
function codePoint(code: number): string {
  const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
  return String.fromCodePoint(valid ? code : 0xfffd);
}

/**
 * Only the numeric references. fast-xml-parser decodes XML's five named entities in plain
 * elements and attributes but leaves `&#233;`, which XML defines too.
 */
export function decodeNumericReferences(text: string): string {
  if (!text.includes('&#')) return text;
  return text.replace(/&#(?:(\d{1,7})|[xX]([0-9a-fA-F]{1,6}));/g, (_whole, dec?: string, hex?: string) =>
    codePoint(dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16)),
  );
}
