import type { AgentConfig } from '@svc/core';
import { baseUrlVariable, type ProviderEntry, providerEntry } from './catalogue.js';

/** One model to try, in the order a turn tries them. */
export interface Candidate {
  provider: string;
  model: string;
  entry: ProviderEntry & { baseURL: string };
  /** The agent's reference for this provider's key; null for a provider that needs none. */
  secretRef: string | null;
  temperature?: number;
  maxOutputTokens?: number;
}

export interface Selection {
  candidates: Candidate[];
  /** Why a provider the agent names gives no candidate, each saying what to set. */
  problems: string[];
}

/**
 * The models a turn tries, in order (DESIGN.md section 9): `pinned` names one (then its provider's
 * `fallbackModels`); `auto` walks the listed providers, else the agent's, each with its preferred
 * model (else the catalogue's default) and then its fallbacks.
 */
export function selectModels(
  agent: {
    agentId: string;
    providers: { key: string; secret_ref: string }[];
    config: Partial<Pick<AgentConfig, 'modelSelection' | 'providerModelPreferences'>>;
  },
  env: Record<string, string | undefined>,
): Selection {
  const selection = agent.config.modelSelection ?? { mode: 'auto' as const };
  const preferences = agent.config.providerModelPreferences ?? {};
  const problems: string[] = [];
  const plan: { provider: string; models: (string | null)[] }[] = [];
  if (selection.mode === 'pinned') {
    const slash = selection.model.indexOf('/');
    const provider = selection.model.slice(0, slash);
    plan.push({
      provider,
      models: [selection.model.slice(slash + 1), ...(preferences[provider]?.fallbackModels ?? [])],
    });
  } else {
    const providers = selection.providers ?? agent.providers.map((p) => p.key);
    for (const provider of providers) {
      const preference = preferences[provider];
      plan.push({
        provider,
        models: [
          preference?.model ?? providerEntry(provider, env).defaultModel,
          ...(preference?.fallbackModels ?? []),
        ],
      });
    }
  }

  const candidates: Candidate[] = [];
  for (const { provider, models } of plan) {
    const entry = providerEntry(provider, env);
    const secretRef = agent.providers.find((p) => p.key === provider)?.secret_ref ?? null;
    if (entry.baseURL === null) {
      problems.push(
        `provider "${provider}" is not in svc's catalogue: set ${baseUrlVariable(provider)} on the server`,
      );
      continue;
    }
    if (entry.needsKey && secretRef === null) {
      problems.push(
        `provider "${provider}" has no secret_ref on agent "${agent.agentId}": add it to [[agents.${agent.agentId}.providers]]`,
      );
      continue;
    }
    const preference = preferences[provider];
    for (const model of models) {
      if (model === null) {
        problems.push(
          `provider "${provider}" has no default model: set providerModelPreferences.${provider}.model`,
        );
        continue;
      }
      candidates.push({
        provider,
        model,
        entry: entry as Candidate['entry'],
        secretRef,
        ...(preference?.temperature !== undefined ? { temperature: preference.temperature } : {}),
        ...(preference?.maxOutputTokens !== undefined ? { maxOutputTokens: preference.maxOutputTokens } : {}),
      });
    }
  }
  return { candidates, problems };
}
