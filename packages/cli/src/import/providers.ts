/**
 * `[[agents.x.providers]]` `id`, `model`, `key` / `secret_ref` as svc's `key` and `secret_ref` (always
 * a reference), `provider_model_preferences` and `model_selection` (auto, in Lobu's order of
 * priority). A key written as a value is never copied: the report names the variable to set.
 */

import { providerKeySchema } from '@svc/core';
import { isTable } from '../project/shape.js';
import type { TomlPath } from '../project/toml-locator.js';
import { dotted, type LobuAgent } from './lobu-toml.js';
import type { ImportReport } from './report.js';
import { variableName, wholeReference } from './secrets.js';

/** Lobu's provider ids that svc spells otherwise. */
const RENAMED: Record<string, string> = { 'together-ai': 'together', google: 'gemini' };

/** The providers svc's server knows by key (server/src/llm/catalogue.ts); others need a base URL. */
const KNOWN = ['openai', 'anthropic', 'openrouter', 'groq', 'mistral', 'deepseek', 'together', 'ollama'];

/** Chat Completions endpoints of providers Lobu users had that svc's catalogue lacks. */
const BASE_URLS: Record<string, string> = {
  gemini: 'https://generativelanguage.googleapis.com/v1beta/openai',
  'z-ai': 'https://api.z.ai/api/paas/v4',
  cerebras: 'https://api.cerebras.ai/v1',
  fireworks: 'https://api.fireworks.ai/inference/v1',
  xai: 'https://api.x.ai/v1',
};

export interface SvcProviders {
  providers: { key: string; secret_ref: string }[];
  preferences: Record<string, { model: string }>;
}

export function convertProviders(
  agent: LobuAgent,
  report: ImportReport,
  at: (path: TomlPath) => string,
): SvcProviders {
  const out: SvcProviders = { providers: [], preferences: {} };
  const list = agent.raw.providers;
  if (list === undefined) return out;
  const listPath = [...agent.base, 'providers'];
  if (!Array.isArray(list)) {
    report.dropped(at(listPath), dotted(listPath), 'not a list of [[providers]] tables');
    return out;
  }
  list.forEach((entry, i) => {
    const path = [...listPath, i];
    const here = dotted(path);
    if (!isTable(entry) || typeof entry.id !== 'string') {
      report.dropped(at(path), here, 'a provider needs an id');
      return;
    }
    const key = RENAMED[entry.id] ?? entry.id;
    if (!providerKeySchema.safeParse(key).success) {
      report.dropped(
        at([...path, 'id']),
        `${here}.id`,
        'not a provider key svc accepts ([a-z0-9][a-z0-9_-]*)',
      );
      return;
    }
    if (out.providers.some((p) => p.key === key)) {
      report.dropped(at(path), here, `provider "${key}" is already declared on this agent`);
      return;
    }
    const index = out.providers.length;
    const svcPath = `svc.toml agents.${agent.id}.providers[${index}]`;
    report.add(
      key === entry.id ? 'kept' : 'translated',
      at([...path, 'id']),
      `${here}.id`,
      `${svcPath}.key`,
      key === entry.id ? undefined : `svc calls it "${key}"`,
    );
    const fallback = variableName(key, 'API_KEY');
    let variable = fallback;
    const written = entry.key !== undefined ? 'key' : entry.secret_ref !== undefined ? 'secret_ref' : null;
    if (written) {
      const keyPath = [...path, written];
      const reference = wholeReference(entry[written]);
      if (reference) {
        variable = reference;
        report.translated(at(keyPath), dotted(keyPath), `${svcPath}.secret_ref`);
      } else {
        report.translated(
          at(keyPath),
          dotted(keyPath),
          `${svcPath}.secret_ref`,
          `a value${written === 'secret_ref' ? " in Lobu's secret store" : ''}, not copied: svc.toml references $${variable}`,
        );
      }
    } else {
      report.add('added', at(path), `${here} (no key)`, `${svcPath}.secret_ref`, 'svc needs a reference');
    }
    report.secret(variable, `the API key of provider "${key}" (${svcPath}.secret_ref)`);
    out.providers.push({ key, secret_ref: `$${variable}` });
    if (typeof entry.model === 'string' && entry.model.trim() !== '') {
      out.preferences[key] = { model: entry.model.trim() };
      report.translated(
        at([...path, 'model']),
        `${here}.model`,
        `svc.toml agents.${agent.id}.provider_model_preferences.${key}.model`,
      );
    }
    for (const other of Object.keys(entry)) {
      if (!['id', 'key', 'secret_ref', 'model'].includes(other))
        report.dropped(at([...path, other]), `${here}.${other}`, 'not a provider field of svc');
    }
    if (!KNOWN.includes(key)) {
      const url = BASE_URLS[key];
      const variableOfUrl = `SVC_PROVIDER_${key.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_BASE_URL`;
      report.step({
        kind: 'note',
        text:
          `svc's server does not know provider "${key}" by name: set ${variableOfUrl} in its environment to ` +
          `the provider's Chat Completions base URL${url ? ` (${url})` : ''}`,
        command: `${variableOfUrl}=${url ?? '<base URL>'} svc server`,
      });
    }
  });
  return out;
}
