import { describe, expect, it } from 'vitest';
import { createRedactor } from './redact.js';

describe('createRedactor', () => {
  it('replaces a secret wherever it appears: whole values, inside strings, numbers and keys', () => {
    const redact = createRedactor(['tok_123', '987654']);

    expect(
      redact({
        exact: 'tok_123',
        inside: 'GET /items?key=tok_123 failed; retried with tok_123',
        list: ['a', ['tok_123']],
        pin: 987654,
        tok_123: 'named after the secret',
        url: new URL('https://x.test/?key=tok_123'),
        harmless: 42,
      }),
    ).toEqual({
      exact: '[redacted]',
      inside: 'GET /items?key=[redacted] failed; retried with [redacted]',
      list: ['a', ['[redacted]']],
      pin: '[redacted]',
      '[redacted]': 'named after the secret',
      url: 'https://x.test/?key=[redacted]',
      harmless: 42,
    });
  });

  it('redacts keys that end like a credential, and credentials written into text, but not counts', () => {
    const redact = createRedactor();
    expect(
      redact({
        apiToken: 'a1',
        'x-auth-token': 'a2',
        privateToken: 'a3',
        webhook_secret: 'a4',
        tokenCount: 12,
        note: 'sent Authorization: Bearer abc.def to /x; then GET https://h/p?access_token=zzz&page=2',
      }),
    ).toEqual({
      apiToken: '[redacted]',
      'x-auth-token': '[redacted]',
      privateToken: '[redacted]',
      webhook_secret: '[redacted]',
      tokenCount: 12,
      note: 'sent Authorization: [redacted] to /x; then GET https://h/p?access_token=[redacted]&page=2',
    });
  });

  it('hides secrets added after it was made, such as a rotated token', () => {
    const redact = createRedactor(['old-token-1']);
    redact.addSecrets(['new-token-2', 42, '']);
    expect(redact('old-token-1 then new-token-2')).toBe('[redacted] then [redacted]');
  });

  it('replaces the longer of two overlapping secrets whole', () => {
    const redact = createRedactor(['abc', 'abcdef']);

    expect(redact('x abcdef y abc')).toBe('x [redacted] y [redacted]');
  });

  it('ignores an empty secret instead of redacting everything', () => {
    expect(createRedactor([''])('plain text')).toBe('plain text');
  });

  it('redacts credential keys in any case and spelling, at any depth', () => {
    const redact = createRedactor();

    expect(
      redact({
        request: {
          headers: {
            Authorization: 'Bearer a',
            COOKIE: 'sid=1',
            'set-cookie': ['sid=1; HttpOnly', 'csrf=2'],
            'X-Api-Key': 'k',
            'content-type': 'application/json',
          },
        },
        form: { user: 'ann', password: 'p' },
        oauth: [{ access_token: 'a', refresh_token: 'r', client_secret: 's', token: 't', scope: 'repo' }],
        credentials: { provider: 'github', accessToken: 'a', refreshToken: 'r', expiresAt: null },
        missing: { token: null, password: '' },
      }),
    ).toEqual({
      request: {
        headers: {
          Authorization: '[redacted]',
          COOKIE: '[redacted]',
          'set-cookie': '[redacted]',
          'X-Api-Key': '[redacted]',
          'content-type': 'application/json',
        },
      },
      form: { user: 'ann', password: '[redacted]' },
      oauth: [
        {
          access_token: '[redacted]',
          refresh_token: '[redacted]',
          client_secret: '[redacted]',
          token: '[redacted]',
          scope: 'repo',
        },
      ],
      credentials: {
        provider: 'github',
        accessToken: '[redacted]',
        refreshToken: '[redacted]',
        expiresAt: null,
      },
      // An absent credential is worth seeing and gives nothing away.
      missing: { token: null, password: '' },
    });
  });

  it('redacts a Headers object, [name, value] pairs and flat raw header lists', () => {
    const redact = createRedactor();
    const headers = new Headers({ Authorization: 'Bearer a', Cookie: 'sid=1', Accept: '*/*' });

    expect(redact({ headers })).toEqual({
      headers: { authorization: '[redacted]', cookie: '[redacted]', accept: '*/*' },
    });
    expect(
      redact([
        ['Authorization', 'Bearer a'],
        ['Accept', '*/*'],
      ]),
    ).toEqual([
      ['Authorization', '[redacted]'],
      ['Accept', '*/*'],
    ]);
    expect(redact(['Host', 'x.test', 'Set-Cookie', 'sid=1', 'X-API-KEY', 'k'])).toEqual([
      'Host',
      'x.test',
      'Set-Cookie',
      '[redacted]',
      'X-API-KEY',
      '[redacted]',
    ]);
  });

  it('serialises errors with message, stack, own fields and cause, all redacted', () => {
    const redact = createRedactor(['sk_live_1']);
    const cause = new Error('upstream said sk_live_1 is invalid');
    const error = Object.assign(new Error('charge with sk_live_1 failed', { cause }), {
      status: 401,
      headers: { 'www-authenticate': 'Bearer', 'set-cookie': 'sid=9' },
    });

    const out = redact({ err: error }) as { err: Record<string, any> };

    expect(out.err).toMatchObject({
      name: 'Error',
      message: 'charge with [redacted] failed',
      status: 401,
      headers: { 'www-authenticate': 'Bearer', 'set-cookie': '[redacted]' },
      cause: { name: 'Error', message: 'upstream said [redacted] is invalid' },
    });
    expect(out.err.stack).toMatch(/^Error: charge with \[redacted\] failed\n\s+at /);
    expect(JSON.stringify(out)).not.toContain('sk_live_1');
    expect(JSON.stringify(out)).not.toContain('sid=9');
  });

  it('makes any value JSON-safe: cycles, bigint, dates, bytes, maps and very long strings', () => {
    const redact = createRedactor(['s3cr3t']);
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    // The secret straddles the cut, where cutting first would leave its start visible.
    const long = `${'x'.repeat(8190)}s3cr3t`;

    const out = redact({
      loop,
      big: 12n,
      at: new Date('2026-01-02T03:04:05Z'),
      bytes: new Uint8Array(3),
      map: new Map<string, unknown>([
        ['password', 'p'],
        ['k', 's3cr3t'],
      ]),
      long,
    }) as Record<string, any>;

    expect(out).toMatchObject({
      loop: { name: 'loop', self: '[circular]' },
      big: '12',
      at: '2026-01-02T03:04:05.000Z',
      bytes: '[3 bytes]',
      map: { password: '[redacted]', k: '[redacted]' },
    });
    expect(out.long).toBe(`${'x'.repeat(8190)}[r… [8 more characters]`);
    expect(() => JSON.stringify(out)).not.toThrow();
  });
});
