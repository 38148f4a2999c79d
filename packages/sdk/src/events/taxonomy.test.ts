import { describe, expect, it } from 'vitest';
import { isSourceNativeEventType, SOURCE_NATIVE_EVENT_TYPES } from './taxonomy.js';

describe('SOURCE_NATIVE_EVENT_TYPES', () => {
  it('has the types connectors most often emit', () => {
    for (const type of ['post', 'comment', 'message', 'email', 'issue', 'pull_request', 'commit', 'event']) {
      expect(SOURCE_NATIVE_EVENT_TYPES).toContain(type);
    }
  });

  it('lists each type once, in singular snake_case', () => {
    expect(new Set(SOURCE_NATIVE_EVENT_TYPES).size).toBe(SOURCE_NATIVE_EVENT_TYPES.length);
    for (const type of SOURCE_NATIVE_EVENT_TYPES) {
      expect(type).toMatch(/^[a-z]+(?:_[a-z]+)*$/);
      expect(type).not.toMatch(/[^s]s$/);
    }
  });
});

describe('isSourceNativeEventType', () => {
  it.each(SOURCE_NATIVE_EVENT_TYPES)('accepts %s', (type) => {
    expect(isSourceNativeEventType(type)).toBe(true);
  });

  it.each(['Post', 'pull-request', 'pull request', ' post', 'posts', '', 'tweet', 'toString', 'constructor'])(
    'rejects %j',
    (value) => {
      expect(isSourceNativeEventType(value)).toBe(false);
    },
  );

  it('rejects values that are not strings', () => {
    for (const value of [undefined, null, 1, {}, ['post']]) {
      expect(isSourceNativeEventType(value)).toBe(false);
    }
  });

  it('narrows the type', () => {
    const value: unknown = 'issue';
    if (isSourceNativeEventType(value)) {
      const narrowed: (typeof SOURCE_NATIVE_EVENT_TYPES)[number] = value;
      expect(narrowed).toBe('issue');
    } else {
      expect.unreachable();
    }
  });
});
