import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellWord, shellWordExpanding } from './shell.js';

/** What sh passes as the one argument the word is: printf shows it back byte for byte. */
const asShellSeesIt = (word: string, env: Record<string, string> = {}) =>
  execFileSync('/bin/sh', ['-c', `printf %s ${word}`], { env: { PATH: '/usr/bin:/bin', ...env } }).toString();

describe('step commands: values as shell words', () => {
  it('a pasted value is one argument, exactly as written, whatever it holds', () => {
    for (const value of [
      "it's",
      "a'; touch x; '",
      '$(touch x)',
      '`touch x`',
      'a\nb',
      '',
      '~/x',
      'plain-1.2/x',
    ]) {
      expect(asShellSeesIt(shellWord(value))).toBe(value);
    }
    expect(shellWord('careops')).toBe('careops');
  });

  it('only $NAME references expand where a value keeps them', () => {
    const word = shellWordExpanding("https://$HOST/x?a='$(touch x)'");
    expect(asShellSeesIt(word, { HOST: 'h.example' })).toBe("https://h.example/x?a='$(touch x)'");
  });
});
