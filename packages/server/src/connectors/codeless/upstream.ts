/**
 * In the connector's child (child.ts): reading a code-less connector's upstream into actions, and
 * running one. This is svc's code, but everything it reads (the description, the tool list, the
 * answers) is the upstream's, which an org chose: its `fetch` is the child's, through the egress
 * proxy, so the org's URLs meet the same policy and grants as connector code.
 */
import {
  type ActionDefinition,
  type ActionResult,
  actionsFromOpenApi,
  type Connector,
  callOpenApiAction,
  defineConnector,
  OPENAPI_LIMITS,
  type SyncCredentials,
} from '@svc/connector-sdk';
import { redact } from './redact.js';
import type { CodelessModule, CodelessSource, ListTask, UpstreamActions } from './types.js';

/** Tools one MCP server may offer; more is a server we will not turn into tools for a model. */
export const MAX_TOOLS = 500;
/** How long reading a description or a tool list may take. */
const READ_TIMEOUT_MS = 15_000;
/** MCP: how long one tool call may take (the run's own time limit still applies). */
const CALL_TIMEOUT_MS = 60_000;
/** An MCP answer's size; an OpenAPI one is capped by its call (1 MiB). */
const MAX_RESULT_CHARS = 1024 * 1024;

/** The actions of `task.source`, read from the upstream. */
export async function listUpstreamActions(task: ListTask): Promise<UpstreamActions> {
  return task.source.kind === 'openapi'
    ? openApiActions(task.source.config)
    : mcpActions(task.source, task.credentials);
}

async function openApiActions(config: Extract<CodelessSource, { kind: 'openapi' }>['config']) {
  const description = config.spec ?? (await fetchDescription(config.specUrl as string));
  const { actions, operations, skipped } = actionsFromOpenApi(description, {
    ...(config.specUrl ? { specUrl: config.specUrl } : {}),
    ...(config.serverUrl ? { serverUrl: config.serverUrl } : {}),
    ...(config.includeOperations ? { includeOperations: config.includeOperations } : {}),
    ...(config.excludeOperations ? { excludeOperations: config.excludeOperations } : {}),
    ...(config.includeTags ? { includeTags: config.includeTags } : {}),
  });
  return { actions, operations, skipped };
}

/** The description's text: no redirect (the URL the org wrote is where it comes from), capped. */
async function fetchDescription(specUrl: string): Promise<string> {
  const answer = await fetch(specUrl, {
    redirect: 'manual',
    headers: { accept: 'application/json, application/yaml, text/yaml, */*;q=0.5' },
    signal: AbortSignal.timeout(READ_TIMEOUT_MS),
  }).catch((error: Error) => {
    throw new Error(`could not fetch the description at ${withoutQuery(specUrl)}: ${reason(error)}`);
  });
  if (answer.status >= 300 && answer.status < 400) {
    throw new Error(
      `the description at ${withoutQuery(specUrl)} redirects (${answer.status}); give specUrl as the address it moved to`,
    );
  }
  if (!answer.ok) {
    throw new Error(`the description at ${withoutQuery(specUrl)} answered ${answer.status}`);
  }
  const text = await readCapped(answer, OPENAPI_LIMITS.chars);
  if (text === null) {
    throw new Error(`the description at ${withoutQuery(specUrl)} is over ${OPENAPI_LIMITS.chars} characters`);
  }
  return text;
}

async function readCapped(answer: Response, maxChars: number): Promise<string | null> {
  const reader = answer.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
    if (text.length > maxChars) {
      await reader.cancel().catch(() => {});
      return null;
    }
  }
}

/** Headers for the upstream: an OAuth token as a bearer, and each mapped env_keys field. */
function mcpHeaders(source: Extract<CodelessSource, { kind: 'mcp' }>, credentials: Record<string, string>) {
  const headers: Record<string, string> = {};
  if (credentials.access_token) headers.authorization = `Bearer ${credentials.access_token}`;
  for (const [header, field] of Object.entries(source.headers)) {
    const value = credentials[field];
    if (value !== undefined) headers[header] = value;
  }
  return headers;
}

