/**
 * Where each key of a TOML document is written. smol-toml gives values without positions, so this
 * scanner reads the same text a second time (only after smol-toml accepted it, so it may assume the
 * document is valid) and records the 1-based position of every key, table header and array element.
 */

export interface Position {
  line: number;
  col: number;
}

/** A path into the parsed document: table keys, and indices into arrays. */
export type TomlPath = readonly (string | number)[];

interface Entry {
  key: Position;
  value: Position;
}

const pathId = (path: TomlPath) => JSON.stringify(path.map(String));

export class TomlLocator {
  private readonly entries = new Map<string, Entry>();
  /** Tables that only headers imply: `[a.b.c]` creates `a.b` without writing it anywhere. */
  private readonly implied = new Map<string, Entry>();

  constructor(source: string) {
    const lineStarts = [0];
    for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
    const toPosition = (offset: number): Position => {
      let low = 0;
      let high = lineStarts.length - 1;
      while (low < high) {
        const mid = (low + high + 1) >> 1;
        if ((lineStarts[mid] as number) <= offset) low = mid;
        else high = mid - 1;
      }
      return { line: low + 1, col: offset - (lineStarts[low] as number) + 1 };
    };
    const recorder =
      (into: Map<string, Entry>): Record_ =>
      (path, keyOffset, valueOffset) => {
        const id = pathId(path);
        // The first mention wins: `[a.b]` after `a.b.c = 1` should still point at where `a.b` began.
        if (!into.has(id)) into.set(id, { key: toPosition(keyOffset), value: toPosition(valueOffset) });
      };
    new Scanner(source, recorder(this.entries), recorder(this.implied)).run();
  }

  /**
   * The position of `path`'s key (or of its value), or of its nearest written ancestor when the path
   * itself is not in the text (a key that is missing); line 1 column 1 at worst. A table that only
   * headers imply is at the first header below it: `[agents.x.platforms.slack]` for `agents.x.platforms`.
   */
  locate(path: TomlPath, at: 'key' | 'value' = 'key'): Position {
    for (let n = path.length; n > 0; n--) {
      const id = pathId(path.slice(0, n));
      const entry = this.entries.get(id) ?? this.implied.get(id);
      if (entry) return n === path.length ? entry[at] : entry.key;
    }
    return { line: 1, col: 1 };
  }

  /** Whether `path` itself (not an ancestor) is written in the text. */
  has(path: TomlPath): boolean {
    return this.entries.has(pathId(path));
  }
}

type Record_ = (path: TomlPath, keyOffset: number, valueOffset: number) => void;

const BARE_KEY = /[A-Za-z0-9_-]/;

class Scanner {
  private i = 0;
  private table: (string | number)[] = [];
  /** How many `[[x]]` elements each array of tables has seen so far, by path id. */
  private readonly arrayTables = new Map<string, number>();

  constructor(
    private readonly s: string,
    private readonly record: Record_,
    private readonly imply: Record_,
  ) {}

  run(): void {
    if (this.s.charCodeAt(0) === 0xfeff) this.i = 1; // a byte order mark is not a key
    while (this.i < this.s.length) {
      this.skipBlank();
      if (this.i >= this.s.length) break;
      const before = this.i;
      if (this.s[this.i] === '[') this.header();
      else this.keyValue(this.table);
      if (this.i === before) this.i++; // never loop on a character this scanner does not expect
    }
  }

  private header(): void {
    const start = this.i;
    const isArray = this.s.startsWith('[[', this.i);
    this.i += isArray ? 2 : 1;
    const keys = this.keys();
    this.i += isArray ? 2 : 1;
    const path = this.resolve(keys);
    for (let n = 1; n < path.length; n++) this.imply(path.slice(0, n), start, start);
    this.record(path, start, start);
    if (isArray) {
      const id = pathId(path);
      const index = (this.arrayTables.get(id) ?? -1) + 1;
      this.arrayTables.set(id, index);
      path.push(index);
      this.record(path, start, start);
    }
    this.table = path;
  }

  /** A header's keys, with the current element index after every prefix that is an array of tables. */
  private resolve(keys: { key: string }[]): (string | number)[] {
    const path: (string | number)[] = [];
    keys.forEach(({ key }, n) => {
      path.push(key);
      const index = this.arrayTables.get(pathId(path));
      if (index !== undefined && n < keys.length - 1) path.push(index);
    });
    return path;
  }

