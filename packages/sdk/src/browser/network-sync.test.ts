import { describe, expect, it } from 'vitest';
import { resolveNetworkSyncOptions } from './network-sync.js';

describe('resolveNetworkSyncOptions', () => {
  it('fills in the defaults', () => {
    const { maxScrolls, scrollDelayMs, idleScrolls, maxItems } = resolveNetworkSyncOptions({ match: /api/ });
    expect({ maxScrolls, scrollDelayMs, idleScrolls, maxItems }).toEqual({
      maxScrolls: 50,
      scrollDelayMs: 1000,
      idleScrolls: 3,
      maxItems: Number.POSITIVE_INFINITY,
    });
  });

  it('matches a global regex the same way every time', () => {
    const { matches } = resolveNetworkSyncOptions({ match: /\/api\/items/g });
    expect([1, 2, 3].map(() => matches('https://x/api/items?page=1'))).toEqual([true, true, true]);
    expect(matches('https://x/static/app.js')).toBe(false);
  });

  it('takes a predicate as is', () => {
    const { matches } = resolveNetworkSyncOptions({ match: (url) => url.endsWith('.json') });
    expect(matches('https://x/a.json')).toBe(true);
  });

  it('rejects counts that make no sense', () => {
    expect(() => resolveNetworkSyncOptions({ match: /x/, idleScrolls: 0 })).toThrow(/idleScrolls/);
    expect(() => resolveNetworkSyncOptions({ match: /x/, maxScrolls: -1 })).toThrow(/maxScrolls/);
    expect(() => resolveNetworkSyncOptions({ match: /x/, scrollDelayMs: 1.5 })).toThrow(/scrollDelayMs/);
    expect(() => resolveNetworkSyncOptions({ match: /x/, maxItems: 0 })).toThrow(/maxItems/);
  });
});
