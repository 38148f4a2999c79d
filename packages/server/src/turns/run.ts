import type { AgentConfig } from '@svc/core';
import { jsonSchema, type ModelMessage, Output, streamText } from 'ai';
import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import type { DeploymentEgress } from '../egress/deployment.js';
import { keyHeaders, languageModel } from '../llm/model.js';
import { type Candidate, selectModels } from '../llm/select.js';
import { SecretMissingError, type SecretResolver } from '../secrets/resolve.js';
import { connectorActionTools } from '../tools/connector-actions.js';
import { type AgentTool, connectMcpTools } from '../tools/mcp.js';
import { memoryTools } from '../tools/memory.js';
import { settleWindow } from '../watchers/windows.js';
import { type ApprovalRequest, type Decision, decisionsOf, pauseTurn } from './approvals.js';
import type { EventWriter } from './event-writer.js';
import { createOutputGuard, type OutputGuard } from './guardrails.js';
import { toolItemsOfTurn } from './items.js';
import type { TurnMetrics } from './metrics.js';
import { estimateTokens, history, systemPrompt, userContent } from './prompt.js';
import { completeTurn, failTurn } from './queue.js';
import { type TurnTools, toolsForTurn } from './tools.js';
import { type ClaimedTurn, type TurnProblem, whileLeased } from './turn.js';

export interface TurnDeps {
  pool: Pool;
  secrets: SecretResolver;
  /** Where provider base URLs are overridden (SVC_PROVIDER_<KEY>_BASE_URL). */
  env: Record<string, string | undefined>;
  log: FastifyBaseLogger;
  /** Where the turn's events go: the process's batched writer (event-writer.ts). */
  events: EventWriter;
  metrics?: TurnMetrics;
  /** How long a call waits for a decision before it counts as rejected (SVC_APPROVAL_TTL). */
  approvalTtlMs?: number;
  /** The deployment's egress rules, and the guarded fetch that MCP servers are reached through. */
  egress: DeploymentEgress & { fetch: typeof fetch };
}

interface AgentRow {
  name: string;
  description: string;
  providers: { key: string; secret_ref: string }[];
  config: Partial<AgentConfig>;
  org_slug: string;
}

const OUTPUT_RESERVE_TOKENS = 4096;
const DEFAULT_APPROVAL_TTL_MS = 24 * 3_600_000;

/** Tool calls the model made in `messages`, for the bound on calls across a pause. */
function toolCallsIn(messages: ModelMessage[]): number {
  let calls = 0;
  for (const message of messages) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    calls += message.content.filter((part) => part.type === 'tool-call').length;
  }
  return calls;
}

/** The decisions on a paused turn's calls, as the message that answers the model's requests. */
function approvalAnswers(decisions: Decision[]): ModelMessage {
  return {
    role: 'tool',
    content: decisions.map((d) => ({
      type: 'tool-approval-response' as const,
      approvalId: d.sdkApprovalId,
      approved: d.status === 'approved',
      ...(d.status === 'approved' ? {} : { reason: d.reason ?? `the call was ${d.status}` }),
    })),
  };
}

/** What one model did: its reply, or why it gave none before streaming any text. */
type Attempt =
  | {
      ok: true;
      reply: string;
      usage: Record<string, number | null>;
      firstTokenAt: Date | null;
      responseMessages: ModelMessage[];
    }
  | { ok: 'paused'; requests: ApprovalRequest[]; responseMessages: ModelMessage[]; text: string }
  | { ok: false; problem: TurnProblem; streamed: boolean };

/**
 * Runs the turn of a claimed message: the models of the agent in order until one answers, the
 * reply streamed as coalesced `reply.delta` events, then stored with the history in one
 * transaction. Every write is fenced by the lease, so a worker that lost it stops writing.
 */
