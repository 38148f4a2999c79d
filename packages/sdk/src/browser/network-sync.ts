import { setTimeout as delay } from 'node:timers/promises';
import type { Response } from 'playwright-core';
import type { CdpPage } from './page.js';
import { createResponseCollector, type SyncedResponse } from './responses.js';

export interface NetworkSyncOptions {
  /** Opened first, with the listener already on. Without it, only responses from now on are seen. */
  url?: string;
  /** Which response URLs to collect. */
  match: RegExp | ((url: string) => boolean);
  /** Default 50. */
  maxScrolls?: number;
  /** How long to let the page fetch after each scroll. Default 1000 ms. */
  scrollDelayMs?: number;
  /** Stop after this many scrolls in a row brought nothing new. Default 3. */
  idleScrolls?: number;
  /** Stop once this many distinct responses are in; the result holds at most this many. */
  maxItems?: number;
  /** Ends the sync early; what was collected so far is still returned. */
  signal?: AbortSignal;
}

export interface NetworkSyncResult {
  /** Distinct (by URL and body) successful JSON responses, in the order they arrived. */
  responses: SyncedResponse[];
  stoppedBy: 'idle' | 'maxScrolls' | 'maxItems' | 'aborted';
  scrolls: number;
}

export const resolveNetworkSyncOptions = (opts: NetworkSyncOptions) => {
  const maxScrolls = count('maxScrolls', opts.maxScrolls ?? 50, 0);
  const scrollDelayMs = count('scrollDelayMs', opts.scrollDelayMs ?? 1000, 0);
  const idleScrolls = count('idleScrolls', opts.idleScrolls ?? 3, 1);
  const maxItems =
    opts.maxItems === undefined ? Number.POSITIVE_INFINITY : count('maxItems', opts.maxItems, 1);
  const { match } = opts;
  // `search` rather than `test`: a /g regex would carry `lastIndex` from one URL to the next.
  const matches = typeof match === 'function' ? match : (url: string) => url.search(match) !== -1;
  return { maxScrolls, scrollDelayMs, idleScrolls, maxItems, matches };
};

const count = (name: string, value: number, min: number): number => {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be an integer >= ${min}`);
  return value;
};

/**
 * Lets a page's own infinite scroll do the paging and keeps the JSON its API answers with: the usual
 * way to read a site whose data only arrives through its web app. Successful responses whose URL
 * matches are kept; non-JSON bodies and bodies that cannot be read are skipped.
 */
export async function browserNetworkSync(
  page: CdpPage,
  opts: NetworkSyncOptions,
): Promise<NetworkSyncResult> {
  const { maxScrolls, scrollDelayMs, idleScrolls, maxItems, matches } = resolveNetworkSyncOptions(opts);
  const { signal } = opts;
  const collector = createResponseCollector(matches);
  const onResponse = (response: Response) => collector.onResponse(response);
  page.page.on('response', onResponse);

  // Resolves false once aborted, so every wait doubles as the abort check.
  const wait = async () => {
    if (signal?.aborted) return false;
    await delay(scrollDelayMs, undefined, { signal }).catch(() => {});
    await collector.settled();
    return !signal?.aborted;
  };

  let scrolls = 0;
  let stoppedBy: NetworkSyncResult['stoppedBy'] = 'aborted';
  try {
    if (opts.url !== undefined && !signal?.aborted)
      await page.goto(opts.url, { waitUntil: 'domcontentloaded' });
    if (await wait()) {
      for (let idle = 0; ; ) {
        if (collector.size >= maxItems) {
          stoppedBy = 'maxItems';
          break;
        }
        if (idle >= idleScrolls) {
          stoppedBy = 'idle';
          break;
        }
        if (scrolls >= maxScrolls) {
          stoppedBy = 'maxScrolls';
          break;
        }
        const before = collector.size;
        await page.scroll();
        scrolls++;
        if (!(await wait())) break;
        idle = collector.size > before ? 0 : idle + 1;
      }
    }
  } finally {
    page.page.off('response', onResponse);
  }
  await collector.settled();
  return { responses: collector.responses().slice(0, maxItems), stoppedBy, scrolls };
}
