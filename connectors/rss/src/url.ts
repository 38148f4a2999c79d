/** URLs as envelopes carry them and as messages show them. */

/** Only http(s) links, made absolute: an envelope's source_url must be a URL a browser opens. */
export function absoluteUrl(href: string | undefined, base: string | undefined): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
