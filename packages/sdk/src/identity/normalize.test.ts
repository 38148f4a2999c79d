import { describe, expect, it } from 'vitest';
import { IDENTITY, IDENTITY_NAMESPACES } from './namespaces.js';
import {
  normalizeAuthUserId,
  normalizeCodeHostLogin,
  normalizeCodeHostRepoFullName,
  normalizeCodeHostRepoId,
  normalizeCodeHostUserId,
  normalizeContactsContactId,
  normalizeEmail,
  normalizeIdentity,
  normalizeMessagingJid,
  normalizePhone,
  normalizeTeamChatUserId,
} from './normalize.js';

describe('every normaliser', () => {
  it.each(IDENTITY_NAMESPACES)('gives null for a missing or blank %s', (namespace) => {
    for (const blank of [null, undefined, '', '   ', '\n\t']) {
      expect(normalizeIdentity(namespace, blank)).toBeNull();
    }
  });

  it.each(IDENTITY_NAMESPACES)('gives null for a %s that is an object or a boolean', (namespace) => {
    for (const value of [{}, ['jane@example.com'], true]) {
      expect(normalizeIdentity(namespace, value)).toBeNull();
    }
  });
});

describe('normalizeEmail', () => {
  it('makes differently written addresses one identity', () => {
    const seen = ['jane.doe+news@example.com', ' Jane.Doe+News@Example.COM ', 'JANE.DOE+NEWS@EXAMPLE.COM'];
    expect(new Set(seen.map(normalizeEmail))).toEqual(new Set(['jane.doe+news@example.com']));
  });

  it('keeps plus-tags and dots, which may be separate mailboxes', () => {
    expect(normalizeEmail('jane+news@example.com')).not.toBe(normalizeEmail('jane@example.com'));
    expect(normalizeEmail('j.ane@example.com')).toBe('j.ane@example.com');
  });

  it.each([
    'jane',
    'jane@',
    '@example.com',
    'jane@localhost',
    'jane@@example.com',
    'jane@example..com',
    'jane@example.com.',
    'jane doe@example.com',
    'Jane <jane@example.com>',
    'jane@example.com, joe@example.com',
    'mailto:jane@example.com',
  ])('rejects %j', (value) => {
    expect(normalizeEmail(value)).toBeNull();
  });
});

describe('normalizePhone', () => {
  it('writes national and international forms of one number as the same E.164', () => {
    const seen = [
      '(212) 736-5000',
      '212.736.5000',
      '+1 212 736 5000',
      '1-212-736-5000',
      'tel:+1-212-736-5000',
    ];
    expect(new Set(seen.map((p) => normalizePhone(p)))).toEqual(new Set(['+12127365000']));
  });

  it('reads a number without + in the default region, and ignores the region for one with +', () => {
    expect(normalizePhone('0151 12345678', 'DE')).toBe('+4915112345678');
    expect(normalizePhone('0151 12345678', 'de')).toBe('+4915112345678');
    expect(normalizePhone('+49 151 12345678')).toBe('+4915112345678');
    expect(normalizePhone('+49 151 12345678', 'GB')).toBe('+4915112345678');
    expect(normalizePhone('011 49 151 12345678')).toBe('+4915112345678');
    expect(normalizePhone('020 7946 0958', 'GB')).toBe('+442079460958');
  });

  it('drops an extension: the line is the identity', () => {
    expect(normalizePhone('212 736 5000 ext. 12')).toBe('+12127365000');
  });

  it.each([
    ['12345', 'US'],
    ['4915112345678', 'US'], // a German number without its +, read as American
    ['0151 1234567', 'DE'], // one digit short for a German mobile
    ['+1 (800) FLOWERS', 'US'],
    ['call me on 212-736-5000', 'US'],
    ['+1 212 736 5000 abc', 'US'],
  ])('rejects %j in %s', (value, region) => {
    expect(normalizePhone(value, region)).toBeNull();
  });

  it('throws for an unknown region, which is a bug in the connector rather than bad data', () => {
    expect(() => normalizePhone('212 736 5000', 'XX')).toThrow(RangeError);
    expect(() => normalizePhone('212 736 5000', 'XX')).toThrow('"XX"');
  });
});

