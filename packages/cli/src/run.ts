import { resolve } from 'node:path';
import { applyCommand } from './apply/command.js';
import { applyIo } from './io.js';
import { type ServerOptions, startOrExit, stopOnSignal } from './server.js';
import { createClient } from './session/client.js';

/**
 * `svc run`: the gateway (embedded PostgreSQL unless DATABASE_URL) with the project applied to the
 * org `default`, up until Ctrl-C. The apply runs in-process with the admin password, so no login is
 * needed; stable IDs come from the same function `svc apply` uses.
 * Exit codes: 0 after Ctrl-C, 1 when the server cannot start or the project cannot be applied.
 */
export async function runCommand(options: ServerOptions & { dir: string }): Promise<void> {
  const server = await startOrExit('run', options);
  const io = applyIo(false);
  const code = await applyCommand(
    { dir: resolve(options.dir), yes: true, force: true },
    {
      ...io,
      env: { ...process.env, SVC_API_TOKEN: server.adminPassword, SVC_URL: server.url, SVC_ORG: 'default' },
    },
  ).catch((error: Error) => {
    io.err(`svc run: ${error.message}`);
    return 1;
  });
  if (code !== 0) {
    await server.close();
    process.exit(1);
  }
  const { agents } = await createClient(server.url, server.adminPassword).request<{
    agents: { agentId: string }[];
  }>('GET', '/api/default/agents');
  const bearer = server.adminPasswordFile ? `$(cat ${server.adminPasswordFile})` : '$SVC_ADMIN_PASSWORD';
  io.out('');
  io.out(`svc is running at ${server.url} (API reference: ${server.url}/docs). Ctrl-C stops it.`);
  io.out(`Agents: ${agents.map((a) => a.agentId).join(', ') || 'none yet'}. Send a first message:`);
  io.out(`  curl -s -X POST ${server.url}/api/v1/agents/${agents[0]?.agentId ?? '<agentId>'}/messages \\`);
  io.out(`    -H "Authorization: Bearer ${bearer}" -H 'Content-Type: application/json' \\`);
  io.out(`    -d '{"platform": "api", "content": "Hello!"}'`);
  stopOnSignal('run', server);
}