export async function runTurn(deps: TurnDeps, turn: ClaimedTurn, signal: AbortSignal): Promise<void> {
  const started = Date.now();
  const seconds = (at = Date.now()) => (at - started) / 1000;
  const pool = deps.pool;
  const fail = async (problem: TurnProblem) => {
    await deps.events.settle(turn);
    await failTurn(pool, turn, problem);
    deps.events.announce(turn.conversationId);
    deps.metrics?.ended('failed', seconds());
    await settleWatcherWindow(deps, turn);
  };
  const agent = (
    await pool.query<AgentRow>(
      `SELECT a.name, a.description, a.providers, a.config, o.slug AS org_slug
         FROM agents a JOIN orgs o ON o.id = a.org_id WHERE a.org_id = $1 AND a.agent_id = $2`,
      [turn.orgId, turn.agentId],
    )
  ).rows[0];
  await deps.events.append(turn, 'message.started', {
    messageId: turn.id,
    attempt: turn.attempts,
    // Going on after its approvals: the text streamed before the pause stands.
    ...(turn.state ? { resumed: true } : {}),
  });
  if (!agent) return; // deleted with its conversations: the message is gone too

  const { candidates, problems } = selectModels(
    { agentId: turn.agentId, providers: agent.providers, config: agent.config },
    deps.env,
  );
  if (candidates.length === 0) {
    return fail({
      code: 'no_provider',
      detail:
        `agent "${turn.agentId}" has no model to answer with` +
        (problems.length > 0 ? `: ${problems.join('; ')}` : '') +
        `. Add a provider to the agent in svc.toml ([[agents.${turn.agentId}.providers]] key = "openai", ` +
        'secret_ref = "$OPENAI_API_KEY") and store its key ("svc secrets set OPENAI_API_KEY")',
    });
  }

  const org = { id: turn.orgId, slug: agent.org_slug };
  const mcp = await connectMcpTools({
    org,
    config: agent.config,
    secrets: deps.secrets,
    egress: deps.egress,
    log: deps.log,
  });
  try {
    const actions = await connectorActionTools({
      pool,
      org,
      agentId: turn.agentId,
      messageId: turn.id,
      config: agent.config,
      taken: mcp.tools,
    });
    mcp.problems.push(...actions.problems);
    const memory = await memoryTools({
      pool,
      org,
      agentId: turn.agentId,
      agentName: agent.name,
      messageId: turn.id,
      config: agent.config,
      taken: [...mcp.tools, ...actions.tools],
    });
    mcp.problems.push(...memory.problems);
    const tools = [...mcp.tools, ...actions.tools, ...memory.tools];
    return await answer(deps, turn, agent, candidates, tools, signal, fail, seconds);
  } finally {
    if (mcp.problems.length > 0)
      deps.log.warn({ messageId: turn.id, problems: mcp.problems }, 'tools left out of a turn');
    await mcp.close();
  }
}

