import { IDENTITY, validateDefinition } from '@svc/connector-sdk';
import { describe, expect, it } from 'vitest';
import codeHost, { codeHost as named } from './index.js';

describe('the definition', () => {
  it('is valid', () => {
    expect(validateDefinition(codeHost)).toEqual({ valid: true, problems: [] });
  });

  it('is the default export, as `svc connector sync <file>` loads it, and the named one', async () => {
    const module = await import('./index.js');
    expect(module.default).toBe(named);
    expect(codeHost.definition).toMatchObject({
      key: 'code-host',
      version: '0.1.0',
      faviconDomain: 'github.com',
      authSchema: { methods: [{ type: 'oauth', provider: 'github', requiredScopes: ['repo'] }] },
    });
  });

  it('asks each feed for a repo, and links authors to members by login and user id', () => {
    for (const [key, kind] of [
      ['issues', 'issue'],
      ['pull_requests', 'pull_request'],
    ] as const) {
      const feed = codeHost.definition.feeds?.[key];
      expect(feed?.requiredScopes).toEqual(['repo']);
      expect(feed?.configSchema).toMatchObject({
        type: 'object',
        required: ['repo'],
        properties: {
          repo: { type: 'string' },
          apiUrl: { default: 'https://api.github.com' },
          state: { enum: ['open', 'closed', 'all'], default: 'all' },
        },
      });
      expect(feed?.eventKinds?.[kind]?.entityLinks?.[0]).toMatchObject({
        entityType: 'member',
        identities: [
          { namespace: IDENTITY.CODE_HOST_LOGIN, eventPath: 'payload_data.user.login' },
          { namespace: IDENTITY.CODE_HOST_USER_ID, eventPath: 'payload_data.user.id' },
        ],
      });
    }
    expect(codeHost.definition.feeds?.issues?.displayNameTemplate).toBe('Issues of {repo}');
  });

  it('says which action needs approval', () => {
    const { create_issue, add_label } = codeHost.definition.actions ?? {};
    expect(create_issue).toMatchObject({ requiresApproval: true, annotations: { idempotentHint: false } });
    expect(add_label).toMatchObject({ requiresApproval: false, annotations: { idempotentHint: true } });
    expect(create_issue?.inputSchema).toMatchObject({ required: ['title'] });
    expect(add_label?.inputSchema).toMatchObject({ required: ['number', 'labels'] });
  });
});
