import { describe, expect, it } from 'vitest';
import { checkAddress, parseEgressAllow, refusedRange } from './policy.js';

describe('address classes', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['0.0.0.0', 'the unspecified address, which reaches this host'],
    ['::', 'the unspecified address, which reaches this host'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['::ffff:192.168.1.1', 'a private address'],
    ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['100.100.100.200', 'a cloud metadata address'],
    ['169.254.1.1', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['fc00::1', 'a private (unique local) address'],
    ['fd12:3456::1', 'a private (unique local) address'],
    ['224.0.0.1', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'the broadcast address'],
    ['::7f00:1', 'an IPv4-compatible IPv6 address'],
    ['64:ff9b::7f00:1', 'an IPv4-embedding (NAT64) address'],
    ['64:ff9b:1::a00:1', 'an IPv4-embedding (NAT64) address'],
    ['2002:7f00:1::', 'an IPv4-embedding (6to4) address'],
    ['2001::1', 'an IPv4-embedding (Teredo) address'],
    ['198.18.0.1', 'a reserved address (reserved)'],
    ['240.0.0.1', 'a reserved address (reserved)'],
  ])('refuses %s as %s', (address, reason) => {
    expect(refusedRange(address)).toBe(reason);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'lets the public address %s through',
    (address) => {
      expect(refusedRange(address)).toBeNull();
    },
  );
});

describe('SVC_EGRESS_ALLOW', () => {
  it('allows listed addresses, CIDRs and host names, and nothing else', () => {
    const policy = parseEgressAllow(' 127.0.0.1, 10.0.0.0/8 ,fd00::/8, [::1], Proxy.Internal,');
    expect(checkAddress(policy, '127.0.0.1', '127.0.0.1')).toBeNull();
    expect(checkAddress(policy, '::ffff:127.0.0.1', '::ffff:127.0.0.1')).toBeNull();
    expect(checkAddress(policy, '127.0.0.2', '127.0.0.2')?.reason).toBe('a loopback address');
    expect(checkAddress(policy, '10.200.0.1', '10.200.0.1')).toBeNull();
    expect(checkAddress(policy, 'fd00:ec2::254', 'fd00:ec2::254')).toBeNull();
    expect(checkAddress(policy, '::1', '::1')).toBeNull();
    expect(checkAddress(policy, '192.168.0.1', '192.168.0.1')?.reason).toBe('a private address');
    // A listed name may resolve to anything; another name resolving to the same address may not.
    expect(checkAddress(policy, 'proxy.internal', '192.168.0.1')).toBeNull();
    expect(checkAddress(policy, 'other.internal', '192.168.0.1')?.message).toBe(
      'other.internal (192.168.0.1) is a private address, which this server does not connect to; add 192.168.0.1 (or the host other.internal) to SVC_EGRESS_ALLOW on the server to allow it',
    );
  });

  it('maps an IPv4-mapped CIDR to its IPv4 range', () => {
    const policy = parseEgressAllow('::ffff:10.0.0.0/104');
    expect(checkAddress(policy, '10.1.1.1', '10.1.1.1')).toBeNull();
  });

  it('allows nothing internal when unset', () => {
    const policy = parseEgressAllow(undefined);
    expect(checkAddress(policy, 'x', '169.254.169.254')?.reason).toBe('a cloud metadata address');
    expect(checkAddress(policy, 'example.com', '93.184.216.34')).toBeNull();
  });

  it.each([
    '10.0.0.0/33',
    '10.0.0/8',
    'not a host',
    'http://10.0.0.1',
    '10.0.0.1:8080',
    '*',
    '300.1.1.1/8',
    '127.1',
    'a.0x7f',
  ])('refuses the malformed entry %j, naming it', (entry) => {
    expect(() => parseEgressAllow(`127.0.0.1,${entry}`)).toThrow(
      `SVC_EGRESS_ALLOW entry "${entry}" is not a host name, an IP address or a CIDR such as 10.0.0.0/8`,
    );
  });
});