/** The turn with its tools ready: each model in order until one answers. */
async function answer(
  deps: TurnDeps,
  turn: ClaimedTurn,
  agent: AgentRow,
  candidates: Candidate[],
  agentTools: AgentTool[],
  signal: AbortSignal,
  fail: (problem: TurnProblem) => Promise<void>,
  seconds: (at?: number) => number,
): Promise<void> {
  const pool = deps.pool;
  const system = systemPrompt({ name: agent.name, description: agent.description, config: agent.config });
  const first = candidates[0] as Candidate;
  const budget =
    first.entry.contextTokens -
    (first.maxOutputTokens ?? OUTPUT_RESERVE_TOKENS) -
    estimateTokens(system) -
    estimateTokens(turn.content);
  // A turn resumed after its approvals goes on where its model stopped, with the decisions as the
  // answer to its calls, and with that model only: its calls may have had effects already.
  const state = turn.state;
  const messages: ModelMessage[] = state
    ? [...state.messages, approvalAnswers(await decisionsOf(pool, turn.id))]
    : [
        ...(turn.hasHistory
          ? await history(
              pool,
              turn.conversationId,
              Math.max(0, budget),
              new Set(agentTools.map((t) => t.modelName)),
            )
          : []),
        { role: 'user' as const, content: await userContent(pool, turn) },
      ];
  const tried = state
    ? candidates.filter((c) => `${c.provider}/${c.model}` === state.model).slice(0, 1)
    : candidates;
  if (tried.length === 0) {
    return fail({
      code: 'model_unavailable',
      detail: `the model that asked for approval (${state?.model}) is no longer among the agent's models`,
    });
  }

  const output = await watcherOutput(pool, turn);
  const failures: string[] = [];
  let missingSecrets = 0;
  for (const candidate of tried) {
    if (signal.aborted) return;
    const name = `${candidate.provider}/${candidate.model}`;
    let apiKey: string | undefined;
    try {
      apiKey = candidate.secretRef
        ? await deps.secrets.resolve({ id: turn.orgId, slug: agent.org_slug }, candidate.secretRef)
        : undefined;
    } catch (error) {
      if (!(error instanceof SecretMissingError)) throw error;
      missingSecrets++;
      failures.push(`${name}: ${error.message}`);
      continue;
    }
    const guard = createOutputGuard(agent.config.guardrails);
    const tools = toolsForTurn(agentTools, agent.config, {
      callsSoFar: toolCallsIn(state?.messages ?? []),
      begin: (toolCallId, tool) =>
        whileLeased(pool, turn, async (client) => {
          const { rowCount } = await client.query(
            `INSERT INTO tool_executions (message_id, tool_call_id, tool) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING`,
            [turn.id, toolCallId, tool],
          );
          return rowCount === 1;
        }),
    });
    const attempt = await streamAttempt(
      deps,
      turn,
      { candidate, apiKey, system, messages, guard, tools, output },
      signal,
    );
    // Stopped by the worker (lease lost, shutdown): whoever runs the turn next writes its end.
    if (signal.aborted) return;
    await deps.events.settle(turn);
    if (attempt.ok === 'paused') {
      await pauseTurn(
        pool,
        turn,
        {
          model: name,
          messages: [...messages, ...attempt.responseMessages],
          text: (state?.text ?? '') + attempt.text,
        },
        attempt.requests,
        deps.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS,
      );
      deps.events.announce(turn.conversationId);
      return;
    }
    if (attempt.ok) {
      await completeTurn(pool, turn, {
        ...attempt,
        reply: (state?.text ?? '') + attempt.reply,
        model: name,
        toolItems: toolItemsOfTurn([...messages, ...attempt.responseMessages]),
      });
      deps.events.announce(turn.conversationId);
      await settleWatcherWindow(deps, turn);
      deps.metrics?.ended('completed', seconds(), {
        model: name,
        usage: attempt.usage,
        firstTokenSeconds: attempt.firstTokenAt ? seconds(attempt.firstTokenAt.getTime()) : null,
      });
      return;
    }
    if (attempt.streamed) return fail(attempt.problem);
    failures.push(`${name}: ${attempt.problem.detail}`);
  }
  if (signal.aborted) return;
  return fail(
    missingSecrets === tried.length
      ? { code: 'secret_missing', detail: failures.join('; ') }
      : {
          code: 'model_unavailable',
          detail: `no model answered (${failures.join('; ')}); check the providers' status and keys, then send the message again`,
        },
  );
}

interface AttemptInput {
  candidate: Candidate;
  apiKey: string | undefined;
  system: string;
  messages: ModelMessage[];
  guard: OutputGuard;
  tools: TurnTools;
  /** A watcher's `extraction_schema`: the model is asked for one object valid against it. */
  output: Record<string, unknown> | null;
}

