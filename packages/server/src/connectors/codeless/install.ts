/**
 * Installing and refreshing a connector without code: the definition is checked like any other,
 * then svc's own code reads its upstream (the description, or the MCP server's tools) in a
 * sandboxed child whose only way out is the egress proxy, granted the upstream's host alone: the
 * URLs are the org's, and `SVC_EGRESS_ALLOW` decides whether a private address may be reached.
 */
import { type ActionDefinition, type ConnectorDefinition, validateDefinition } from '@svc/connector-sdk';
import type { EgressPolicy } from '../../egress/policy.js';
import { ProblemError } from '../../http/problem.js';
import { pointer } from '../install.js';
import { ConnectorCodeError, INSPECT_LIMITS, runInSandbox } from '../sandbox.js';
import { redact } from './redact.js';
import type { CodelessModule, CodelessSource, Generated, ListTask, UpstreamActions } from './types.js';

/** Actions one connector offers at most (an MCP server's tools are capped alike, in the child). */
export const MAX_ACTIONS = 500;

/** Auth methods whose credentials a code-less connector knows how to send. */
const SENDABLE_AUTH = new Set(['none', 'env_keys', 'oauth']);

/** The source of a definition without code, or null when it has code-only parts or no upstream. */
export function codelessSource(definition: ConnectorDefinition): CodelessSource | null {
  if (definition.openapiConfig) return { kind: 'openapi', config: definition.openapiConfig };
  if (definition.mcpConfig) {
    return {
      kind: 'mcp',
      upstreamUrl: definition.mcpConfig.upstreamUrl,
      headers: definition.mcpConfig.headers ?? {},
    };
  }
  return null;
}

/** What a child runs an installed code-less connector's actions from. */
export function codelessModule(definition: ConnectorDefinition, generated: Generated): CodelessModule {
  return {
    codeless: {
      key: definition.key,
      name: definition.name,
      version: definition.version,
      source: codelessSource(definition) as CodelessSource,
      actions: definition.actions ?? {},
      ...(generated.operations ? { operations: generated.operations } : {}),
      ...(generated.tools ? { tools: generated.tools } : {}),
    },
  };
}

/** The definition as its author wrote it: the actions are svc's, read from the upstream. */
export const authored = (definition: ConnectorDefinition): ConnectorDefinition => {
  const { actions: _generated, ...rest } = definition;
  return rest;
};

/**
 * `input` checked as a code-less definition: valid, with an upstream, and nothing only code could
 * do. 422 `validation_failed` with every problem's path otherwise.
 */
export function checkCodelessDefinition(input: unknown): ConnectorDefinition {
  const { valid, problems } = validateDefinition(input);
  const found = problems.map((problem) => ({ path: pointer(problem.path), message: problem.message }));
  const definition = input as ConnectorDefinition;
  if (valid) {
    if (!definition.mcpConfig && !definition.openapiConfig) {
      found.push({
        path: '/definition',
        message:
          'a definition without code needs mcpConfig (an MCP server) or openapiConfig (an OpenAPI description); post code as source instead',
      });
    }
    if (definition.feeds && Object.keys(definition.feeds).length > 0) {
      found.push({
        path: '/definition/feeds',
        message: 'feeds are synced by code: a connector without code has actions only',
      });
    }
    if (definition.actions && Object.keys(definition.actions).length > 0) {
      found.push({
        path: '/definition/actions',
        message:
          'the actions of a connector without code are read from its upstream; say which need approval with requiresApproval',
      });
    }
    for (const [at, method] of (definition.authSchema?.methods ?? []).entries()) {
      if (!SENDABLE_AUTH.has(method.type)) {
        found.push({
          path: `/definition/authSchema/methods/${at}/type`,
          message: `"${method.type}" credentials are made by a connector's code; without code use none, env_keys or oauth`,
        });
      }
    }
  }
  if (found.length > 0) {
    throw new ProblemError(
      422,
      'validation_failed',
      `the connector's definition has ${found.length} problem${found.length === 1 ? '' : 's'}`,
      found,
    );
  }
  return definition;
}

export interface ReadUpstreamOptions {
  egress: EgressPolicy;
  /** The connection's credentials, flat; {} at install. */
  credentials?: Record<string, string>;
  approvalOverrides?: Record<string, boolean>;
  /**
   * The install as it is: when the upstream refuses (a revoked token, a re-posted definition of an
   * MCP server that lists nothing without credentials) and is the same upstream, its actions stay,
   * with the warning, rather than every tool vanishing until someone sets credentials again.
   */
  previous?: { definition: ConnectorDefinition; generated: Generated | null } | null | undefined;
}

/**
 * The definition with the actions its upstream offers now, and what was read. An upstream that
 * cannot be read (unreachable, refused by the egress policy, not a description) is 422 naming the
 * URL's field; an MCP server that wants credentials before it lists anything is a warning: its
 * tools are read again when a connection is made.
 */
