import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createDataDir, createTestDatabase, QUIET_SERVER } from '../../test/harness.js';
import { startServer } from '../server.js';
import { parseMcpCommands } from './deployment.js';

const dataDir = createDataDir;
const quiet = QUIET_SERVER;

describe('SVC_MCP_COMMANDS', () => {
  it('is a comma list of executable names and absolute paths', () => {
    expect(parseMcpCommands(' npx, uvx ,/opt/mcp/bin/files-mcp,')).toEqual([
      'npx',
      'uvx',
      '/opt/mcp/bin/files-mcp',
    ]);
    expect(parseMcpCommands(undefined)).toEqual([]);
  });

  it.each([
    [
      './bin/mcp',
      'SVC_MCP_COMMANDS entry "./bin/mcp" is not an executable name (such as npx) or an absolute path',
    ],
    ['npx -y', 'SVC_MCP_COMMANDS entry "npx -y" is not an executable name (such as npx) or an absolute path'],
    ['/bin/sh', 'SVC_MCP_COMMANDS names the shell "/bin/sh": a shell runs any command line an org writes'],
    ['bash', 'SVC_MCP_COMMANDS names the shell "bash"'],
  ])('refuses %j', (raw, message) => {
    expect(() => parseMcpCommands(`npx,${raw}`)).toThrow(message);
  });
});

describe('svc server with egress settings', () => {
  it('refuses to start with a malformed entry, naming it, before touching the data dir', async () => {
    const dir = await dataDir();
    await expect(
      startServer({ ...quiet, env: { SVC_DATA_DIR: dir, SVC_EGRESS_ALLOW: '10.0.0.0/33' } }),
    ).rejects.toThrow(
      'SVC_EGRESS_ALLOW entry "10.0.0.0/33" is not a host name, an IP address or a CIDR such as 10.0.0.0/8',
    );
    await expect(
      startServer({ ...quiet, env: { SVC_DATA_DIR: dir, SVC_MCP_COMMANDS: 'npx,sh' } }),
    ).rejects.toThrow('SVC_MCP_COMMANDS names the shell "sh"');
    expect(await readdir(dir)).toEqual([]);
  });

  it('applies SVC_EGRESS_ALLOW and SVC_MCP_COMMANDS from its environment to settings writes', async () => {
    const server = await startServer({
      ...quiet,
      env: {
        DATABASE_URL: await createTestDatabase(),
        SVC_DATA_DIR: await dataDir(),
        SVC_ADMIN_PASSWORD: 'pw-egress-0123456789',
        SVC_EGRESS_ALLOW: '10.0.0.0/8',
        SVC_MCP_COMMANDS: 'npx',
      },
    });
    try {
      const call = async (method: string, path: string, body: unknown) => {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: { authorization: 'Bearer pw-egress-0123456789', 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      expect((await call('POST', '/api/default/agents', { agentId: 'a', name: 'A' })).status).toBe(201);
      const allowed = await call('PATCH', '/api/default/agents/a/config', {
        mcpServers: { files: { command: 'npx' }, internal: { url: 'http://10.0.0.5/mcp' } },
      });
      expect(allowed.status).toBe(200);
      const refused = await call('PATCH', '/api/default/agents/a/config', {
        mcpServers: { files: { command: 'uvx' }, internal: { url: 'http://192.168.0.5/mcp' } },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual([
        '/body/mcpServers/files/command',
        '/body/mcpServers/internal/url',
      ]);
    } finally {
      await server.close();
    }
  });
});
