/**
 * `validateDefinition`: every problem of a connector definition at once, each with its path
 * (`feeds.issues.eventKinds.opened.entityLinks[0].identities[1].namespace`), so an author fixes
 * them in one pass. The shape comes from the zod schemas; the checks across fields are here.
 */

import type { z } from 'zod';
import type { OAuthAuthMethod } from '../auth/types.js';
import { IDENTITY_NAMESPACES, identityNamespaceProblem } from '../identity/namespaces.js';
import { type Connector, implementsAuthenticate, isConnector } from '../runtime/connector.js';
import { invalidSchemaProblems } from './json-schema.js';
import { connectorDefinitionSchema } from './schema.js';
import type { ConnectorDefinition, JsonSchema } from './types.js';

export type DefinitionPath = (string | number)[];

export interface DefinitionProblem {
  /** Rendered, e.g. `authSchema.methods[0].fields`; empty for the definition itself. */
  path: string;
  message: string;
}

export interface DefinitionValidation {
  valid: boolean;
  problems: DefinitionProblem[];
}

/** Thrown by `assertValidDefinition` and the harness; its message lists every problem. */
export class DefinitionError extends Error {
  constructor(
    readonly connectorKey: string,
    readonly problems: DefinitionProblem[],
  ) {
    super(
      [
        `connector "${connectorKey}" has an invalid definition:`,
        ...problems.map((p) => `  ${formatProblem(p)}`),
      ].join('\n'),
    );
    this.name = 'DefinitionError';
  }
}

export const formatProblem = (p: DefinitionProblem) => (p.path ? `${p.path}: ${p.message}` : p.message);

/**
 * Pass the connector itself rather than its definition where you can: only then can an
 * `interactive` auth method be checked against an `authenticate` implementation.
 */
export function validateDefinition(input: ConnectorDefinition | Connector | unknown): DefinitionValidation {
  const connector = isConnector(input) ? input : null;
  const definition: unknown = connector ? connector.definition : input;
  const problems: DefinitionProblem[] = [];
  const add = (path: DefinitionPath, message: string) => problems.push({ path: renderPath(path), message });

  const parsed = connectorDefinitionSchema.safeParse(definition, { reportInput: true });
  if (!parsed.success) for (const issue of parsed.error.issues) addIssue(add, issue);
  // The checks across fields run on whatever parts are objects, so one run reports everything.
  const def = (isObject(definition) ? definition : {}) as Partial<ConnectorDefinition>;
  checkMapKeys(add, def);
  checkIdentities(add, def);
  checkScopes(add, def);
  checkTemplates(add, def);
  checkObjectSchemas(add, def);
  checkAuthMethods(add, def, connector);
  if (
    isObject(def.openapiConfig) &&
    def.openapiConfig.includeOperations &&
    def.openapiConfig.excludeOperations
  ) {
    add(['openapiConfig'], 'give includeOperations or excludeOperations, not both');
  }
  checkCodeless(add, def);
  return { valid: problems.length === 0, problems: dedupe(problems) };
}

