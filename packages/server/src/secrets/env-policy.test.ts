import { describe, expect, it } from 'vitest';
import { parseEnvSecretPolicy } from './env-policy.js';

describe('SVC_SECRETS_FROM_ENV', () => {
  it('unset on an embedded deployment: every name, for the org "default" only', () => {
    const policy = parseEnvSecretPolicy(undefined, true);
    expect(policy.allows('default', 'OPENAI_API_KEY')).toBe(true);
    expect(policy.allows('acme', 'OPENAI_API_KEY')).toBe(false);
    expect(policy.allows('default', 'SVC_ADMIN_PASSWORD')).toBe(false);
    expect(policy.allows('default', 'DATABASE_URL')).toBe(false);
  });

  it('unset elsewhere, or empty: none', () => {
    expect(parseEnvSecretPolicy(undefined, false).allows('default', 'OPENAI_API_KEY')).toBe(false);
    expect(parseEnvSecretPolicy('', true).allows('default', 'OPENAI_API_KEY')).toBe(false);
  });

  it('names and PREFIX_* patterns, for every org; reserved names never, even through *', () => {
    const policy = parseEnvSecretPolicy(' OPENAI_API_KEY, SLACK_* ', false);
    expect(policy.allows('acme', 'OPENAI_API_KEY')).toBe(true);
    expect(policy.allows('acme', 'SLACK_BOT_TOKEN')).toBe(true);
    expect(policy.allows('acme', 'ANTHROPIC_API_KEY')).toBe(false);
    expect(policy.description).toBe('OPENAI_API_KEY, SLACK_*');
    const all = parseEnvSecretPolicy('*', false);
    expect(all.allows('acme', 'ANYTHING')).toBe(true);
    for (const name of ['SVC_ADMIN_PASSWORD', 'PGPASSWORD', 'NODE_OPTIONS', 'DATABASE_URL']) {
      expect(all.allows('acme', name), name).toBe(false);
    }
  });

  it('refuses a reserved name or a malformed entry at start, saying what is wrong', () => {
    expect(() => parseEnvSecretPolicy('OPENAI_API_KEY,SVC_ADMIN_PASSWORD', false)).toThrow(
      /"SVC_ADMIN_PASSWORD" cannot be allowed: names starting with SVC_/,
    );
    expect(() => parseEnvSecretPolicy('openai-key', false)).toThrow(
      /"openai-key" is neither a variable name/,
    );
    expect(() => parseEnvSecretPolicy('SLACK_*_TOKEN', false)).toThrow(/neither/);
  });
});
