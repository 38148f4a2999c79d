import type { AgentConfig } from '@svc/core';

/** Tool calls one turn may make when `toolsConfig.maxCallsPerTurn` is unset: no loop runs unbounded. */
export const DEFAULT_MAX_CALLS_PER_TURN = 10;

/** `github.*` matches every tool of the server `github`; `*` every tool; otherwise exact names. */
export function matchesToolPattern(name: string, pattern: string): boolean {
  if (!pattern.includes('*')) return name === pattern;
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
      .join('.*')}$`,
  );
  return regex.test(name);
}

/** Whether `toolsConfig` lets the agent use `name`: in `allowed` when that is set, never in `denied`. */
export function toolAllowed(name: string, tools: AgentConfig['toolsConfig'] | undefined): boolean {
  if (tools?.denied?.some((p) => matchesToolPattern(name, p))) return false;
  return tools?.allowed ? tools.allowed.some((p) => matchesToolPattern(name, p)) : true;
}

export function preApproved(name: string, list: AgentConfig['preApprovedTools'] | undefined): boolean {
  return list?.some((p) => matchesToolPattern(name, p)) ?? false;
}
