import type { Cookie, Page, Response } from 'playwright-core';

/**
 * A cookie as the spec's browser auth stores it on `sessionState`: plain JSON with a fixed set of
 * fields, so that a captured session round-trips through `setCookies` unchanged.
 */
export interface BrowserCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Unix time in seconds; -1 for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

/** A cookie to set: a `BrowserCookie`, or just name and value for the page's current URL. */
export type CookieInput = Pick<BrowserCookie, 'name' | 'value'> &
  Partial<Omit<BrowserCookie, 'name' | 'value'>> & { url?: string };

export type GotoOptions = NonNullable<Parameters<Page['goto']>[1]>;

export interface WaitForSelectorOptions {
  state?: 'attached' | 'detached' | 'visible' | 'hidden';
  /** Milliseconds; playwright's default (30 s) when omitted. */
  timeout?: number;
}

export const toBrowserCookie = (cookie: Cookie): BrowserCookie => ({
  name: cookie.name,
  value: cookie.value,
  domain: cookie.domain,
  path: cookie.path,
  expires: cookie.expires,
  httpOnly: cookie.httpOnly,
  secure: cookie.secure,
  sameSite: cookie.sameSite,
});

/** Playwright takes either a URL or a domain and path, and rejects a session cookie's -1 expiry. */
export function toPlaywrightCookie(cookie: CookieInput, pageUrl: string) {
  const { name, value, url, domain, path, expires, httpOnly, secure, sameSite } = cookie;
  const where = url
    ? { url }
    : domain
      ? { domain, path: path ?? '/' }
      : /^https?:/.test(pageUrl)
        ? { url: pageUrl }
        : undefined;
  if (!where) throw new Error(`Cookie ${name} needs a url or a domain: the page is not on an http(s) URL`);
  return {
    name,
    value,
    ...where,
    ...(expires !== undefined && expires >= 0 ? { expires } : {}),
    ...(httpOnly !== undefined ? { httpOnly } : {}),
    ...(secure !== undefined ? { secure } : {}),
    ...(sameSite !== undefined ? { sameSite } : {}),
  };
}

/** One browser tab. The few things connectors do all the time; `page` is there for the rest. */
export class CdpPage {
  constructor(readonly page: Page) {}

  goto(url: string, opts?: GotoOptions): Promise<Response | null> {
    return this.page.goto(url, opts);
  }

  /**
   * Runs code in the page. The SDK is compiled without DOM types, so pass a string expression or a
   * function that reaches the page through `globalThis` with a narrow local type.
   */
  evaluate<R = unknown>(expression: string): Promise<R>;
  evaluate<R>(fn: () => R | Promise<R>): Promise<R>;
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  evaluate<R, A>(fnOrExpression: string | ((arg: A) => R | Promise<R>), arg?: A): Promise<R> {
    return this.page.evaluate(fnOrExpression as string, arg) as Promise<R>;
  }

  async waitForSelector(selector: string, opts?: WaitForSelectorOptions): Promise<void> {
    await this.page.waitForSelector(selector, opts ?? {});
  }

  click(selector: string): Promise<void> {
    return this.page.click(selector);
  }

  /**
   * Cookies of the page's browser context. Without `urls` that is every cookie in the context, which
   * in an attached browser is the user's whole jar: pass the URLs you need.
   */
  async cookies(urls?: string | string[]): Promise<BrowserCookie[]> {
    const cookies = await this.page.context().cookies(urls);
    return cookies.map(toBrowserCookie);
  }

  async setCookies(cookies: CookieInput[]): Promise<void> {
    const url = this.page.url();
    await this.page.context().addCookies(cookies.map((cookie) => toPlaywrightCookie(cookie, url)));
  }

  /**
   * Scrolls like a user would, with the wheel over the middle of the viewport, so that wheel
   * listeners fire and a page that scrolls an inner container rather than the document moves too.
   * `byPx` defaults to most of a viewport, leaving some overlap so that nothing is skipped.
   */
  async scroll(byPx?: number): Promise<void> {
    const size =
      this.page.viewportSize() ??
      (await this.evaluate<SizeOf>('({ width: innerWidth, height: innerHeight })'));
    await this.page.mouse.move(size.width / 2, size.height / 2);
    await this.page.mouse.wheel(0, byPx ?? Math.round(size.height * 0.8));
  }

  close(): Promise<void> {
    return this.page.close();
  }
}

type SizeOf = { width: number; height: number };
