import { describe, expect, it } from 'vitest';
import { toBrowserCookie, toPlaywrightCookie } from './page.js';

describe('toBrowserCookie', () => {
  it('keeps exactly the spec fields', () => {
    const cookie = toBrowserCookie({
      name: 'sid',
      value: 'abc',
      domain: '.example.com',
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
      partitionKey: 'https://example.com',
    } as Parameters<typeof toBrowserCookie>[0]);
    expect(cookie).toEqual({
      name: 'sid',
      value: 'abc',
      domain: '.example.com',
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    });
  });
});

describe('toPlaywrightCookie', () => {
  it('round-trips a captured cookie, leaving out the session expiry', () => {
    expect(
      toPlaywrightCookie(
        {
          name: 'sid',
          value: 'abc',
          domain: 'example.com',
          path: '/app',
          expires: -1,
          httpOnly: true,
          secure: false,
          sameSite: 'Strict',
        },
        'about:blank',
      ),
    ).toEqual({
      name: 'sid',
      value: 'abc',
      domain: 'example.com',
      path: '/app',
      httpOnly: true,
      secure: false,
      sameSite: 'Strict',
    });
  });

  it('defaults to the path / and to the page URL', () => {
    expect(toPlaywrightCookie({ name: 'a', value: '1', domain: 'example.com' }, 'about:blank')).toEqual({
      name: 'a',
      value: '1',
      domain: 'example.com',
      path: '/',
    });
    expect(toPlaywrightCookie({ name: 'a', value: '1', expires: 1_900_000_000 }, 'https://x.test/p')).toEqual(
      {
        name: 'a',
        value: '1',
        url: 'https://x.test/p',
        expires: 1_900_000_000,
      },
    );
  });

  it('says so when it cannot tell where the cookie goes', () => {
    expect(() => toPlaywrightCookie({ name: 'a', value: '1' }, 'about:blank')).toThrow(
      /needs a url or a domain/,
    );
  });
});
