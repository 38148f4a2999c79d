import { describe, expect, it } from 'vitest';
import { createResponseCollector, parseJson, type ResponseLike } from './responses.js';

const deferred = () => {
  let resolve!: (text: string) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

const response = (url: string, body: string | Promise<string>, status = 200): ResponseLike => ({
  url: () => url,
  status: () => status,
  ok: () => status >= 200 && status < 300,
  text: () => Promise.resolve(body),
});

describe('createResponseCollector', () => {
  it('keeps arrival order even when bodies finish out of order', async () => {
    const collector = createResponseCollector((url) => url.includes('/api/'));
    const first = deferred();
    collector.onResponse(response('https://x/api/1', first.promise));
    collector.onResponse(response('https://x/api/2', '{"n":2}'));
    await new Promise((r) => setTimeout(r, 10));
    first.resolve('{"n":1}');
    await collector.settled();
    expect(collector.responses()).toEqual([
      { url: 'https://x/api/1', status: 200, body: { n: 1 } },
      { url: 'https://x/api/2', status: 200, body: { n: 2 } },
    ]);
  });

  it('drops repeats of the same URL and body, keeping the first', async () => {
    const collector = createResponseCollector(() => true);
    const late = deferred();
    collector.onResponse(response('https://x/a', late.promise));
    collector.onResponse(response('https://x/b', '[1]'));
    collector.onResponse(response('https://x/a', '{"v":1}'));
    collector.onResponse(response('https://x/a', '{"v":2}'));
    late.resolve('{"v":1}');
    await collector.settled();
    expect(collector.size).toBe(3);
    expect(collector.responses().map((r) => [r.url, r.body])).toEqual([
      ['https://x/a', { v: 1 }],
      ['https://x/b', [1]],
      ['https://x/a', { v: 2 }],
    ]);
  });

  it('skips unmatched, failed, non-JSON and unreadable responses without throwing', async () => {
    const collector = createResponseCollector((url) => url.endsWith('.json'));
    const broken = deferred();
    collector.onResponse(response('https://x/page.html', '{"not":"matched"}'));
    collector.onResponse(response('https://x/limited.json', '{"error":"slow down"}', 429));
    collector.onResponse(response('https://x/html.json', '<!doctype html>'));
    collector.onResponse(response('https://x/empty.json', '', 204));
    collector.onResponse(response('https://x/gone.json', broken.promise));
    broken.reject(new Error('No resource with given identifier found'));
    collector.onResponse(response('https://x/null.json', 'null'));
    await collector.settled();
    expect(collector.responses()).toEqual([{ url: 'https://x/null.json', status: 200, body: null }]);
  });

  it('waits for responses that arrive while it is settling', async () => {
    const collector = createResponseCollector(() => true);
    const first = deferred();
    collector.onResponse(response('https://x/1', first.promise));
    const settled = collector.settled();
    collector.onResponse(response('https://x/2', new Promise((r) => setTimeout(() => r('2'), 20))));
    first.resolve('1');
    await settled;
    expect(collector.size).toBe(2);
  });
});

describe('parseJson', () => {
  it('strips anti-hijacking prefixes', () => {
    expect(parseJson(")]}'\n[1,2]")).toEqual({ value: [1, 2] });
    expect(parseJson(')]}\',\n{"a":1}')).toEqual({ value: { a: 1 } });
    expect(parseJson('for (;;);{"a":1}')).toEqual({ value: { a: 1 } });
    expect(parseJson('while(1);[]')).toEqual({ value: [] });
  });

  it('tells null apart from not JSON', () => {
    expect(parseJson('null')).toEqual({ value: null });
    expect(parseJson('nope')).toBeUndefined();
    expect(parseJson('')).toBeUndefined();
  });
});