  private keyValue(base: TomlPath): void {
    const keys = this.keys();
    const path = [...base];
    // `a.b.c = 1` also writes the tables `a` and `a.b`, at the position of their own segment.
    for (const { key, offset } of keys) {
      path.push(key);
      if (path.length < base.length + keys.length) this.record(path, offset, offset);
    }
    this.skipInline();
    this.i++; // '='
    this.skipInline();
    this.value(path, keys[keys.length - 1]?.offset ?? this.i);
  }

  private value(path: TomlPath, keyOffset: number): void {
    this.record(path, keyOffset, this.i);
    const c = this.s[this.i];
    if (c === '{') {
      this.i++;
      // skipBlank, not skipInline: TOML 1.1 allows newlines and comments inside inline tables.
      for (;;) {
        this.skipBlank();
        if (this.s[this.i] === '}' || this.atEnd()) break;
        this.keyValue(path);
        this.skipBlank();
        if (this.s[this.i] === ',') this.i++;
      }
      this.i++;
    } else if (c === '[') {
      this.i++;
      for (let index = 0; ; index++) {
        this.skipBlank();
        if (this.s[this.i] === ']' || this.atEnd()) break;
        const before = this.i;
        this.value([...path, index], this.i);
        if (this.i === before) this.i++; // never loop on a character this scanner does not expect
        this.skipBlank();
        if (this.s[this.i] === ',') this.i++;
      }
      this.i++;
    } else if (c === '"' || c === "'") {
      this.string();
    } else {
      while (this.i < this.s.length && !/[,\]}#\r\n]/.test(this.s[this.i] as string)) this.i++;
    }
  }

  /** A dotted key: `a."b.c".d`, with spaces allowed around the dots. */
  private keys(): { key: string; offset: number }[] {
    const keys: { key: string; offset: number }[] = [];
    for (;;) {
      this.skipInline();
      const offset = this.i;
      const c = this.s[this.i];
      if (c === '"' || c === "'") {
        keys.push({ key: this.string(), offset });
      } else {
        while (this.i < this.s.length && BARE_KEY.test(this.s[this.i] as string)) this.i++;
        keys.push({ key: this.s.slice(offset, this.i), offset });
      }
      this.skipInline();
      if (this.s[this.i] !== '.') return keys;
      this.i++;
    }
  }

  /** Any of the four string forms; returns the decoded text (escapes matter only in keys). */
  private string(): string {
    const quote = this.s[this.i] as string;
    const multi = this.s.startsWith(quote.repeat(3), this.i);
    this.i += multi ? 3 : 1;
    let text = '';
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) return text;
      if (quote === '"' && c === '\\') {
        text += decodeEscape(this.s, this.i);
        this.i += escapeLength(this.s, this.i);
        continue;
      }
      if (c === quote && (!multi || this.s.startsWith(quote.repeat(3), this.i))) {
        // A multi-line string may end with up to two extra quotes that belong to its content.
        let end = this.i + (multi ? 3 : 1);
        while (multi && this.s[end] === quote && end - this.i < 5) end++;
        this.i = end;
        return text;
      }
      text += c;
      this.i++;
    }
  }

  private atEnd(): boolean {
    return this.i >= this.s.length;
  }

  private skipInline(): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }

  /** Whitespace, newlines and comments between statements or array elements. */
  private skipBlank(): void {
    for (;;) {
      const c = this.s[this.i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.i++;
      else if (c === '#') while (this.i < this.s.length && this.s[this.i] !== '\n') this.i++;
      else return;
    }
  }
}

function escapeLength(s: string, i: number): number {
  const c = s[i + 1];
  if (c === 'u') return 6;
  if (c === 'U') return 10;
  if (c === 'x') return 4;
  if (c === '\n' || c === '\r' || c === ' ' || c === '\t') {
    // Line-ending backslash in a multi-line string: skip the following whitespace too.
    let j = i + 1;
    while (j < s.length && /\s/.test(s[j] as string)) j++;
    return j - i;
  }
  return 2;
}

function decodeEscape(s: string, i: number): string {
  const c = s[i + 1];
  const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"' };
  if (c === '\\') return '\\';
  if (c !== undefined && c in simple) return simple[c] as string;
  if (c === 'u' || c === 'U' || c === 'x') {
    return String.fromCodePoint(Number.parseInt(s.slice(i + 2, i + escapeLength(s, i)), 16));
  }
  return '';
}