export async function readUpstream(
  definition: ConnectorDefinition,
  options: ReadUpstreamOptions,
): Promise<{ definition: ConnectorDefinition; generated: Generated }> {
  const source = codelessSource(definition) as CodelessSource;
  const field =
    source.kind === 'mcp'
      ? '/definition/mcpConfig/upstreamUrl'
      : source.config.spec !== undefined
        ? '/definition/openapiConfig/spec'
        : '/definition/openapiConfig/specUrl';
  const url = source.kind === 'mcp' ? source.upstreamUrl : source.config.specUrl;
  const task: ListTask = { task: 'codeless-actions', source, credentials: options.credentials ?? {} };
  let read: UpstreamActions;
  const secrets = Object.values(options.credentials ?? {});
  try {
    read = await oneOfFew(() =>
      runInSandbox<UpstreamActions>(
        task as unknown as Record<string, unknown>,
        { ...INSPECT_LIMITS, egress: options.egress },
        null,
        url ? { hosts: new Set([new URL(url).hostname.replace(/^\[|\]$/g, '')]) } : null,
      ),
    );
  } catch (error) {
    if (!(error instanceof ConnectorCodeError)) throw error;
    let message = redact(error.message, secrets) as string;
    if (message.includes('refused by the egress policy')) {
      message += '; an operator lets connectors reach such addresses with SVC_EGRESS_ALLOW';
    }
    throw new ProblemError(
      422,
      'validation_failed',
      `the connector's upstream could not be read: ${message}`,
      [{ path: field, message }],
    );
  }
  // What an upstream says back may hold what it was sent (a tool described by the caller's key).
  read = redact(read, secrets) as UpstreamActions;
  const before = options.previous;
  if (
    read.refused !== undefined &&
    before?.generated?.tools &&
    JSON.stringify(codelessSource(authored(before.definition))) === JSON.stringify(source)
  ) {
    read = { ...read, actions: before.definition.actions ?? {}, tools: before.generated.tools };
  }
  const count = Object.keys(read.actions).length;
  if (count > MAX_ACTIONS) {
    const message = `the upstream has ${count} operations; a connector offers agents at most ${MAX_ACTIONS}: choose some with includeTags, includeOperations or excludeOperations`;
    throw new ProblemError(422, 'validation_failed', message, [{ path: field, message }]);
  }
  const skipped = [...read.skipped];
  const actions = withApprovals(read.actions, options.approvalOverrides ?? {}, skipped);
  const kept = keepValidActions(authored(definition), actions, skipped);
  const warning =
    read.refused === undefined
      ? null
      : `the MCP server answered ${read.refused} to ${
          Object.keys(options.credentials ?? {}).length > 0
            ? "the connection's credentials"
            : 'a request without credentials'
        }: its tools are read when a connection with credentials is made, or on refresh`;
  return {
    definition: kept,
    generated: {
      kind: source.kind,
      refreshedAt: new Date().toISOString(),
      ...(read.operations ? { operations: pick(read.operations, kept.actions) } : {}),
      ...(read.tools ? { tools: pick(read.tools, kept.actions) } : {}),
      skipped,
      warning,
    },
  };
}

/** The org's approval overrides over the upstream's; one naming no action is listed as skipped. */
function withApprovals(
  actions: Record<string, ActionDefinition>,
  overrides: Record<string, boolean>,
  skipped: Generated['skipped'],
): Record<string, ActionDefinition> {
  const out: Record<string, ActionDefinition> = {};
  for (const [key, action] of Object.entries(actions)) {
    out[key] = Object.hasOwn(overrides, key)
      ? { ...action, requiresApproval: overrides[key] as boolean }
      : action;
  }
  for (const key of Object.keys(overrides)) {
    if (!Object.hasOwn(actions, key)) {
      skipped.push({
        operation: key,
        reason: 'requiresApproval names it, but the upstream offers no such action',
      });
    }
  }
  return out;
}

/**
 * The definition with every action the SDK accepts; one it does not (an input schema that is not
 * JSON Schema, say) is skipped with the reason, rather than refusing the upstream's other actions.
 */
function keepValidActions(
  definition: ConnectorDefinition,
  actions: Record<string, ActionDefinition>,
  skipped: Generated['skipped'],
): ConnectorDefinition {
  const kept = { ...actions };
  for (let round = 0; round < 3; round++) {
    const { valid, problems } = validateDefinition({ ...definition, actions: kept });
    if (valid) break;
    let dropped = false;
    for (const problem of problems) {
      const key = /^actions\.([^.[]+)|^actions\["([^"]+)"\]/.exec(problem.path);
      const name = key?.[1] ?? key?.[2];
      if (name && Object.hasOwn(kept, name)) {
        delete kept[name];
        skipped.push({ operation: name, reason: `${problem.path}: ${problem.message}` });
        dropped = true;
      }
    }
    if (!dropped) {
      throw new ProblemError(
        422,
        'validation_failed',
        "the upstream's actions do not make a valid definition",
        [...problems.map((problem) => ({ path: pointer(problem.path), message: problem.message }))],
      );
    }
  }
  return { ...definition, actions: kept };
}

function pick<T>(all: Record<string, T>, kept: Record<string, unknown> | undefined): Record<string, T> {
  return Object.fromEntries(Object.entries(all).filter(([key]) => Object.hasOwn(kept ?? {}, key)));
}

/**
 * Upstreams read at once by this process: each is a child of up to 256 MB for up to 20 s, and an
 * org posting installs against a slow upstream must not start as many as it likes.
 */
const MAX_READING = 2;
/** Reads waiting for a slot; more are refused (429) rather than held for minutes. */
const MAX_WAITING = 8;
let reading = 0;
const queue: (() => void)[] = [];

async function oneOfFew<T>(work: () => Promise<T>): Promise<T> {
  if (reading >= MAX_READING && queue.length >= MAX_WAITING) {
    throw new ProblemError(
      429,
      'rate_limited',
      `this server is reading ${MAX_READING} connectors' upstreams and ${queue.length} more wait: try again in a minute`,
    );
  }
  // A slot is handed from the one ending to the next waiting, so none is taken in between.
  if (reading >= MAX_READING) await new Promise<void>((resolve) => queue.push(resolve));
  else reading++;
  try {
    return await work();
  } finally {
    const next = queue.shift();
    if (next) next();
    else reading--;
  }
}
