import { describe, expect, it } from 'vitest';
import { splitReply } from './send.js';

describe('splitReply', () => {
  it('keeps a reply that fits whole, empty included', () => {
    expect(splitReply('short', 10)).toEqual(['short']);
    expect(splitReply('', 10)).toEqual(['']);
  });

  it('cuts at the last line or word break, and loses no word', () => {
    const parts = splitReply('one two three\nfour five six seven', 12);
    expect(parts).toEqual(['one two', 'three\nfour', 'five six', 'seven']);
    expect(parts.every((part) => part.length <= 12)).toBe(true);
  });

  it('cuts a word with no break in reach, but never between the halves of an emoji', () => {
    const parts = splitReply(`${'a'.repeat(9)}😀${'b'.repeat(5)}`, 10);
    expect(parts.join('')).toBe(`${'a'.repeat(9)}😀${'b'.repeat(5)}`);
    expect(parts[0]).toBe('a'.repeat(9));
    expect(parts.every((part) => part.length <= 10 && !/[\uD800-\uDBFF]$/.test(part))).toBe(true);
  });
});
