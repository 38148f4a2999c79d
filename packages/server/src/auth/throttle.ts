import ipaddr from 'ipaddr.js';

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
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const groups = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${groups.join(':')}::/64`;
}

/**
 * `SVC_TRUST_PROXY`: the addresses and CIDRs of the reverse proxies in front of svc, whose
 * `X-Forwarded-For` then names the client. Anything else is refused at start: read as an address,
 * `1` (a hop count elsewhere) would be 0.0.0.1, and every client behind the proxy would share one
 * budget of failed attempts.
 */
export function parseTrustProxy(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw.split(',').map((entry) => {
    const text = entry.trim();
    const [address = '', bits] = text.split('/');
    const valid =
      /[.:]/.test(address) &&
      ipaddr.isValid(address) &&
      (bits === undefined ||
        (() => {
          try {
            ipaddr.parseCIDR(text);
            return true;
          } catch {
            return false;
          }
        })());
    if (!valid) {
      throw new Error(
        `SVC_TRUST_PROXY: "${text}" is not an address or CIDR of a proxy; list them, such as 10.0.0.5,10.1.0.0/16`,
      );
    }
    return text;
  });
}