async function mcpClient(
  source: Extract<CodelessSource, { kind: 'mcp' }>,
  credentials: Record<string, string>,
) {
  // Loaded only by the children of MCP connectors: most children never need it.
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const client = new Client({ name: 'svc', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(source.upstreamUrl), {
    requestInit: { headers: mcpHeaders(source, credentials), redirect: 'manual' },
  });
  await client.connect(transport, { timeout: READ_TIMEOUT_MS });
  return client;
}

async function mcpActions(
  source: Extract<CodelessSource, { kind: 'mcp' }>,
  credentials: Record<string, string>,
): Promise<UpstreamActions> {
  let client: Awaited<ReturnType<typeof mcpClient>>;
  try {
    client = await mcpClient(source, credentials);
  } catch (error) {
    const status = (error as { code?: unknown }).code;
    // It wants credentials first: the server lists the tools again once a connection has them.
    if (status === 401 || status === 403) return { actions: {}, tools: {}, skipped: [], refused: status };
    throw new Error(
      `could not reach the MCP server at ${withoutQuery(source.upstreamUrl)}: ${reason(error as Error)}`,
    );
  }
  try {
    const listed: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: READ_TIMEOUT_MS });
      listed.push(...page.tools);
      if (listed.length > MAX_TOOLS) throw new Error(`the MCP server offers over ${MAX_TOOLS} tools`);
      cursor = page.nextCursor;
    } while (cursor);
    return actionsOfTools(listed);
  } finally {
    await client.close().catch(() => {});
  }
}

interface McpTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  annotations?: {
    title?: string | undefined;
    readOnlyHint?: boolean | undefined;
    destructiveHint?: boolean | undefined;
    idempotentHint?: boolean | undefined;
    openWorldHint?: boolean | undefined;
  };
}

/**
 * A tool as an action, with its annotations as the upstream gave them. MCP's defaults are the
 * cautious ones (a tool not said to be read-only may change things; destructively): it runs
 * without approval only when it says it is read-only and not destructive.
 */
export function actionOfTool(key: string, tool: McpTool): ActionDefinition {
  const hints = tool.annotations ?? {};
  const annotations: NonNullable<ActionDefinition['annotations']> = {};
  for (const hint of ['destructiveHint', 'openWorldHint', 'idempotentHint'] as const) {
    if (typeof hints[hint] === 'boolean') annotations[hint] = hints[hint];
  }
  const readOnly = hints.readOnlyHint === true;
  if (readOnly && annotations.destructiveHint === undefined) annotations.destructiveHint = false;
  return {
    key,
    name: (tool.title ?? hints.title ?? tool.name).slice(0, 200),
    ...(tool.description ? { description: tool.description } : {}),
    requiresApproval: !readOnly || annotations.destructiveHint === true,
    inputSchema: withoutDialect(tool.inputSchema),
    annotations,
  };
}

/**
 * A tool's input schema without its `$schema`: servers built with the MCP SDK name draft-07 there
 * (zod's JSON Schema), which svc's validator (2020-12, the MCP default) does not load, and an
 * object schema of properties reads the same in both.
 */
function withoutDialect(schema: Record<string, unknown>): ActionDefinition['inputSchema'] {
  const { $schema: _dialect, ...rest } = schema;
  return rest as ActionDefinition['inputSchema'];
}

/**
 * Tools as actions, each keyed so that the key names the same tool whatever order the server
 * lists them in (approval overrides are kept by key): a name that is a key already (`[A-Za-z0-9_-]`,
 * at most 64) keeps it; the others are made one (`x.y` -> `x_y`), in name order, with `_2`, `_3`
 * where that is taken. A second tool of one name is left out.
 */
