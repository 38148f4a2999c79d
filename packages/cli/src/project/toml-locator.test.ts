import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { dedent } from './test/fixture.js';
import { TomlLocator } from './toml-locator.js';

function locator(source: string) {
  parse(source); // the locator assumes a valid document, as the loader guarantees
  return new TomlLocator(source);
}

describe('TomlLocator', () => {
  const source = dedent(`
    # comment with [brackets] and key = "value"
    top = 1

    [agents.support]
    name = "Support"   # trailing comment
      description = 'C:\\path'

    [[agents.support.platforms]]
    type = "team_chat"
    [agents.support.platforms.config]
    token = "$TOKEN"

    [[agents.support.platforms]]
    type = "messenger"
    name = "tg"

    [agents.support.network]
    allowed_domains = [
      "a.example.com", # first
      "b.example.com",
    ]
    "quoted.key" = true
    site.owner . name = "x"
    inline = { a = 1, b = { c = "}" } }
    text = """
    [not.a.header]
    fake = 1
    """
    after = 2
  `);
  const loc = locator(source);

  it('finds keys of the root table and of table headers', () => {
    expect(loc.locate(['top'])).toEqual({ line: 2, col: 1 });
    expect(loc.locate(['agents', 'support'])).toEqual({ line: 4, col: 1 });
    expect(loc.locate(['agents', 'support', 'name'])).toEqual({ line: 5, col: 1 });
    expect(loc.locate(['agents', 'support', 'name'], 'value')).toEqual({ line: 5, col: 8 });
    expect(loc.locate(['agents', 'support', 'description'])).toEqual({ line: 6, col: 3 });
  });

  it('counts array-of-tables elements and puts sub-tables under the current element', () => {
    expect(loc.locate(['agents', 'support', 'platforms'])).toEqual({ line: 8, col: 1 });
    expect(loc.locate(['agents', 'support', 'platforms', 0])).toEqual({ line: 8, col: 1 });
    expect(loc.locate(['agents', 'support', 'platforms', 0, 'config', 'token'])).toEqual({
      line: 11,
      col: 1,
    });
    expect(loc.locate(['agents', 'support', 'platforms', 1])).toEqual({ line: 13, col: 1 });
    expect(loc.locate(['agents', 'support', 'platforms', 1, 'name'], 'value')).toEqual({ line: 15, col: 8 });
  });

  it('finds array elements, quoted keys, dotted keys and inline tables', () => {
    const net = ['agents', 'support', 'network'];
    expect(loc.locate([...net, 'allowed_domains', 1], 'value')).toEqual({ line: 20, col: 3 });
    expect(loc.locate([...net, 'quoted.key'])).toEqual({ line: 22, col: 1 });
    expect(loc.locate([...net, 'site'])).toEqual({ line: 23, col: 1 });
    expect(loc.locate([...net, 'site', 'owner', 'name'])).toEqual({ line: 23, col: 14 });
    expect(loc.locate([...net, 'inline', 'b', 'c'])).toEqual({ line: 24, col: 25 });
  });

  it('skips the content of multi-line strings', () => {
    expect(loc.has(['not'])).toBe(false);
    expect(loc.locate(['agents', 'support', 'network', 'after'])).toEqual({ line: 29, col: 1 });
  });

  it('falls back to the nearest ancestor that is written, then to 1:1', () => {
    expect(loc.locate(['agents', 'support', 'network', 'missing', 'deep'])).toEqual({ line: 17, col: 1 });
    expect(loc.locate(['nothing'])).toEqual({ line: 1, col: 1 });
  });

  it('handles nested arrays of tables and numeric segments given as strings', () => {
    const l = locator('[[a]]\nx = 1\n[[a.b]]\ny = 1\n[[a]]\n[[a.b]]\n[[a.b]]\ny = [{ z = 1 }]\n');
    expect(l.locate(['a', 1, 'b', 1, 'y', 0, 'z'])).toEqual({ line: 8, col: 8 });
    expect(l.locate(['a', '0', 'b', '0', 'y'])).toEqual({ line: 4, col: 1 });
  });

  it('reads past every kind of value and still finds the key after it', () => {
    const values = [
      '1979-05-27T07:32:00Z',
      '07:32:00',
      '0x1F',
      '+inf',
      '1_000.5e-3',
      '"a \\"quoted\\" # not a comment"',
      "'C:\\dir\\'",
      "'''\nmulti '' line'''''",
      '"""\nends with quotes"""""',
      '[[1, 2], ["]"], { a = "}" }]',
      '[\n  # comment ]\n  1,\n]',
      '{}',
      '[]',
    ];
    for (const value of values) {
      const l = locator(`x = ${value}\nafter = true\n`);
      expect(l.locate(['after']), value).toEqual({ line: value.split('\n').length + 1, col: 1 });
    }
  });

  it('skips a byte order mark', () => {
    expect(new TomlLocator('\uFEFFa = 1\n').locate(['a'], 'value')).toEqual({ line: 1, col: 6 });
  });

  it('decodes escapes in quoted keys and handles CRLF line ends', () => {
    const l = locator('"a\\u0062" = 1\r\n[t]\r\nk = "v"\r\n');
    expect(l.locate(['ab'])).toEqual({ line: 1, col: 1 });
    expect(l.locate(['t', 'k'], 'value')).toEqual({ line: 3, col: 5 });
  });

  it('places a table that only headers imply at its first header, and prefers one written out', () => {
    const l = locator('a = 1\n\n[agents.x.platforms.slack]\nk = 1\n[agents.x]\nname = "X"\n');
    expect(l.locate(['agents', 'x', 'platforms'])).toEqual({ line: 3, col: 1 });
    expect(l.locate(['agents', 'x', 'platforms', 'missing'], 'value')).toEqual({ line: 3, col: 1 });
    expect(l.locate(['agents', 'x'])).toEqual({ line: 5, col: 1 });
    expect(l.has(['agents', 'x', 'platforms'])).toBe(false);
  });
});
