import { createHash } from 'node:crypto';

export interface SyncedResponse {
  url: string;
  status: number;
  body: unknown;
}

/** The part of a playwright `Response` the collector reads. */
export interface ResponseLike {
  url(): string;
  status(): number;
  ok(): boolean;
  text(): Promise<string>;
}

/**
 * Gathers matching JSON responses. Bodies are read concurrently and may finish out of order, so each
 * response is numbered when it arrives and the list is sorted by that number at the end; of two
 * identical ones (same URL and body) the earlier is kept.
 */
export function createResponseCollector(match: (url: string) => boolean) {
  let arrivals = 0;
  const byKey = new Map<string, { order: number; response: SyncedResponse }>();
  const pending = new Set<Promise<void>>();

  const read = async (response: ResponseLike, url: string, order: number) => {
    // Redirects, bodies evicted after a navigation and closed pages all reject here.
    const text = await response.text().catch(() => undefined);
    const parsed = text === undefined ? undefined : parseJson(text);
    if (!parsed) return;
    const key = createHash('sha256')
      .update(url)
      .update('\0')
      .update(text as string)
      .digest('base64');
    const seen = byKey.get(key);
    if (seen && seen.order < order) return;
    byKey.set(key, { order, response: { url, status: response.status(), body: parsed.value } });
  };

  return {
    onResponse(response: ResponseLike): void {
      const url = response.url();
      // An error body (a 429, an expired session) is not data, and must not count as news.
      if (!response.ok() || !match(url)) return;
      const reading = read(response, url, arrivals++);
      pending.add(reading);
      void reading.finally(() => pending.delete(reading));
    },
    /** Distinct responses read so far. */
    get size(): number {
      return byKey.size;
    },
    /** Waits for the bodies still being read, including those of responses arriving meanwhile. */
    async settled(): Promise<void> {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    responses(): SyncedResponse[] {
      return [...byKey.values()].sort((a, b) => a.order - b.order).map((entry) => entry.response);
    },
  };
}

/** Anti-hijacking prefixes some APIs put before their JSON (`)]}'`, `for(;;);`, `while(1);`). */
const XSSI_PREFIX = /^\s*(?:\)\]\}'?,?|for\s*\(;;\);|while\s*\(1\);)/;

/** Wrapped, so that a body of `null` is told apart from one that is not JSON. */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text.replace(XSSI_PREFIX, '')) };
  } catch {
    return undefined;
  }
}