/** `openapiConfig` names its description once; `mcpConfig.headers` carry env_keys fields the definition declares. */
/** RFC 9110's token: what a header's name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function checkCodeless(add: Add, def: Partial<ConnectorDefinition>): void {
  const openapi = def.openapiConfig as Record<string, unknown> | undefined;
  if (isObject(openapi) && (openapi.specUrl === undefined) === (openapi.spec === undefined)) {
    add(
      ['openapiConfig', 'specUrl'],
      'give specUrl (where the description is) or spec (the description itself): one of them',
    );
  }
  if (isObject(def.mcpConfig) && isObject(openapi)) {
    add(['mcpConfig'], 'a connector is an MCP upstream or an OpenAPI description, not both');
  }
  const headers = isObject(def.mcpConfig) ? (def.mcpConfig as Record<string, unknown>).headers : undefined;
  if (!isObject(headers)) return;
  const fields = new Set<string>();
  for (const method of def.authSchema?.methods ?? []) {
    if (method?.type === 'env_keys') for (const field of method.fields ?? []) fields.add(field?.key);
  }
  for (const [header, field] of Object.entries(headers)) {
    if (!HEADER_NAME.test(header)) {
      add(
        ['mcpConfig', 'headers', header],
        "must be an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)",
      );
    } else if (typeof field === 'string' && !fields.has(field)) {
      add(
        ['mcpConfig', 'headers', header],
        `"${field}" is not a field of an env_keys auth method: declare it there, so a connection can hold it`,
      );
    }
  }
}

export function assertValidDefinition(input: ConnectorDefinition | Connector): void {
  const { valid, problems } = validateDefinition(input);
  const key = (isConnector(input) ? input.definition : input)?.key;
  if (!valid) throw new DefinitionError(typeof key === 'string' ? key : '(no key)', problems);
}

type Add = (path: DefinitionPath, message: string) => void;

function addIssue(add: Add, issue: z.core.$ZodIssue): void {
  const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  if (issue.code === 'unrecognized_keys') {
    for (const key of issue.keys) add([...path, key], unknownFieldMessage(path, key));
  } else if (issue.code === 'invalid_type' && issue.input === undefined) {
    add(path, isNamespace(path) ? MISSING_NAMESPACE : 'is required');
  } else if (issue.code === 'invalid_type') {
    add(path, `must be ${issue.expected === 'record' ? 'an object' : `a ${issue.expected}`}`);
  } else add(path, issue.message);
}

const isNamespace = (path: DefinitionPath) => path.at(-1) === 'namespace' && path.at(-3) === 'identities';

/**
 * A namespace written as a name `IDENTITY` does not have (a connector written for Lobu's SDK says
 * `IDENTITY.GITHUB_LOGIN`) is `undefined`, which reads as absent: the author sees a line they did
 * write called missing, so the message says how that happens and which names there are.
 */
const MISSING_NAMESPACE = `is required; it ${identityNamespaceProblem(undefined)}`;

function unknownFieldMessage(path: DefinitionPath, key: string): string {
  if (path.length === 0 && key === 'nix') {
    return 'unknown field: native packages belong in runtime.nix.packages, and only device-bound connectors (runtime.platforms) declare them';
  }
  return `unknown field "${key}"`;
}

function checkMapKeys(add: Add, def: Partial<ConnectorDefinition>): void {
  for (const kind of ['feeds', 'actions'] as const) {
    const map = def[kind];
    if (!isObject(map)) continue;
    for (const [mapKey, item] of Object.entries(map)) {
      if (isObject(item) && typeof item.key === 'string' && item.key !== mapKey) {
        add([kind, mapKey, 'key'], `must equal its key in ${kind}, "${mapKey}" (got "${item.key}")`);
      }
    }
  }
}

function checkIdentities(add: Add, def: Partial<ConnectorDefinition>): void {
  for (const [feedKey, feed] of entries(def.feeds)) {
    for (const [kindKey, kind] of entries(feed.eventKinds)) {
      const links = Array.isArray(kind.entityLinks) ? kind.entityLinks : [];
      links.forEach((link, l) => {
        const identities = isObject(link) && Array.isArray(link.identities) ? link.identities : [];
        identities.forEach((identity, i) => {
          const namespace = isObject(identity) ? identity.namespace : undefined;
          if (typeof namespace !== 'string' || namespace === '') return;
          const path = [
            'feeds',
            feedKey,
            'eventKinds',
            kindKey,
            'entityLinks',
            l,
            'identities',
            i,
            'namespace',
          ];
          const problem = identityNamespaceProblem(namespace, (value) => closest(value, IDENTITY_NAMESPACES));
          if (problem) add(path, problem);
        });
      });
    }
  }
}

/** A feed can only hold scopes that an OAuth method of the connector asks for. */
function checkScopes(add: Add, def: Partial<ConnectorDefinition>): void {
  const methods =
    isObject(def.authSchema) && Array.isArray(def.authSchema.methods) ? def.authSchema.methods : [];
  const oauth = methods.filter((m): m is OAuthAuthMethod => isObject(m) && m.type === 'oauth');
  const offered = new Set(
    oauth.flatMap((m) => [
      ...(Array.isArray(m.requiredScopes) ? m.requiredScopes : []),
      ...(Array.isArray(m.optionalScopes) ? m.optionalScopes : []),
    ]),
  );
  for (const [feedKey, feed] of entries(def.feeds)) {
    if (!Array.isArray(feed.requiredScopes) || feed.requiredScopes.length === 0) continue;
    if (oauth.length === 0) {
      add(['feeds', feedKey, 'requiredScopes'], 'requires OAuth scopes, but authSchema has no oauth method');
      continue;
    }
    feed.requiredScopes.forEach((scope, i) => {
      if (!offered.has(scope)) {
        add(
          ['feeds', feedKey, 'requiredScopes', i],
          `scope "${scope}" is in no oauth method's requiredScopes or optionalScopes, so it is never granted`,
        );
      }
    });
  }
}

