import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { Candidate } from './select.js';

/** Models kept at most: one per provider, base URL and model that the deployment's agents use. */
const MAX_MODELS = 256;
const models = new Map<string, LanguageModel>();

/**
 * The AI SDK model of a candidate, without any key: kept and shared by every turn that uses it (a
 * model built per turn rebuilt its response schemas each time, a few percent of a turn's CPU).
 * The key goes with each call (`keyHeaders`), resolved for that turn only: nothing keeps it.
 * Provider base URLs come from the deployment (catalogue and SVC_PROVIDER_*_BASE_URL), never from
 * an org, so these calls use the plain fetch rather than the guarded egress client.
 */
export function languageModel(candidate: Candidate): LanguageModel {
  const { entry, provider, model } = candidate;
  const key = `${entry.protocol}\n${provider}\n${entry.baseURL}\n${model}`;
  let built = models.get(key);
  if (!built) {
    built =
      entry.protocol === 'anthropic_messages'
        ? createAnthropic({ baseURL: entry.baseURL, apiKey: '' })(model)
        : createOpenAICompatible({ name: provider, baseURL: entry.baseURL, includeUsage: true }).chatModel(
            model,
          );
    if (models.size >= MAX_MODELS) models.delete(models.keys().next().value as string);
    models.set(key, built);
  }
  return built;
}

/** The headers that carry a candidate's key on one call, as its provider's API takes it. */
export function keyHeaders(candidate: Candidate, apiKey: string | undefined): Record<string, string> {
  if (apiKey === undefined) return {};
  return candidate.entry.protocol === 'anthropic_messages'
    ? { 'x-api-key': apiKey }
    : { authorization: `Bearer ${apiKey}` };
}
