import { describe, expect, it } from 'vitest';
import {
  ID_PATTERN,
  SlugifyError,
  STABLE_ID_PATTERN,
  slugify,
  stablePlatformId,
  webhookPath,
} from './ids.js';
import { findSecretReferences, resolveSecretReferences } from './secrets.js';

describe('slugify', () => {
  it.each([
    ['Café Crème', 'cafe-creme'],
    ['  Hello, World!  ', 'hello-world'],
    ['team_chat', 'team-chat'],
    ['EU--Ops__2', 'eu-ops-2'],
    ['Ｆｕｌｌｗｉｄｔｈ', 'fullwidth'],
    ['naïve-Ångström', 'naive-angstrom'],
  ])('%j -> %j', (input, slug) => {
    expect(slugify(input)).toBe(slug);
  });

  it('refuses an input with no letters or digits, naming it', () => {
    expect(() => slugify('!!!')).toThrow(SlugifyError);
    expect(() => slugify('—')).toThrow(/"—"/);
  });
});

describe('stablePlatformId', () => {
  it('joins agent, type and the optional name', () => {
    expect(stablePlatformId('support', 'team_chat')).toBe('support-team-chat');
    expect(stablePlatformId('support', 'team_chat', 'EU Ops')).toBe('support-team-chat-eu-ops');
    expect(stablePlatformId('support', 'messenger', '')).toBe('support-messenger');
    expect(webhookPath('support-messenger')).toBe('/api/v1/webhooks/support-messenger');
  });

  it('gives names that differ only in case or punctuation the same ID', () => {
    expect(stablePlatformId('a', 'messenger', 'Main')).toBe(stablePlatformId('a', 'messenger', 'main!'));
  });

  it('always makes what STABLE_ID_PATTERN takes (the apply manifest checks stable IDs with it)', () => {
    for (const [agentId, type, name] of [
      ['support', 'team_chat', undefined],
      ['eu--ops-', 'messenger', 'Café Crème'],
      ['0day', 'team_chat', '  Ｆｕｌｌ  width!! '],
    ] as const) {
      expect(stablePlatformId(agentId, type, name)).toMatch(STABLE_ID_PATTERN);
    }
    for (const id of [
      'support',
      'support-',
      '-support-team-chat',
      'support--team-chat',
      'Support-team-chat',
    ]) {
      expect(id).not.toMatch(STABLE_ID_PATTERN);
    }
  });
});

describe('the identifier rule', () => {
  it.each(['default', 'a', 'support-bot', '0day', 'a'.repeat(63)])('accepts %j', (id) => {
    expect(ID_PATTERN.test(id)).toBe(true);
  });
  it.each(['', '-a', 'A', 'has space', 'under_score', 'a'.repeat(64), 'é'])('refuses %j', (id) => {
    expect(ID_PATTERN.test(id)).toBe(false);
  });
});

describe('secret references', () => {
  it('finds $NAME and ${NAME}, whole or inside strings, with the JSON Pointer of each', () => {
    expect(
      findSecretReferences({
        token: '$BOT_TOKEN',
        auth: { header: 'Bearer ${API_KEY}' },
        list: ['x', '$A'],
        n: 3,
      }),
    ).toEqual([
      { variable: 'BOT_TOKEN', path: '/token' },
      { variable: 'API_KEY', path: '/auth/header' },
      { variable: 'A', path: '/list/1' },
    ]);
  });

  it('ignores lowercase and lone dollars, and escapes keys in paths', () => {
    expect(findSecretReferences({ 'a/b': 'costs $5 or $lower', c: '$' })).toEqual([]);
    expect(findSecretReferences({ 'a/b~': '$X' })).toEqual([{ variable: 'X', path: '/a~1b~0' }]);
  });

  it('resolves references, and names the first unset variable', () => {
    expect(resolveSecretReferences('Bearer ${T}-$U', { T: 't', U: 'u' })).toBe('Bearer t-u');
    expect(() => resolveSecretReferences('$MISSING', {})).toThrow(/MISSING is not set/);
    expect(() => resolveSecretReferences('$EMPTY', { EMPTY: '' })).toThrow(/EMPTY is not set/);
  });
});
