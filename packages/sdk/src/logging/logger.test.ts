import { afterEach, describe, expect, it, vi } from 'vitest';
import { createConnectorLogger, type LogEntry } from './logger.js';
import { stderrSink } from './sink.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createConnectorLogger', () => {
  it('keeps structured entries with level, ISO time, message, connector and fields', () => {
    const log = createConnectorLogger({ connectorKey: 'rss' });

    log.info('fetched feed', { items: 12, url: 'https://example.com/feed.xml' });
    log.warn('item without date', { guid: 'a1' });
    log.error('parse failed');

    const entries = log.entries();
    expect(entries).toEqual([
      {
        level: 'info',
        time: expect.any(String),
        msg: 'fetched feed',
        connector: 'rss',
        items: 12,
        url: 'https://example.com/feed.xml',
      },
      { level: 'warn', time: expect.any(String), msg: 'item without date', connector: 'rss', guid: 'a1' },
      { level: 'error', time: expect.any(String), msg: 'parse failed', connector: 'rss' },
    ]);
    expect(new Date(entries[0]?.time as string).toISOString()).toBe(entries[0]?.time);
    expect(Object.keys(entries[0] as LogEntry).slice(0, 4)).toEqual(['level', 'time', 'msg', 'connector']);
  });

  it('leaves out entries below its level, debug by default', () => {
    const quiet = createConnectorLogger({ connectorKey: 'rss' });
    const verbose = createConnectorLogger({ connectorKey: 'rss', level: 'debug' });
    const terse = createConnectorLogger({ connectorKey: 'rss', level: 'warn' });

    for (const log of [quiet, verbose, terse]) {
      log.debug('page 1');
      log.info('done');
      log.warn('slow');
    }

    expect(quiet.entries().map((e) => e.msg)).toEqual(['done', 'slow']);
    expect(verbose.entries().map((e) => e.msg)).toEqual(['page 1', 'done', 'slow']);
    expect(terse.entries().map((e) => e.msg)).toEqual(['slow']);
  });

  it('adds child fields to every entry of the child, into the same record', () => {
    const log = createConnectorLogger({ connectorKey: 'code-host' });
    const feed = log.child({ feed: 'issues' });
    const page = feed.child({ page: 2 });

    log.info('start');
    page.info('fetched', { count: 30 });
    page.info('override', { page: 3 });

    expect(log.entries().map(({ time: _t, ...rest }) => rest)).toEqual([
      { level: 'info', msg: 'start', connector: 'code-host' },
      { level: 'info', msg: 'fetched', connector: 'code-host', feed: 'issues', page: 2, count: 30 },
      { level: 'info', msg: 'override', connector: 'code-host', feed: 'issues', page: 3 },
    ]);
    expect(page.entries()).toHaveLength(3);
  });

  it('does not let a field pass itself off as the level, message or connector', () => {
    const log = createConnectorLogger({ connectorKey: 'rss' });

    log.child({ connector: 'other' }).info('real', { level: 'error', msg: 'fake', time: 'yesterday' });

    expect(log.entries()[0]).toMatchObject({ level: 'info', msg: 'real', connector: 'rss' });
    expect(log.entries()[0]?.time).not.toBe('yesterday');
  });

  it('redacts secret values in messages and fields, and credential keys at any depth', () => {
    const log = createConnectorLogger({ connectorKey: 'code-host', secrets: ['ghp_s3cr3t'] });
    const page = log.child({ auth: { token: 'ghp_s3cr3t' } });

    page.warn('retrying with ghp_s3cr3t', {
      url: 'https://api.example.com/x?access_token=ghp_s3cr3t&page=2',
      request: { headers: { Authorization: 'Bearer abc', Accept: 'application/json' } },
    });

    const [entry] = log.entries();
    expect(entry).toMatchObject({
      msg: 'retrying with [redacted]',
      auth: { token: '[redacted]' },
      url: 'https://api.example.com/x?access_token=[redacted]&page=2',
      request: { headers: { Authorization: '[redacted]', Accept: 'application/json' } },
    });
    expect(JSON.stringify(entry)).not.toContain('ghp_s3cr3t');
    expect(JSON.stringify(entry)).not.toContain('Bearer abc');
  });

  it('keeps only the latest maxEntries entries and counts those let go', () => {
    const log = createConnectorLogger({ connectorKey: 'rss' });
    for (let i = 0; i < 1500; i++) log.info(`item ${i}`);

    const entries = log.entries();
    expect(entries).toHaveLength(1000);
    expect(entries[0]?.msg).toBe('item 500');
    expect(entries.at(-1)?.msg).toBe('item 1499');
    expect(log.dropped()).toBe(500);

    const small = createConnectorLogger({ connectorKey: 'rss', maxEntries: 2 });
    small.child({ a: 1 }).info('one');
    small.info('two');
    small.info('three');
    expect(small.entries().map((e) => e.msg)).toEqual(['two', 'three']);
    expect(small.dropped()).toBe(1);
  });

  it('hands each redacted entry to the sink, and survives a sink that throws', () => {
    const seen: LogEntry[] = [];
    const log = createConnectorLogger({
      connectorKey: 'rss',
      secrets: ['hunter2'],
      sink: (entry) => {
        seen.push(entry);
        throw new Error('disk full');
      },
    });

    expect(() => log.info('login', { password: 'hunter2' })).not.toThrow();
    expect(seen).toEqual(log.entries());
    expect(seen[0]?.password).toBe('[redacted]');
  });

  it('stderrSink writes one JSON line per entry', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const log = createConnectorLogger({ connectorKey: 'rss', sink: stderrSink, secrets: ['k-1'] });

    log.info('first', { key: 'k-1' });
    log.error('second', { big: 10n });

    const lines = write.mock.calls.map(([chunk]) => String(chunk));
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 'info', msg: 'first', key: '[redacted]' });
    expect(JSON.parse(lines[1] as string)).toMatchObject({ level: 'error', msg: 'second', big: '10' });
  });
});
