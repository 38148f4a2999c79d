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
    { dir: resolve(options.dir), yes: true, force: true, allowUnsetSecrets: true },
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
  const client = createClient(server.url, server.adminPassword);
  const { agents } = await client.request<{
    agents: { agentId: string; providers: { key: string; secret_ref: string; status: string }[] }[];
  }>('GET', '/api/default/agents');
  const bearer = server.adminPasswordFile ? `$(cat ${server.adminPasswordFile})` : '$SVC_ADMIN_PASSWORD';
  const first = agents[0];
  io.out('');
  io.out(`svc is running at ${server.url} (API reference: ${server.url}/docs). Ctrl-C stops it.`);
  io.out(
    `Console: ${server.url}/ in a browser; sign in with the admin password` +
      (server.adminPasswordFile ? ` (in ${server.adminPasswordFile}).` : ' (SVC_ADMIN_PASSWORD).'),
  );
  if (first) await firstReply(client, first, io);
  io.out(`Agents: ${agents.map((a) => a.agentId).join(', ') || 'none yet'}. Send a message:`);
  io.out(`  curl -s -X POST ${server.url}/api/v1/agents/${first?.agentId ?? '<agentId>'}/messages \\`);
  io.out(`    -H "Authorization: Bearer ${bearer}" -H 'Content-Type: application/json' \\`);
  io.out(`    -H 'Prefer: wait=30' -d '{"platform": "api", "content": "Hello!"}'`);
  stopOnSignal('run', server);
}

/**
 * Shows the first agent answering, or says exactly what to set: a person who ran `npm start`
 * learns at once whether their agent can speak.
 */
async function firstReply(
  client: ReturnType<typeof createClient>,
  agent: { agentId: string; providers: { key: string; secret_ref: string; status: string }[] },
  io: { out: (line: string) => void },
): Promise<void> {
  if (!agent.providers.some((p) => p.status === 'ok')) {
    const refs = agent.providers.map((p) => p.secret_ref.replace(/^\$\{?|\}$/g, ''));
    io.out(
      refs.length > 0
        ? `${agent.agentId} has no model key yet: set ${refs.join(' or ')} in this terminal and run it again ` +
            '(messages fail at once, saying so, until then).'
        : `${agent.agentId} has no model provider: add one to svc.toml ([[agents.${agent.agentId}.providers]]).`,
    );
    return;
  }
  io.out(`Asking ${agent.agentId} "Hello!"...`);
  interface Answer {
    status: string;
    reply?: string | null;
    model?: string | null;
    error?: { detail: string } | null;
  }
  const answer = await client
    .request<Answer>(
      'POST',
      `/api/v1/agents/${agent.agentId}/messages`,
      { platform: 'api', content: 'Hello!', channel: 'npm-start' },
      { prefer: 'wait=30' },
    )
    .catch((error: Error): Answer => ({ status: 'failed', error: { detail: error.message } }));
  if (answer.status === 'completed') io.out(`${agent.agentId} (${answer.model}): ${answer.reply}`);
  else if (answer.status === 'failed') io.out(`${agent.agentId} could not answer: ${answer.error?.detail}`);
  else io.out(`${agent.agentId} is still thinking; its reply will be in the message's events.`);
  io.out('');
}
