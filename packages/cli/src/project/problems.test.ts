import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, ProjectError } from './problems.js';

describe('didYouMean', () => {
  it('measures edit distance', () => {
    expect(editDistance('nmae', 'name')).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests typos, other casings and shortened keys, and nothing for unrelated keys', () => {
    const keys = ['name', 'description', 'allowed_domains', 'max_input_chars', 'max_output_chars'];
    expect(didYouMean('nmae', keys)).toBe('did you mean "name"?');
    expect(didYouMean('descripton', keys)).toBe('did you mean "description"?');
    expect(didYouMean('allowedDomains', keys)).toBe('did you mean "allowed_domains"?');
    expect(didYouMean('max_input', keys)).toBe('did you mean "max_input_chars"?');
    expect(didYouMean('max', keys)).toBeUndefined(); // two keys start with it: no guess
    expect(didYouMean('colour', keys)).toBeUndefined();
  });
});

describe('ProjectError', () => {
  it('prints one line per problem, svc.toml first, then by file and position', () => {
    const error = new ProjectError([
      { file: 'models/a.yaml', line: 3, col: 5, message: 'b' },
      { file: 'svc.toml', line: 9, col: 1, message: 'c', hint: 'did you mean "x"?' },
      { file: 'svc.toml', line: 2, col: 7, message: 'a' },
    ]);
    expect(error.format()).toBe(
      ['svc.toml:2:7: a', 'svc.toml:9:1: c (did you mean "x"?)', 'models/a.yaml:3:5: b'].join('\n'),
    );
    expect(error.message).toMatch(/^the project has 3 problems:\n/);
  });
});
