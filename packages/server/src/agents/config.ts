import { type AgentConfig, SETTING_KEYS } from '@svc/core';

/** All 13 settings, `null` where unset. */
export function fullConfig(stored: Partial<AgentConfig> | null | undefined): AgentConfig {
  return Object.fromEntries(SETTING_KEYS.map((k) => [k, stored?.[k] ?? null])) as AgentConfig;
}
