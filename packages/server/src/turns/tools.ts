import type { AgentConfig, ConversationEventType } from '@svc/core';
import type { StepResult, Tool, ToolSet } from 'ai';
import type { AgentTool } from '../tools/mcp.js';
import { DEFAULT_MAX_CALLS_PER_TURN, preApproved } from '../tools/policy.js';

/** The longest tool output an event carries; the model gets it whole. */
const EVENT_OUTPUT_MAX_CHARS = 8192;

export interface TurnTools {
  /** What `streamText` gets: the tools, and the bound on how many calls a turn makes. */
  streamOptions: {
    tools?: ToolSet;
    stopWhen?: (options: { steps: StepResult<ToolSet>[] }) => boolean;
    prepareStep?: (options: { steps: StepResult<ToolSet>[] }) => { activeTools: string[] } | undefined;
  };
  /** A tool's name as users write it (`server.tool`), from the name the model called. */
  nameOf(modelName: string): string;
  /** The conversation event of a tool part of the stream, with the tool's name as users write it. */
  event(part: {
    type: 'tool-call' | 'tool-result' | 'tool-error';
    toolCallId: string;
    toolName: string;
    input?: unknown;
    output?: unknown;
    error?: unknown;
  }): [ConversationEventType, Record<string, unknown>];
}

const callsIn = (steps: StepResult<ToolSet>[]) => steps.reduce((n, step) => n + step.toolCalls.length, 0);

function clipped(value: unknown): unknown {
  const text = JSON.stringify(value) ?? 'null';
  return text.length <= EVENT_OUTPUT_MAX_CHARS ? value : `${text.slice(0, EVENT_OUTPUT_MAX_CHARS)}…`;
}

/**
 * The tools one attempt of a turn may call. `toolsConfig.maxCallsPerTurn` (default 10) bounds the
 * calls: once reached, the model is given no tools for its next step, so it must answer in text,
 * and a call beyond the bound in one step is refused without running. A tool that needs approval
 * (destructive and not in `preApprovedTools`) pauses the turn when called (approvals.ts).
 */
export function toolsForTurn(
  agentTools: AgentTool[],
  config: Partial<AgentConfig>,
  turn: {
    /** Calls made before a pause, which count against the bound too. */
    callsSoFar: number;
    /**
     * Records the call under the lease before it runs: false when it was recorded before (the turn
     * was taken up again after it started), and it must not run twice. Throws when the lease is lost.
     */
    begin(toolCallId: string, tool: string): Promise<boolean>;
  },
): TurnTools {
  const max = config.toolsConfig?.maxCallsPerTurn ?? DEFAULT_MAX_CALLS_PER_TURN;
  const names = new Map(agentTools.map((t) => [t.modelName, t.name]));
  let calls = turn.callsSoFar;
  const tools: ToolSet = Object.fromEntries(
    agentTools.map((t) => {
      const execute = t.tool.execute;
      const bounded: Tool = {
        ...t.tool,
        // The SDK stops the step and asks; the turn pauses until a person decides (approvals.ts).
        needsApproval: t.needsApproval && !preApproved(t.name, config.preApprovedTools),
        execute: async (input, options) => {
          if (++calls > max)
            return { error: `this turn may call at most ${max} tools; answer with what you have` };
          if (!(await turn.begin(options.toolCallId, t.name))) {
            return {
              error:
                'this call was started before the worker running it stopped; whether it took effect is unknown, so it is not run again',
            };
          }
          return execute?.(input, options);
        },
      };
      return [t.modelName, bounded];
    }),
  );
  return {
    streamOptions:
      agentTools.length === 0
        ? {}
        : {
            tools,
            // A hard bound on model calls as well: the bound on tool calls plus the answer.
            stopWhen: ({ steps }) => steps.length >= max + 2,
            prepareStep: ({ steps }) =>
              turn.callsSoFar + callsIn(steps) >= max ? { activeTools: [] } : undefined,
          },
    nameOf: (modelName) => names.get(modelName) ?? modelName,
    event(part) {
      const tool = names.get(part.toolName) ?? part.toolName;
      if (part.type === 'tool-call')
        return ['tool.call', { toolCallId: part.toolCallId, tool, input: part.input }];
      if (part.type === 'tool-error') {
        return [
          'tool.result',
          { toolCallId: part.toolCallId, tool, error: String((part.error as Error)?.message ?? part.error) },
        ];
      }
      return ['tool.result', { toolCallId: part.toolCallId, tool, output: clipped(part.output) }];
    },
  };
}
