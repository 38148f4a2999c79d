/**
 * `svc agents list|show|delete`: the org's agents as the server has them (`svc apply` writes them).
 * `show` is what a person checks after an apply: settings, each platform's webhook URL to paste in
 * the chat service, and whether each provider's secret resolves.
 */

import type { Agent } from '@svc/core';
import { openApi, type RuntimeIo, type SessionFlags } from './api.js';
import { cell, short, table, when } from './table.js';

type Json = { json?: boolean };

const problemsOf = (problems: { message: string }[]) => problems.map((p) => p.message).join('; ');

export async function agentsList(flags: SessionFlags & Json, io: RuntimeIo): Promise<void> {
  const api = await openApi(io, flags);
  const { agents } = await api.call<{ agents: Agent[] }>('GET', '/agents?include=platforms');
  if (flags.json) {
    io.out(JSON.stringify({ org: api.session.org, agents }, null, 2));
    return;
  }
  if (agents.length === 0) {
    io.out(`No agents in org ${api.session.org}: declare one in svc.toml and run "svc apply".`);
    return;
  }
  const rows = agents.map((a) => [
    a.agentId,
    cell(a.providers.map((p) => `${p.key}${p.status === 'ok' ? '' : '(error)'}`).join(',')),
    String(a.platforms?.length ?? 0),
    when(a.updatedAt),
    short(a.name, 40),
  ]);
  for (const line of table(['AGENT', 'PROVIDERS', 'PLATFORMS', 'UPDATED', 'NAME'], rows)) io.out(line);
}

export async function agentsShow(id: string, flags: SessionFlags & Json, io: RuntimeIo): Promise<void> {
  const api = await openApi(io, flags);
  const { agent } = await api.call<{ agent: Agent }>(
    'GET',
    `/agents/${encodeURIComponent(id)}?include=config,platforms`,
    undefined,
    { not_found: `org ${api.session.org} has no agent "${id}": "svc agents list" shows them` },
  );
  if (flags.json) {
    io.out(JSON.stringify({ agent }, null, 2));
    return;
  }
  io.out(`agent ${agent.agentId}: ${agent.name}`);
  if (agent.description) io.out(`  ${short(agent.description, 100)}`);
  io.out(`  created ${when(agent.createdAt)}, updated ${when(agent.updatedAt)}`);
  io.out('providers:');
  if (agent.providers.length === 0) io.out('  none: the agent cannot answer until one is set');
  for (const p of agent.providers)
    io.out(
      `  ${p.key}  ${p.secret_ref}  ${p.status}${p.problems.length ? `: ${problemsOf(p.problems)}` : ''}`,
    );
  io.out('platforms:');
  if (!agent.platforms?.length) io.out('  none (the HTTP API only)');
  for (const p of agent.platforms ?? []) {
    io.out(`  ${p.stableId}  ${p.type}${p.name ? ` "${p.name}"` : ''}  ${p.status}`);
    io.out(`    webhook ${p.webhookUrl}`);
    if (p.problems.length) io.out(`    ${problemsOf(p.problems)}`);
  }
  io.out('settings:');
  const settings = Object.entries(agent.config ?? {}).filter(
    ([, value]) => value !== null && value !== undefined,
  );
  if (settings.length === 0) io.out('  defaults');
  for (const [key, value] of settings) io.out(`  ${key} = ${short(JSON.stringify(value), 100)}`);
}

export interface DeleteFlags extends SessionFlags {
  yes?: boolean;
}

/** Asks first: a deleted agent takes its settings and platforms with it, and `svc apply` would recreate only what svc.toml declares. */
export async function agentsDelete(
  id: string,
  flags: DeleteFlags,
  io: RuntimeIo & { confirm?: (question: string) => Promise<boolean> },
): Promise<void> {
  if (!flags.yes) {
    if (!io.confirm) {
      throw new Error(
        `not deleting agent "${id}": no terminal to ask on; pass --yes to delete it with its settings and platforms`,
      );
    }
    if (!(await io.confirm(`Delete agent "${id}" with its settings and platforms?`))) {
      throw new Error(`agent "${id}" was not deleted`);
    }
  }
  const api = await openApi(io, flags);
  await api.call('DELETE', `/agents/${encodeURIComponent(id)}`, undefined, {
    not_found: `org ${api.session.org} has no agent "${id}": "svc agents list" shows them`,
    conflict: `"svc watchers list" shows which watchers name it`,
  });
  io.out(`deleted agent "${id}" with its settings and platforms`);
}