export function actionsOfTools(tools: McpTool[]): UpstreamActions {
  const result: UpstreamActions = { actions: {}, tools: {}, skipped: [] };
  const names = new Set<string>();
  const valid = (name: string) => /^[A-Za-z0-9_-]{1,64}$/.test(name);
  const place = (key: string, tool: McpTool) => {
    (result.tools as Record<string, string>)[key] = tool.name;
    result.actions[key] = actionOfTool(key, tool);
  };
  const unique = tools.filter((tool) => {
    if (tool.name === '__proto__') {
      result.skipped.push({
        operation: tool.name,
        reason: 'a name a JavaScript object cannot hold as a key',
      });
      return false;
    }
    if (names.has(tool.name)) {
      result.skipped.push({ operation: tool.name, reason: 'the server lists a second tool of this name' });
      return false;
    }
    names.add(tool.name);
    return true;
  });
  for (const tool of unique) if (valid(tool.name)) place(tool.name, tool);
  const others = unique.filter((tool) => !valid(tool.name)).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const tool of others) {
    const base = tool.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60) || 'tool';
    let key = base;
    for (let n = 2; Object.hasOwn(result.actions, key); n++) key = `${base}_${n}`;
    place(key, tool);
  }
  return result;
}

/** The connection's credentials as one flat record: env_keys fields, and an OAuth token. */
export function flatCredentials(
  config: Record<string, unknown>,
  credentials: SyncCredentials | null,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(config)) if (typeof value === 'string') flat[name] = value;
  if (credentials?.accessToken) flat.access_token = credentials.accessToken;
  return flat;
}

/** The connector a child runs for a code-less module: each action one call to the upstream. */
export function codelessConnector(module: CodelessModule): Connector {
  const { codeless } = module;
  const actions: Record<string, ActionDefinition & { execute: (ctx: never) => Promise<ActionResult> }> = {};
  for (const [key, action] of Object.entries(codeless.actions)) {
    actions[key] = {
      ...action,
      execute: ((ctx: {
        input: Record<string, unknown>;
        config: Record<string, unknown>;
        credentials: SyncCredentials | null;
        signal?: AbortSignal;
      }) => callUpstream(codeless, key, ctx.input, flatCredentials(ctx.config, ctx.credentials))) as never,
    };
  }
  return defineConnector({
    key: codeless.key,
    name: codeless.name,
    version: codeless.version,
    actions,
  } as Parameters<typeof defineConnector>[0]);
}

async function callUpstream(
  codeless: CodelessModule['codeless'],
  key: string,
  input: Record<string, unknown>,
  credentials: Record<string, string>,
): Promise<ActionResult> {
  if (codeless.source.kind === 'openapi') {
    const operation = codeless.operations?.[key];
    if (!operation) return { success: false, error: `"${key}" is not an operation of this connector` };
    return callOpenApiAction(operation, input, { credentials });
  }
  const tool = codeless.tools?.[key];
  if (!tool) return { success: false, error: `"${key}" is not a tool of this connector` };
  const source = codeless.source;
  const secrets = Object.values(mcpHeaders(source, credentials));
  let client: Awaited<ReturnType<typeof mcpClient>> | undefined;
  try {
    client = await mcpClient(source, credentials);
    const result = await client.callTool({ name: tool, arguments: input }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    });
    return toolResult(result as ToolAnswer);
  } catch (error) {
    return { success: false, error: redact(`the MCP server: ${reason(error as Error)}`, secrets) as string };
  } finally {
    await client?.close().catch(() => {});
  }
}

interface ToolAnswer {
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A tool's answer as an ActionResult: its structured content, else its content; an error's text. */
function toolResult(answer: ToolAnswer): ActionResult {
  const text = (answer.content ?? [])
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
  if (answer.isError) return { success: false, error: text.slice(0, 4000) || 'the tool failed' };
  const output = answer.structuredContent ?? { content: answer.content ?? [] };
  if (JSON.stringify(output).length > MAX_RESULT_CHARS) {
    return { success: false, error: `the tool's answer is over ${MAX_RESULT_CHARS} characters` };
  }
  return { success: true, output };
}

const reason = (error: Error) => {
  const cause = (error as { cause?: Error }).cause;
  return cause?.message ? `${error.message} (${cause.message})` : error.message;
};

const withoutQuery = (url: string) => url.replace(/[?#].*$/, '');
