import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { Candidate } from './select.js';

/**
 * The AI SDK model of a candidate, with its key resolved for this turn only: nothing keeps it.
 * Provider base URLs come from the deployment (catalogue and SVC_PROVIDER_*_BASE_URL), never from
 * an org, so these calls use the plain fetch rather than the guarded egress client.
 */
export function languageModel(candidate: Candidate, apiKey: string | undefined): LanguageModel {
  const { entry, provider, model } = candidate;
  if (entry.protocol === 'anthropic_messages') {
    return createAnthropic({ baseURL: entry.baseURL, apiKey: apiKey ?? '' })(model);
  }
  return createOpenAICompatible({
    name: provider,
    baseURL: entry.baseURL,
    apiKey,
    includeUsage: true,
  }).chatModel(model);
}
