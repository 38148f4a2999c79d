/**
 * A `Link` header (RFC 8288) as relation type to URL, for paginating: `parseLinkHeader(h).next`.
 * Relation types are lower-cased, `rel="next last"` yields both, and the first link of a relation
 * wins. Commas and semicolons inside `<...>` or quoted values do not split. Relative URLs are resolved
 * against `base` when given. Malformed parts are skipped rather than thrown on, since a broken header
 * should end pagination, not the sync.
 */
export function parseLinkHeader(value: string | null | undefined, base?: string): Record<string, string> {
  // A Map, so that a relation named "constructor" or "__proto__" is just another relation.
  const links = new Map<string, string>();
  if (!value) return {};
  let i = 0;

  const skipSpace = () => {
    while (i < value.length && /\s/.test(value[i] as string)) i++;
  };
  const readToken = () => {
    const start = i;
    while (i < value.length && !/[\s;,=]/.test(value[i] as string)) i++;
    return value.slice(start, i);
  };
  const readQuoted = () => {
    let out = '';
    for (i++; i < value.length && value[i] !== '"'; i++) {
      if (value[i] === '\\') i++;
      out += value[i] ?? '';
    }
    i++;
    return out;
  };
  const skipToNextLink = () => {
    while (i < value.length && value[i] !== ',') {
      if (value[i] === '"') readQuoted();
      else if (value[i] === '<') i = value.includes('>', i) ? value.indexOf('>', i) + 1 : value.length;
      else i++;
    }
  };

  while (i < value.length) {
    skipSpace();
    if (value[i] === ',') {
      i++;
      continue;
    }
    const close = value.indexOf('>', i);
    if (value[i] !== '<' || close === -1) {
      skipToNextLink();
      continue;
    }
    const target = value.slice(i + 1, close).trim();
    i = close + 1;

    let rel: string | undefined;
    for (skipSpace(); value[i] === ';'; skipSpace()) {
      i++;
      skipSpace();
      const name = readToken().toLowerCase();
      skipSpace();
      let paramValue = '';
      if (value[i] === '=') {
        i++;
        skipSpace();
        paramValue = value[i] === '"' ? readQuoted() : readToken();
      }
      // RFC 8288 section 3.3: only the first rel parameter of a link counts.
      if (name === 'rel' && rel === undefined) rel = paramValue;
    }
    skipToNextLink();

    const url = resolve(target, base);
    if (rel === undefined || url === undefined) continue;
    for (const type of rel.toLowerCase().split(/\s+/)) {
      if (type && !links.has(type)) links.set(type, url);
    }
  }
  return Object.fromEntries(links);
}

function resolve(target: string, base: string | undefined): string | undefined {
  if (base === undefined) return target;
  try {
    return new URL(target, base).href;
  } catch {
    return undefined;
  }
}
