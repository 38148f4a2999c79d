/**
 * Reads `lobu.toml` of any generation into one shape: a map of agents, each with the TOML path it is
 * written at, so that every report entry can name its line. The first generation (one `[agent]`
 * table, with `[[providers]]`, `[skills]`, `[network]`, `[worker]`, `[platforms]` at the top) is read
 * as one agent whose folder is the project folder, as Lobu read it.
 */

import { parse, TomlError } from 'smol-toml';
import { isTable } from '../project/shape.js';
import { TomlLocator, type TomlPath } from '../project/toml-locator.js';

export const LOBU_TOML = 'lobu.toml';

/** A problem that stops the import before anything is written: `file:line:col: message`. */
export class ImportError extends Error {}

export interface LobuAgent {
  id: string;
  raw: Record<string, unknown>;
  /** Where the agent's keys are written: `['agents', id]`, or `[]` for the first generation. */
  base: TomlPath;
}

export interface LobuToml {
  agents: LobuAgent[];
  /** `[memory]`, `[memory.lobu]` or `[memory.owletto]`, with its path. */
  memory: { raw: Record<string, unknown>; path: TomlPath } | null;
  /** Other top-level tables (`[owletto.profiles.*]`, unknown ones), reported as dropped. */
  rest: Record<string, unknown>;
  /** `lobu.toml:LINE` of a path. */
  at(path: TomlPath): string;
}

const FIRST_GENERATION_KEYS = ['agent', 'providers', 'skills', 'network', 'worker', 'platforms'];

export function readLobuToml(source: string): LobuToml {
  let doc: Record<string, unknown>;
  try {
    doc = parse(source) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      const first = error.message.split('\n')[0] ?? 'invalid TOML';
      throw new ImportError(
        `${LOBU_TOML}:${error.line}:${error.column}: invalid TOML: ${first.replace(/^Invalid TOML document: /, '')}`,
      );
    }
    throw error;
  }
  const locator = new TomlLocator(source);
  const at = (path: TomlPath) => `${LOBU_TOML}:${locator.locate(path).line}`;
  const agents: LobuAgent[] = [];
  const rest: Record<string, unknown> = {};

  if (isTable(doc.agents)) {
    for (const [id, raw] of Object.entries(doc.agents)) {
      if (isTable(raw)) agents.push({ id, raw, base: ['agents', id] });
      else throw new ImportError(`${at(['agents', id])}: agents.${id} must be a table ([agents.${id}])`);
    }
  } else if (isTable(doc.agent)) {
    const agent = doc.agent;
    const id = typeof agent.name === 'string' ? agent.name : 'agent';
    const raw: Record<string, unknown> = { name: id, dir: '.' };
    if (agent.description !== undefined) raw.description = agent.description;
    for (const key of FIRST_GENERATION_KEYS.slice(1)) if (doc[key] !== undefined) raw[key] = doc[key];
    agents.push({ id, raw, base: [] });
  }
  if (agents.length === 0) {
    throw new ImportError(`${LOBU_TOML}:1:1: declares no agents ([agents.<id>] tables, or [agent])`);
  }

  let memory: LobuToml['memory'] = null;
  if (isTable(doc.memory)) {
    // [memory.owletto] (April 2026), [memory.lobu] (early May), then [memory] itself.
    for (const nested of ['owletto', 'lobu']) {
      const inner = doc.memory[nested];
      if (isTable(inner)) memory = { raw: inner, path: ['memory', nested] };
    }
    memory ??= { raw: doc.memory, path: ['memory'] };
  }
  const firstGeneration = agents[0]?.base.length === 0;
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'agents' || key === 'memory') continue;
    if (firstGeneration && FIRST_GENERATION_KEYS.includes(key)) continue;
    rest[key] = value;
  }
  return { agents, memory, rest, at };
}

/** `agents.crm.providers[0].key` for a TOML path. */
export function dotted(path: TomlPath): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out;
}
