/**
 * The providers svc knows by key (DESIGN.md section 9): the protocol each speaks, where it lives,
 * the model used when an agent names none, and how much context its models take. Any other key
 * speaks Chat Completions at the base URL `SVC_PROVIDER_<KEY>_BASE_URL` gives.
 */
export interface ProviderEntry {
  protocol: 'chat_completions' | 'anthropic_messages';
  baseURL: string | null;
  defaultModel: string | null;
  /** Whether calls need the agent's `secret_ref` (ollama runs locally without one). */
  needsKey: boolean;
  /** Tokens of context of its models, when nothing better is known. */
  contextTokens: number;
}

const chat = (baseURL: string, defaultModel: string, contextTokens = 128_000): ProviderEntry => ({
  protocol: 'chat_completions',
  baseURL,
  defaultModel,
  needsKey: true,
  contextTokens,
});

export const CATALOGUE: Record<string, ProviderEntry> = {
  openai: chat('https://api.openai.com/v1', 'gpt-4.1-mini', 1_000_000),
  anthropic: {
    protocol: 'anthropic_messages',
    baseURL: 'https://api.anthropic.com/v1',
    defaultModel: 'claude-sonnet-4-5',
    needsKey: true,
    contextTokens: 200_000,
  },
  openrouter: chat('https://openrouter.ai/api/v1', 'openai/gpt-4.1-mini'),
  groq: chat('https://api.groq.com/openai/v1', 'llama-3.3-70b-versatile'),
  mistral: chat('https://api.mistral.ai/v1', 'mistral-small-latest'),
  deepseek: chat('https://api.deepseek.com/v1', 'deepseek-chat', 64_000),
  together: chat('https://api.together.xyz/v1', 'meta-llama/Llama-3.3-70B-Instruct-Turbo'),
  ollama: { ...chat('http://127.0.0.1:11434/v1', 'llama3.2', 32_000), needsKey: false },
};

/** `SVC_PROVIDER_MY_KEY_BASE_URL` for provider `my-key`. */
export const baseUrlVariable = (key: string) =>
  `SVC_PROVIDER_${key.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_BASE_URL`;

/** The provider `key` on this deployment: the catalogue's entry with the base URL the environment sets. */
export function providerEntry(key: string, env: Record<string, string | undefined>): ProviderEntry {
  const known = CATALOGUE[key] ?? {
    protocol: 'chat_completions' as const,
    baseURL: null,
    defaultModel: null,
    needsKey: true,
    contextTokens: 32_000,
  };
  const override = env[baseUrlVariable(key)];
  return override ? { ...known, baseURL: override.replace(/\/+$/, '') } : known;
}
