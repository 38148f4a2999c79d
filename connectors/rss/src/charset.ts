/**
 * Plenty of feeds are still ISO-8859-1 or windows-1252, said in the XML declaration or the
 * Content-Type, while `Response.text()` always decodes UTF-8. This fetch decodes by what the feed
 * says and hands the HTTP client UTF-8.
 */

export function decodingFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    // Error bodies are only quoted in messages, and 204/304 have no body to decode.
    if (!response.ok || response.body === null) return response;
    const text = decodeFeed(
      new Uint8Array(await response.arrayBuffer()),
      response.headers.get('content-type'),
    );
    const headers = new Headers(response.headers);
    // They described the bytes on the wire, not this text.
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(text, { status: response.status, statusText: response.statusText, headers });
  };
}

/** A byte order mark first, as browsers do; then the Content-Type's charset; then the XML declaration. */
export function decodeFeed(bytes: Uint8Array, contentType: string | null): string {
  const label = byteOrderMark(bytes) ?? headerCharset(contentType) ?? declaredEncoding(bytes) ?? 'utf-8';
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    // An encoding no decoder knows: UTF-8 shows most of the text rather than none of it.
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function byteOrderMark(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return undefined;
}

function headerCharset(contentType: string | null): string | undefined {
  return /;\s*charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
}

/** The declaration is ASCII whatever the encoding that follows, so latin1 reads it safely. */
function declaredEncoding(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 200));
  return /^<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/.exec(head)?.[1];
}