describe('normalizeMessagingJid', () => {
  it('makes all devices and client-library spellings of one WhatsApp user one identity', () => {
    const seen = [
      '4915112345678@s.whatsapp.net',
      '4915112345678:12@s.whatsapp.net',
      '4915112345678:0@S.WhatsApp.Net',
      ' 4915112345678@c.us ',
    ];
    expect(new Set(seen.map(normalizeMessagingJid))).toEqual(new Set(['4915112345678@s.whatsapp.net']));
  });

  it('keeps group and other server JIDs, and strips an XMPP resource', () => {
    expect(normalizeMessagingJid('120363025246125486@g.us')).toBe('120363025246125486@g.us');
    expect(normalizeMessagingJid('Juliet@Example.com/balcony')).toBe('juliet@example.com');
  });

  it.each(['4915112345678', '@s.whatsapp.net', '4915112345678@', 'a@b@c', '49151 12345678@s.whatsapp.net'])(
    'rejects %j',
    (value) => {
      expect(normalizeMessagingJid(value)).toBeNull();
    },
  );
});

describe('normalizeTeamChatUserId', () => {
  it('trims and uppercases', () => {
    expect(normalizeTeamChatUserId(' u024be7lh ')).toBe('U024BE7LH');
    expect(normalizeTeamChatUserId('W012A3CDE')).toBe('W012A3CDE');
  });

  it('rejects an id with a space inside', () => {
    expect(normalizeTeamChatUserId('U024 BE7LH')).toBeNull();
  });
});

describe('normalizeCodeHostLogin', () => {
  it('makes a mention and a differently cased login one identity', () => {
    expect(new Set(['octocat', '@Octocat', ' OCTOCAT '].map(normalizeCodeHostLogin))).toEqual(
      new Set(['octocat']),
    );
  });

  it('keeps app logins', () => {
    expect(normalizeCodeHostLogin('dependabot[bot]')).toBe('dependabot[bot]');
  });

  it.each(['@', 'octo cat', 'octocat/hello-world', '@@octocat'])('rejects %j', (value) => {
    expect(normalizeCodeHostLogin(value)).toBeNull();
  });
});

describe.each([
  ['normalizeCodeHostUserId', normalizeCodeHostUserId],
  ['normalizeCodeHostRepoId', normalizeCodeHostRepoId],
])('%s', (_, normalize) => {
  it('gives the same decimal string for the id as a number and as text', () => {
    expect(normalize(583231)).toBe('583231');
    expect(normalize(' 583231 ')).toBe('583231');
    expect(normalize('00583231')).toBe('583231');
  });

  it('keeps ids past 2^53 exact when given as text', () => {
    expect(normalize('9007199254740993')).toBe('9007199254740993');
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '-1', '1e3', '12a', 'MDQ6VXNlcjE='])(
    'rejects %j',
    (value) => {
      expect(normalize(value)).toBeNull();
    },
  );
});

describe('normalizeCodeHostRepoFullName', () => {
  it('makes a full name and the URLs of that repository one identity', () => {
    const seen = [
      'octocat/Hello-World',
      'Octocat/Hello-World.git',
      'https://github.com/octocat/Hello-World',
      'https://github.com/octocat/Hello-World/',
      'https://github.com/octocat/Hello-World.git',
      'https://x-access-token:abc@github.com/octocat/hello-world.git',
      'https://github.com/octocat/hello-world?tab=readme#install',
      'git@github.com:octocat/hello-world.git',
      'ssh://git@github.com/octocat/hello-world.git',
    ];
    expect(new Set(seen.map(normalizeCodeHostRepoFullName))).toEqual(new Set(['octocat/hello-world']));
  });

  it('keeps names that merely contain ".git"', () => {
    expect(normalizeCodeHostRepoFullName('octocat/.github')).toBe('octocat/.github');
    expect(normalizeCodeHostRepoFullName('octocat/git.github.io')).toBe('octocat/git.github.io');
  });

  it.each([
    'octocat',
    'octocat/',
    '/hello-world',
    'octocat/hello world',
    'https://github.com',
    'https://github.com/octocat',
    'https://github.com/octocat/hello-world/pull/3',
    'github.com/octocat/hello-world',
    'group/subgroup/project',
  ])('rejects %j rather than guessing', (value) => {
    expect(normalizeCodeHostRepoFullName(value)).toBeNull();
  });
});

