import { withRequestExamples } from './openapi-examples.js';

const SCHEMA_REF = '#/components/schemas/';

/** One a domain; the openapi tests hold every operation to exactly one of these, and each to use. */
export const TAGS = [
  { name: 'messages', description: 'Send messages to agents, read their replies and files' },
  { name: 'conversations', description: "An agent's conversations, their messages and live events" },
  { name: 'approvals', description: 'Tool calls and action runs that wait for a decision' },
  { name: 'agents', description: 'Agents and their settings' },
  { name: 'platforms', description: 'Chat platforms of an agent' },
  { name: 'webhooks', description: 'What chat platforms call: messages in, subscription checks' },
  { name: 'connectors', description: 'Connector packages installed in an org' },
  {
    name: 'connections',
    description: 'Connections of a connector to an account, their credentials and sessions',
  },
  { name: 'feeds', description: "A connection's feeds: their config and syncs" },
  { name: 'auth runs', description: 'Interactive sign-ins of a connection, streamed' },
  { name: 'runs', description: 'Sync, action, watcher and auth runs, their logs and decisions' },
  { name: 'events', description: 'Events the feeds collected' },
  { name: 'search', description: 'Full-text search over events' },
  { name: 'entities', description: 'Entities the connectors linked events to' },
  { name: 'relationships', description: 'Typed links between entities' },
  { name: 'memory', description: 'Entity types and relationship types of an org' },
  {
    name: 'watchers',
    description: 'Watchers: an agent reading new events on a schedule, and their windows',
  },
  { name: 'apply', description: 'What the latest `svc apply` declared' },
  { name: 'secrets', description: 'Org secrets that settings and platforms refer to' },
  { name: 'tokens', description: "API tokens and the caller's identity" },
  { name: 'sessions', description: 'Console sign-in sessions' },
  { name: 'orgs', description: 'Orgs of the deployment' },
  { name: 'operations', description: 'Health, readiness and metrics' },
];

type Responses = Record<string, { content?: Record<string, { example?: unknown }> }>;

/** The converter keeps a response's schemas but not the example beside one: put it back. */
export function keepResponseExamples(declared: unknown, converted: unknown): void {
  for (const [status, answer] of Object.entries((declared ?? {}) as Responses)) {
    for (const [type, media] of Object.entries(answer?.content ?? {})) {
      const target = (converted as Responses | undefined)?.[status]?.content?.[type];
      if (media.example !== undefined && target) target.example = media.example;
    }
  }
}

type Schemas = Record<string, unknown>;

type BodyOperation = { requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> } };

/**
 * A body that may be null may be left out too (`noBody`, a revoke's optional reason): the converter
 * marks every body required, and a generated client would then make every caller send one.
 */
function withOptionalBodies(paths: Record<string, Record<string, BodyOperation>>): void {
  for (const operation of Object.values(paths).flatMap((methods) => Object.values(methods))) {
    const schema = operation.requestBody?.content?.['application/json']?.schema as
      | { anyOf?: { type?: unknown }[] }
      | undefined;
    if (operation.requestBody && schema?.anyOf?.some((branch) => branch.type === 'null')) {
      operation.requestBody.required = false;
    }
  }
}

/** Replaces every `{$ref: <target>}` inside `value` with `{}` (any value). */
function withoutRef(value: unknown, target: string): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutRef(v, target));
  if (value === null || typeof value !== 'object') return value;
  if ((value as { $ref?: unknown }).$ref === target) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutRef(v, target)]));
}

/**
 * A union that refers to itself (a config value is a list or table of config values) cannot be a
 * TypeScript type alias, so openapi-typescript's output does not compile and a generated client
 * refuses every platform config. The document describes one level and leaves deeper values open;
 * the server still checks every level.
 */
function withoutSelfReferences(schemas: Schemas): Schemas {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, withoutRef(schema, `${SCHEMA_REF}${name}`)]),
  );
}

/** Only the components that some operation refers to, directly or through another component. */
function referencedOnly(schemas: Schemas, paths: unknown): Schemas {
  const refsIn = (value: unknown) =>
    [...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1] as string);
  const kept = new Set<string>();
  const pending = refsIn(paths);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (kept.has(name) || !(name in schemas)) continue;
    kept.add(name);
    pending.push(...refsIn(schemas[name]));
  }
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => kept.has(name)));
}

interface Document {
  components?: { schemas?: Schemas };
  paths?: Record<string, Record<string, BodyOperation & { operationId?: string }>>;
}

/** What the document needs once every route is in it, in the order each pass relies on. */
export function finishDocument(document: Document): Document {
  const schemas = withoutSelfReferences(document.components?.schemas ?? {});
  withRequestExamples(document.paths ?? {});
  withOptionalBodies(document.paths ?? {});
  return {
    ...document,
    components: { ...document.components, schemas: referencedOnly(schemas, document.paths) },
  };
}