async function streamAttempt(
  deps: TurnDeps,
  turn: ClaimedTurn,
  { candidate, apiKey, system, messages, guard, tools, output }: AttemptInput,
  signal: AbortSignal,
): Promise<Attempt> {
  // A turn resumed after approvals has had effects: no other model may take it over.
  let streamed = turn.state !== null;
  const requests: ApprovalRequest[] = [];
  let firstTokenAt: Date | null = null;
  let usage: Record<string, number | null> = { inputTokens: null, outputTokens: null, totalTokens: null };
  // Stops the model once `maxOutputChars` is reached, as well as when the worker stops the turn.
  const enough = new AbortController();
  const result = streamText({
    model: languageModel(candidate),
    headers: keyHeaders(candidate, apiKey),
    system,
    messages,
    ...tools.streamOptions,
    ...(output ? { output: Output.object({ schema: jsonSchema(output) }) } : {}),
    // Failover to the next model is the retry: one model's outage must not hold the turn.
    maxRetries: 0,
    abortSignal: AbortSignal.any([signal, enough.signal]),
    // Failures arrive as `error` parts below; the SDK's default would print them, request included.
    onError: () => {},
    ...(candidate.temperature !== undefined ? { temperature: candidate.temperature } : {}),
    ...(candidate.maxOutputTokens !== undefined ? { maxOutputTokens: candidate.maxOutputTokens } : {}),
  });
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') {
      if (part.text === '') continue;
      firstTokenAt ??= new Date();
      streamed = true;
      // Coalesced with the turn's other deltas, and with other turns' into one write (event-writer.ts).
      deps.events.delta(turn, guard.push(part.text));
      if (guard.full) {
        enough.abort();
        break;
      }
    } else if (part.type === 'tool-approval-request') {
      streamed = true;
      requests.push({
        sdkApprovalId: part.approvalId,
        toolCallId: part.toolCall.toolCallId,
        tool: tools.nameOf(part.toolCall.toolName),
        input: part.toolCall.input,
      });
    } else if (part.type === 'tool-call' || part.type === 'tool-result' || part.type === 'tool-error') {
      // A tool ran (or was asked to): the turn has had effects, and no other model may redo it.
      streamed = true;
      await deps.events.append(turn, ...tools.event(part));
    } else if (part.type === 'error') {
      if (enough.signal.aborted) break;
      return { ok: false, streamed, problem: modelProblem(part.error, streamed) };
    } else if (part.type === 'finish') {
      usage = {
        inputTokens: part.totalUsage.inputTokens ?? null,
        outputTokens: part.totalUsage.outputTokens ?? null,
        totalTokens: part.totalUsage.totalTokens ?? null,
      };
    }
  }
  const end = guard.finish();
  if ('withheld' in end) return { ok: false, streamed: true, problem: end.withheld };
  deps.events.delta(turn, end.rest);
  if (requests.length > 0) {
    return { ok: 'paused', requests, responseMessages: (await result.response).messages, text: end.reply };
  }
  // Stopped by the output bound, the response is cut short: its tool calls are in the messages
  // the SDK has so far, and a call left without its result is not kept (items.ts).
  const responseMessages = guard.full ? [] : (await result.response).messages;
  return { ok: true, reply: end.reply, usage, firstTokenAt, responseMessages };
}

/** What a provider's failure says, without anything of the request (its key is in a header). */
function modelProblem(error: unknown, streamed: boolean): TurnProblem {
  const status = (error as { statusCode?: number }).statusCode;
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  const what = status
    ? `HTTP ${status}`
    : cause
      ? `cannot connect (${cause})`
      : ((error as Error).message ?? String(error)).slice(0, 200);
  return {
    code: 'model_unavailable',
    detail: streamed
      ? `the model stopped in the middle of its reply (${what}); send the message again`
      : what,
  };
}

/** The `extraction_schema` of the watcher whose window this turn answers, if it has one. */
async function watcherOutput(pool: Pool, turn: ClaimedTurn): Promise<Record<string, unknown> | null> {
  if (!turn.watcherWindowId) return null;
  const { rows } = await pool.query<{ extraction_schema: Record<string, unknown> | null }>(
    `SELECT s.extraction_schema FROM watcher_windows w
       JOIN watchers s ON s.org_id = w.org_id AND s.slug = w.watcher_slug WHERE w.id = $1`,
    [turn.watcherWindowId],
  );
  return rows[0]?.extraction_schema ?? null;
}

/**
 * A watcher window's turn ended: its window is settled at once. Should this fail (or the process
 * die first), the watcher scheduler settles it on its next pass (watchers/windows.ts).
 */
async function settleWatcherWindow(deps: TurnDeps, turn: ClaimedTurn): Promise<void> {
  if (!turn.watcherWindowId) return;
  await settleWindow(deps.pool, turn.watcherWindowId).catch((error) =>
    deps.log.warn({ err: error, windowId: turn.watcherWindowId }, 'could not settle a watcher window'),
  );
}
