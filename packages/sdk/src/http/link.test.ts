import { describe, expect, it } from 'vitest';
import { parseLinkHeader } from './link.js';

describe('parseLinkHeader', () => {
  it('reads a GitHub pagination header', () => {
    const header =
      '<https://api.github.com/repositories/1300192/issues?per_page=2&page=2>; rel="prev", ' +
      '<https://api.github.com/repositories/1300192/issues?per_page=2&page=4>; rel="next", ' +
      '<https://api.github.com/repositories/1300192/issues?per_page=2&page=515>; rel="last", ' +
      '<https://api.github.com/repositories/1300192/issues?per_page=2&page=1>; rel="first"';

    expect(parseLinkHeader(header)).toEqual({
      prev: 'https://api.github.com/repositories/1300192/issues?per_page=2&page=2',
      next: 'https://api.github.com/repositories/1300192/issues?per_page=2&page=4',
      last: 'https://api.github.com/repositories/1300192/issues?per_page=2&page=515',
      first: 'https://api.github.com/repositories/1300192/issues?per_page=2&page=1',
    });
  });

  it('does not split on commas or semicolons inside <...> or quoted values', () => {
    const header =
      '<https://x.test/items?ids=1,2;3>; title="a, b; rel=prev"; rel="next",' +
      '<https://x.test/items?ids=0>;rel=prev';

    expect(parseLinkHeader(header)).toEqual({
      next: 'https://x.test/items?ids=1,2;3',
      prev: 'https://x.test/items?ids=0',
    });
  });

  it('handles escapes in quoted values, several relations in one rel, and any case', () => {
    const header = '<https://x.test/9>; title="say \\"hi\\", then go"; REL="Next LAST"';

    expect(parseLinkHeader(header)).toEqual({ next: 'https://x.test/9', last: 'https://x.test/9' });
  });

  it('keeps the first link of a relation and the first rel of a link', () => {
    const header = '<https://x.test/a>; rel=next; rel=prev, <https://x.test/b>; rel=next';

    expect(parseLinkHeader(header)).toEqual({ next: 'https://x.test/a' });
  });

  it('resolves relative targets against a base when given', () => {
    expect(parseLinkHeader('</items?page=3>; rel="next"', 'https://x.test/api/items?page=2')).toEqual({
      next: 'https://x.test/items?page=3',
    });
    expect(parseLinkHeader('</items?page=3>; rel="next"')).toEqual({ next: '/items?page=3' });
  });

  it('skips malformed parts and links without rel, and takes null or empty as no links', () => {
    const header = 'garbage; rel="prev", <https://x.test/no-rel>; title="x", <https://x.test/2>; rel="next"';

    expect(parseLinkHeader(header)).toEqual({ next: 'https://x.test/2' });
    expect(parseLinkHeader(null)).toEqual({});
    expect(parseLinkHeader('')).toEqual({});
    expect(parseLinkHeader('<https://x.test/unterminated; rel="next"')).toEqual({});
  });
});
