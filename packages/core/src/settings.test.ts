import { describe, expect, it } from 'vitest';
import { cronSchema, watcherSchema } from './resources.js';
import { agentConfigPatchSchema, SETTING_KEYS } from './settings.js';

describe('agent settings', () => {
  it('has exactly the 13 settings of the spec', () => {
    expect(SETTING_KEYS).toEqual([
      'networkConfig',
      'egressConfig',
      'nixConfig',
      'mcpServers',
      'skillsConfig',
      'toolsConfig',
      'guardrails',
      'preApprovedTools',
      'providerModelPreferences',
      'modelSelection',
      'IDENTITY.md',
      'SOUL.md',
      'USER.md',
    ]);
  });

  it('accepts a realistic full configuration', () => {
    const config = {
      networkConfig: { allowedDomains: ['api.github.com', '*.example.com'], deniedDomains: [] },
      egressConfig: { mode: 'proxy', proxyUrl: 'http://proxy.internal:3128', allowedPorts: [443] },
      nixConfig: { packages: ['jq', 'python3Packages.requests'] },
      mcpServers: {
        github: { url: 'https://mcp.example.com/github', headers: { Authorization: 'Bearer ${GH_TOKEN}' } },
        files: { command: 'npx', args: ['-y', 'files-mcp'], env: { ROOT: '/data' } },
      },
      skillsConfig: { skills: [{ name: 'web-search', enabled: true }] },
      toolsConfig: { allowed: ['github.*'], maxCallsPerTurn: 20 },
      guardrails: { maxInputChars: 20000, blockedTerms: ['password'], redactPii: true },
      preApprovedTools: ['github.list_issues'],
      providerModelPreferences: { openai: { model: 'gpt-4.1-mini', temperature: 0.2 } },
      modelSelection: { mode: 'pinned', model: 'openai/gpt-4.1-mini' },
      'IDENTITY.md': '# Support',
      'SOUL.md': null,
    };
    expect(agentConfigPatchSchema.safeParse(config).success).toBe(true);
  });

  it.each([
    [{ mcpServers: { x: { url: 'https://a', command: 'b' } } }, ['mcpServers', 'x', 'url']],
    [{ mcpServers: { x: {} } }, ['mcpServers', 'x', 'url']],
    [{ mcpServers: { x: { url: 'https://a', args: ['-v'] } } }, ['mcpServers', 'x', 'args']],
    [{ modelSelection: { mode: 'pinned' } }, ['modelSelection', 'model']],
    [{ modelSelection: { mode: 'pinned', model: 'gpt-4' } }, ['modelSelection', 'model']],
    [{ networkConfig: { allowedDomains: ['Not A Domain'] } }, ['networkConfig', 'allowedDomains', 0]],
    [{ egressConfig: { mode: 'proxy', proxyUrl: 'ftp://x' } }, ['egressConfig', 'proxyUrl']],
    [{ toolsConfig: { maxCallsPerTurn: 0 } }, ['toolsConfig', 'maxCallsPerTurn']],
    [{ nixConfig: { packages: ['rm -rf'] } }, ['nixConfig', 'packages', 0]],
  ])('refuses %j at %j', (patch, path) => {
    const result = agentConfigPatchSchema.safeParse(patch);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path)).toContainEqual(path);
  });
});

describe('watcher schedules', () => {
  it.each(['* * * * *', '0 9 * * 1-5', '*/15 * * * *', '0 0 1 1 *'])('accepts %j', (cron) => {
    expect(cronSchema.safeParse(cron).success).toBe(true);
  });
  it.each(['* * * * * *', '0 9 * *', '61 * * * *', 'every day', '0 0 31 2 *'])('refuses %j', (cron) => {
    expect(cronSchema.safeParse(cron).success).toBe(false);
  });
  it('refuses an unknown time zone', () => {
    const watcher = { slug: 'w', name: 'W', schedule: '0 9 * * *', prompt: 'p', agent: 'a' };
    expect(watcherSchema.safeParse({ ...watcher, timezone: 'Europe/Berlin' }).success).toBe(true);
    expect(watcherSchema.safeParse({ ...watcher, timezone: 'Mars/Olympus' }).success).toBe(false);
  });
});