describe('opaque ids (auth user, contact)', () => {
  it('trims, keeps case, and accepts a non-negative integer', () => {
    expect(normalizeAuthUserId(' auth0|5F7c8e ')).toBe('auth0|5F7c8e');
    expect(normalizeAuthUserId(42)).toBe('42');
    expect(normalizeAuthUserId(-1)).toBeNull();
    expect(normalizeContactsContactId(' people/c8471982374 ')).toBe('people/c8471982374');
    expect(normalizeContactsContactId(7)).toBe('7');
  });
});

describe('normalizeIdentity', () => {
  it('uses the normaliser of the namespace', () => {
    expect(normalizeIdentity(IDENTITY.EMAIL, ' Jane@Example.com ')).toBe('jane@example.com');
    expect(normalizeIdentity(IDENTITY.PHONE, '(212) 736-5000')).toBe('+12127365000');
    expect(normalizeIdentity(IDENTITY.MESSAGING_JID, '4915112345678:3@c.us')).toBe(
      '4915112345678@s.whatsapp.net',
    );
    expect(normalizeIdentity(IDENTITY.TEAM_CHAT_USER_ID, 'u024be7lh')).toBe('U024BE7LH');
    expect(normalizeIdentity(IDENTITY.CODE_HOST_LOGIN, '@Octocat')).toBe('octocat');
    expect(normalizeIdentity(IDENTITY.CODE_HOST_USER_ID, 583231)).toBe('583231');
    expect(normalizeIdentity(IDENTITY.CODE_HOST_REPO_ID, '01296269')).toBe('1296269');
    expect(normalizeIdentity(IDENTITY.CODE_HOST_REPO_FULL_NAME, 'https://github.com/A/B')).toBe('a/b');
    expect(normalizeIdentity(IDENTITY.AUTH_USER_ID, ' Sub-1 ')).toBe('Sub-1');
    expect(normalizeIdentity(IDENTITY.CONTACTS_CONTACT_ID, ' c1 ')).toBe('c1');
  });

  it('passes the default region on to phone numbers', () => {
    expect(normalizeIdentity(IDENTITY.PHONE, '0151 12345678')).toBeNull();
    expect(normalizeIdentity(IDENTITY.PHONE, '0151 12345678', { defaultRegion: 'DE' })).toBe(
      '+4915112345678',
    );
  });

  it('refuses numbers where a number has already lost part of the identifier', () => {
    expect(normalizeIdentity(IDENTITY.PHONE, 12127365000)).toBeNull();
    expect(normalizeIdentity(IDENTITY.TEAM_CHAT_USER_ID, 80351110224678912)).toBeNull();
  });

  it('trims custom namespaces and keeps their case', () => {
    expect(normalizeIdentity('custom:shop_customer_id', ' C-1001 ')).toBe('C-1001');
    expect(normalizeIdentity('custom:shop_customer_id', 1001)).toBe('1001');
    expect(normalizeIdentity('custom:shop_customer_id', '  ')).toBeNull();
  });

  it('throws a RangeError naming a misspelt or empty namespace', () => {
    expect(() => normalizeIdentity('emial' as never, 'jane@example.com')).toThrow(RangeError);
    expect(() => normalizeIdentity('emial' as never, 'jane@example.com')).toThrow('"emial"');
    expect(() => normalizeIdentity('custom:', 'x')).toThrow('"custom:"');
  });
});