/** `{placeholder}`s must name properties of the feed's configSchema, or they would print as-is. */
function checkTemplates(add: Add, def: Partial<ConnectorDefinition>): void {
  for (const [feedKey, feed] of entries(def.feeds)) {
    const template = feed.displayNameTemplate;
    if (typeof template !== 'string') continue;
    const path = ['feeds', feedKey, 'displayNameTemplate'];
    const stripped = template.replace(/\{[A-Za-z_][\w.]*\}/g, '');
    if (/[{}]/.test(stripped)) {
      add(path, 'has an unbalanced or empty "{" "}"; placeholders look like {repo}');
      continue;
    }
    // A schema built from $ref or allOf has no top-level properties to check the names against.
    if (!isObject(feed.configSchema) || !isObject(feed.configSchema.properties)) continue;
    const properties = Object.keys(feed.configSchema.properties);
    for (const [, name] of template.matchAll(/\{([A-Za-z_][\w.]*)\}/g)) {
      const root = (name ?? '').split('.')[0] ?? '';
      if (!properties.includes(root)) {
        add(path, `placeholder {${name}} is not a property of the feed's configSchema`);
      }
    }
  }
}

/** Config, options, input and output are objects: a schema of another type can never validate one. */
function checkObjectSchemas(add: Add, def: Partial<ConnectorDefinition>): void {
  const check = (path: DefinitionPath, schema: JsonSchema | undefined) => {
    if (!isObject(schema)) return;
    if ('type' in schema && schema.type !== 'object') {
      add(path, `must describe an object (type "object"), not ${JSON.stringify(schema.type)}`);
    }
    for (const problem of invalidSchemaProblems(schema)) add(path, `is not valid JSON Schema: ${problem}`);
  };
  check(['optionsSchema'], def.optionsSchema);
  for (const [feedKey, feed] of entries(def.feeds))
    check(['feeds', feedKey, 'configSchema'], feed.configSchema);
  for (const [feedKey, feed] of entries(def.feeds)) {
    for (const [kindKey, kind] of entries(feed.eventKinds)) {
      if (isObject(kind.metadataSchema)) {
        for (const problem of invalidSchemaProblems(kind.metadataSchema)) {
          add(
            ['feeds', feedKey, 'eventKinds', kindKey, 'metadataSchema'],
            `is not valid JSON Schema: ${problem}`,
          );
        }
      }
    }
  }
  for (const [actionKey, action] of entries(def.actions)) {
    check(['actions', actionKey, 'inputSchema'], action.inputSchema);
    check(['actions', actionKey, 'outputSchema'], action.outputSchema);
  }
}

function checkAuthMethods(add: Add, def: Partial<ConnectorDefinition>, connector: Connector | null): void {
  const methods =
    isObject(def.authSchema) && Array.isArray(def.authSchema.methods) ? def.authSchema.methods : [];
  methods.forEach((method, m) => {
    if (!isObject(method)) return;
    if (method.type === 'env_keys' && Array.isArray(method.fields)) {
      const seen = new Set<unknown>();
      method.fields.forEach((field, f) => {
        const key = isObject(field) ? field.key : undefined;
        if (seen.has(key))
          add(['authSchema', 'methods', m, 'fields', f, 'key'], `duplicate field key "${key}"`);
        seen.add(key);
      });
    }
    if (method.type === 'interactive' && connector && !implementsAuthenticate(connector)) {
      add(
        ['authSchema', 'methods', m],
        'an interactive method needs the connector to implement authenticate(ctx); it does not',
      );
    }
  });
}

function entries<T>(map: Record<string, T> | undefined): [string, T & Record<string, unknown>][] {
  if (!isObject(map)) return [];
  return Object.entries(map).filter((e): e is [string, T & Record<string, unknown>] => isObject(e[1]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function renderPath(path: DefinitionPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

function dedupe(problems: DefinitionProblem[]): DefinitionProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const id = formatProblem(p);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** The nearest known value within two edits, for a "did you mean". */
function closest(value: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = editDistance(value.toLowerCase(), candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] ?? 0;
}
