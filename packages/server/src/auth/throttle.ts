/**
 * Failed authentication, counted per client: each client has a budget of `perMinute` failures
 * that refills continuously (a token bucket), so a burst of that many is answered, then one more
 * every 60/perMinute seconds. In memory: each replica keeps its own budgets.
 */
export interface AuthThrottle {
  /** Whole seconds until `client` may try credentials again; 0 when it may now. */
  retryAfter(client: string): number;
  /** Counts one failed attempt of `client`. */
  fail(client: string): void;
}

interface Budget {
  left: number;
  at: number;
}

/** At most this many clients are remembered; the one whose last failure is oldest goes first. */
const MAX_CLIENTS = 10_000;

export function createAuthThrottle(perMinute: number, now: () => number = Date.now): AuthThrottle {
  // Insertion order is the order of last failure, so the first entry is the one to forget.
  const budgets = new Map<string, Budget>();
  const refilled = (budget: Budget, at: number) =>
    Math.min(perMinute, budget.left + ((at - budget.at) * perMinute) / 60_000);

  return {
    retryAfter(client) {
      const budget = budgets.get(client);
      if (!budget) return 0;
      const left = refilled(budget, now());
      if (left >= 1) return 0;
      // Whole milliseconds first, so that float dust does not add a second.
      return Math.ceil(Math.round(((1 - left) * 60_000) / perMinute) / 1000);
    },
    fail(client) {
      const at = now();
      const budget = budgets.get(client);
      const left = budget ? refilled(budget, at) : perMinute;
      budgets.delete(client);
      budgets.set(client, { left: Math.max(0, left - 1), at });
      if (budgets.size > MAX_CLIENTS) budgets.delete(budgets.keys().next().value as string);
    },
  };
}

/**
 * The key a client's failures are counted under: its address, or for IPv6 its /64, which one
 * client usually holds whole.
 */
export function clientKey(ip: string): string {
  const address = ip.split('%')[0] as string;
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  const [head = '', tail] = address.split('::');
  const first = head === '' ? [] : head.split(':');
  const last = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...first, ...Array(Math.max(0, 8 - first.length - last.length)).fill('0'), ...last];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
