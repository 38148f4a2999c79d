import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ProblemError } from '../http/problem.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * The deployment's egress policy (DESIGN.md section 6): every public unicast address is reachable;
 * loopback, private, link-local, metadata and other special addresses only when `SVC_EGRESS_ALLOW`
 * lists them. A per-agent layer (networkConfig, egressConfig) will narrow this further; it is
 * checked in addition, never instead.
 */
export interface EgressPolicy {
  /** Host names (lowercase) whose every address may be reached. */
  hosts: ReadonlySet<string>;
  /** Address ranges that may be reached although a refused range holds them. */
  ranges: readonly (readonly [Address, number])[];
}

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** `SVC_EGRESS_ALLOW`: a comma list of host names, addresses and CIDRs. Throws on a bad entry. */
export function parseEgressAllow(raw: string | undefined): EgressPolicy {
  const hosts = new Set<string>();
  const ranges: [Address, number][] = [];
  for (const entry of (raw ?? '').split(',').map((e) => e.trim().toLowerCase())) {
    if (entry === '') continue;
    const literal = entry.replace(/^\[(.*)\]$/, '$1');
    if (entry.includes('/')) {
      const [base, bits] = entry.split('/');
      if (!isIP(base ?? '') || !/^\d{1,3}$/.test(bits ?? '')) throw badEntry(entry);
      try {
        const [address, prefix] = ipaddr.parseCIDR(entry);
        ranges.push(normalise(address, prefix));
      } catch {
        throw badEntry(entry);
      }
    } else if (isIP(literal)) {
      const address = ipaddr.parse(literal);
      ranges.push(normalise(address, address.kind() === 'ipv4' ? 32 : 128));
    } else if (HOST_NAME.test(entry) && !/(^|\.)(\d+|0x[0-9a-f]*)$/.test(entry)) {
      // A name ending in a number is an IPv4 address to URL parsers (`127.1`), never a host name.
      hosts.add(entry);
    } else {
      throw badEntry(entry);
    }
  }
  return { hosts, ranges };
}

function badEntry(entry: string): Error {
  return new Error(
    `SVC_EGRESS_ALLOW entry "${entry}" is not a host name, an IP address or a CIDR such as 10.0.0.0/8`,
  );
}

/** An IPv4-mapped IPv6 range (`::ffff:10.0.0.0/104`) is the IPv4 range it maps. */
function normalise(address: Address, prefix: number): [Address, number] {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    return [(address as ipaddr.IPv6).toIPv4Address(), prefix - 96];
  }
  return [address, prefix];
}

const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '192.0.0.192']);

const RANGE_NAMES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private (unique local) address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  unspecified: 'the unspecified address, which reaches this host',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  rfc6052: 'an IPv4-embedding (NAT64) address',
  rfc6145: 'an IPv4-translated address',
  '6to4': 'an IPv4-embedding (6to4) address',
  teredo: 'an IPv4-embedding (Teredo) address',
};

/**
 * Why `address` is not public, or null when it is. Everything outside ipaddr.js's `unicast` is
 * refused (reserved, benchmarking, documentation and tunnel ranges too), and so are the deprecated
 * IPv4-compatible (`::a.b.c.d`) and local NAT64 (64:ff9b:1::/48) forms, which it calls unicast.
 */
export function refusedRange(text: string): string | null {
  const address = ipaddr.process(text);
  const canonical = address.toString();
  if (METADATA.has(canonical)) return 'a cloud metadata address';
  const range = address.range();
  if (range !== 'unicast') return RANGE_NAMES[range] ?? `a reserved address (${range})`;
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    if (v6.match(ipaddr.IPv6.parse('::'), 96)) return 'an IPv4-compatible IPv6 address';
    if (v6.match(ipaddr.IPv6.parse('64:ff9b:1::'), 48)) return 'an IPv4-embedding (NAT64) address';
  }
  return null;
}

function isAllowedAddress(policy: EgressPolicy, text: string): boolean {
  const address = ipaddr.process(text);
  return policy.ranges.some(
    ([base, prefix]) => base.kind() === address.kind() && address.match(base as never, prefix),
  );
}

/** The outbound call was refused: `host` resolved to (or is) `address`, which the policy refuses. */
export class EgressRefusedError extends ProblemError {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    const named = host === address ? address : `${host} (${address})`;
    const allow = host === address ? address : `${address} (or the host ${host})`;
    // A ProblemError, so that a route whose outbound call is refused answers 422 egress_refused.
    super(
      422,
      'egress_refused',
      `${named} is ${reason}, which this server does not connect to; add ${allow} to SVC_EGRESS_ALLOW on the server to allow it`,
    );
    this.name = 'EgressRefusedError';
  }
}

/** Strips the brackets of an IPv6 literal as URLs write it. */
export function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/** True when `host` itself is listed, so any address it resolves to may be reached. */
export function isAllowedHost(policy: EgressPolicy, host: string): boolean {
  return policy.hosts.has(bareHost(host).replace(/\.$/, ''));
}

/** The refusal for connecting to `address` on behalf of `host`, or null when the policy allows it. */
export function checkAddress(policy: EgressPolicy, host: string, address: string): EgressRefusedError | null {
  if (isAllowedHost(policy, host)) return null;
  const reason = refusedRange(address);
  if (reason === null || isAllowedAddress(policy, address)) return null;
  // A literal is named the way the address is (`[::ffff:a00:5]` is 10.0.0.5).
  const name = isIP(bareHost(host)) ? ipaddr.process(bareHost(host)).toString() : bareHost(host);
  return new EgressRefusedError(name, ipaddr.process(address).toString(), reason);
}
