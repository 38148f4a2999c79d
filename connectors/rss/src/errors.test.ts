import { runSync } from '@svc/connector-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import rss, { RssConnector } from './index.js';
import { HTML_PAGE, rss as rssDocument } from './test/fixtures.js';
import { document, type FeedServer, hang, startFeedServer, status } from './test/server.js';

let server: FeedServer;
beforeEach(async () => {
  server = await startFeedServer();
});
afterEach(() => server.close());

/** Retries after milliseconds rather than seconds, and gives up on a silent server quickly. */
const impatient = new RssConnector({ timeoutMs: 200, retry: { baseDelayMs: 5, maxDelayMs: 20 } });

const sync = (path: string, connector = rss) =>
  runSync(connector, { feedKey: 'items', config: { url: `${server.url}${path}` } });

const failure = (path: string, connector = rss) =>
  sync(path, connector).then(
    () => expect.unreachable('the sync should have failed'),
    (error: Error) => error,
  );

const ONE_ITEM = rssDocument([{ guid: 'a', date: 'Mon, 23 Nov 2026 09:00:00 GMT' }]);

describe('a document that is not a feed', () => {
  it('is malformed XML: the error gives the line and column', async () => {
    server.route(
      '/feed',
      document(() => '<?xml version="1.0"?>\n<rss><channel>\n<item><title>x</item>\n</channel></rss>'),
    );
    const error = await failure('/feed');
    expect(error.message).toBe(
      `the feed at ${server.url}/feed is not well-formed XML (line 3, column 15: Expected closing tag 'title' ` +
        "(opened in line 3, col 7) instead of closing tag 'item'.); check that the url points at the feed itself",
    );
  });

  it('is an HTML page that links its feed: the error names the feed to use', async () => {
    server.route(
      '/',
      document(() => HTML_PAGE, { 'content-type': 'text/html' }),
    );
    const error = await failure('/');
    expect(error.message).toBe(
      `${server.url}/ is an HTML page, not an RSS or Atom feed; it links to its feed at ${server.url}/feed.xml: use that as the url`,
    );
  });

  it('is an HTML page without a feed link', async () => {
    server.route(
      '/about',
      document(() => '<!doctype html><title>About</title><p>Hi', { 'content-type': 'text/html' }),
    );
    const error = await failure('/about');
    expect(error.message).toBe(
      `${server.url}/about is an HTML page, not an RSS or Atom feed: set url to the address of the feed itself ` +
        '(often linked as "RSS" or "Atom" on the site)',
    );
  });

  it('is XML of another kind: the error names its root element', async () => {
    server.route(
      '/subs.opml',
      document(() => '<?xml version="1.0"?><opml version="2.0"><body/></opml>'),
    );
    const error = await failure('/subs.opml');
    expect(error.message).toBe(
      `the document at ${server.url}/subs.opml is XML but not an RSS or Atom feed: its root element is <opml>, ` +
        'where a feed has <rss>, <feed> or <rdf:RDF>',
    );
  });

  it('is empty, or JSON', async () => {
    server.route(
      '/empty',
      document(() => ''),
    );
    expect((await failure('/empty')).message).toBe(
      `the feed at ${server.url}/empty is empty: the server sent no document`,
    );
    server.route(
      '/feed.json',
      document(() => '{"version":"https://jsonfeed.org/version/1.1"}', {
        'content-type': 'application/feed+json',
      }),
    );
    expect((await failure('/feed.json')).message).toBe(
      `the feed at ${server.url}/feed.json is JSON, not an RSS or Atom feed`,
    );
  });

  it('has a bare "&" in a title: read as the ampersand it means, not refused', async () => {
    server.route(
      '/feed',
      document(() => ONE_ITEM.replace('<title>Item a</title>', '<title>AT&T news</title>')),
    );
    expect((await sync('/feed')).events.map((e) => e.title)).toEqual(['AT&T news']);
  });
});

describe('HTTP failures', () => {
  it('404: fails at once, naming the status and the url', async () => {
    server.route('/gone', status(404, 'Not here'));
    const error = await failure('/gone');
    expect(error.message).toBe(
      `the feed at ${server.url}/gone answered 404 Not Found: there is no feed at that address; check the url`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('500 then 200: retried, and the sync succeeds', async () => {
    server.route(
      '/flaky',
      status(500, 'oops'),
      document(() => ONE_ITEM),
    );
    const run = await sync('/flaky');
    expect(run.events.map((e) => e.origin_id)).toEqual(['a']);
    expect(server.requests).toHaveLength(2);
    expect(run.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'fetching the feed failed; trying again', attempt: 1 }),
    );
  });

  it('503 on every attempt: fails after three, saying the next sync tries again', async () => {
    server.route('/down', status(503));
    const error = await failure('/down', impatient);
    expect(error.message).toBe(
      `the feed at ${server.url}/down answered 503 Service Unavailable (3 attempts): the server is failing; the next sync tries again`,
    );
    expect(server.requests).toHaveLength(3);
  });

  it('a server that never answers: fails with the timeout, after retrying', async () => {
    server.route('/slow', hang);
    const error = await failure('/slow', impatient);
    expect(error.message).toBe(
      `the feed at ${server.url}/slow did not answer within 0.2 s (3 attempts): the server is slow or unreachable; the next sync tries again`,
    );
  });

  it('a host that refuses connections', async () => {
    await server.close();
    const error = await failure('/feed', impatient);
    expect(error.message).toMatch(
      new RegExp(
        `^could not fetch the feed: GET ${server.url}/feed failed: connect ECONNREFUSED .* \\(3 attempts\\); check the url's host name`,
      ),
    );
  });

  it('403: says the connector reads public feeds only', async () => {
    server.route('/private', status(403));
    expect((await failure('/private')).message).toMatch(
      /answered 403 Forbidden: .* reads public feeds only$/,
    );
  });

  it('keeps a token in the query string out of the message', async () => {
    server.route('/private', status(401));
    const error = await failure('/private?token=s3cret-value');
    expect(error.message).toBe(
      `the feed at ${server.url}/private answered 401 Unauthorized: the server wants a login or refuses this client, and the rss connector reads public feeds only`,
    );
    expect(server.requests[0]?.path).toBe('/private');
  });
});
