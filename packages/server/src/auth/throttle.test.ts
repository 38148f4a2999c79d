import { describe, expect, it } from 'vitest';
import { clientKey, createAuthThrottle } from './throttle.js';

describe('the failed-authentication budget', () => {
  it('allows a burst of perMinute failures, then one more every 60/perMinute seconds', () => {
    let now = 0;
    const throttle = createAuthThrottle(20, () => now);
    for (let i = 0; i < 20; i++) {
      expect(throttle.retryAfter('a')).toBe(0);
      throttle.fail('a');
    }
    expect(throttle.retryAfter('a')).toBe(3);
    now += 2_000;
    expect(throttle.retryAfter('a')).toBe(1);
    now += 1_000;
    expect(throttle.retryAfter('a')).toBe(0);
    throttle.fail('a');
    expect(throttle.retryAfter('a')).toBe(3);
    // Other clients are not touched; a full minute of quiet restores the whole burst.
    expect(throttle.retryAfter('b')).toBe(0);
    now += 60_000;
    for (let i = 0; i < 20; i++) throttle.fail('a');
    expect(throttle.retryAfter('a')).toBeGreaterThan(0);
  });

  it('remembers at most 10,000 clients, forgetting the one whose last failure is oldest', () => {
    const throttle = createAuthThrottle(1, () => 0);
    throttle.fail('first');
    throttle.fail('second');
    for (let i = 0; i < 9_999; i++) throttle.fail(`client-${i}`);
    expect(throttle.retryAfter('first')).toBe(0);
    expect(throttle.retryAfter('second')).toBe(60);
  });
});

describe('clientKey', () => {
  it('is the address for IPv4, and the /64 for IPv6, which one client usually holds whole', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::9')).toBe(clientKey('2001:0db8:0001:0002:ffff::1'));
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
