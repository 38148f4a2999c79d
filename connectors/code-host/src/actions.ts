/** Actions on the repository named in the connection's options. Failures are results, not throws. */

import {
  type ActionContext,
  type ActionResult,
  type ActionWithHandler,
  inputSchema,
  outputSchema,
  z,
} from '@svc/connector-sdk';
import { call, createApi, errorText } from './api.js';
import { connectionOptions, parseWith } from './config.js';

const labels = z.array(z.string().trim().min(1)).describe('Label names');

const createIssueInput = z.object({
  title: z.string().trim().min(1).describe('Title of the issue'),
  body: z.string().optional().describe('Body, in Markdown'),
  labels: labels.optional(),
});
const createIssueOutput = z.object({
  number: z.number().int().positive(),
  url: z.url().describe('The issue on the web'),
});

const addLabelInput = z.object({
  number: z.number().int().positive().describe('Number of the issue or pull request'),
  labels: labels.min(1),
});
const addLabelOutput = z.object({
  number: z.number().int().positive(),
  labels: z.array(z.string()).describe('Every label the item has now'),
});

/**
 * Each action parses its input (a server need not have checked it), reads the repository from the
 * options, and turns any failure into `{ success: false, error }` with the server's own message.
 */
function action<I extends z.ZodObject>(
  input: I,
  run: (args: z.output<I>, ctx: ActionContext) => Promise<Record<string, unknown>>,
) {
  return async (ctx: ActionContext): Promise<ActionResult> => {
    try {
      const args = parseWith(input, ctx.input, 'input');
      return { success: true, output: await run(args, ctx) };
    } catch (error) {
      return { success: false, error: errorText(error) };
    }
  };
}

const target = (ctx: ActionContext) => {
  const options = parseWith(connectionOptions, ctx.config, 'connection options');
  return { api: createApi(options.apiUrl, ctx.credentials), repo: options.repo };
};

export const createIssue: ActionWithHandler = {
  key: 'create_issue',
  name: 'Create issue',
  description: 'Opens an issue in the repository, with labels if given.',
  // Writes in a place other people read, under the user's name.
  requiresApproval: true,
  annotations: { destructiveHint: false, openWorldHint: true, idempotentHint: false },
  inputSchema: inputSchema(createIssueInput),
  outputSchema: outputSchema(createIssueOutput),
  execute: action(createIssueInput, async ({ title, body, labels }, ctx) => {
    const { api, repo } = target(ctx);
    // Not retried: a 502 may come after the issue was created, and a retry would open a second one.
    const res = await call(
      () =>
        api.http.post<{ number: number; html_url: string }>(`/repos/${repo}/issues`, {
          json: { title, body, labels },
        }),
      { retry: false },
    );
    return { number: res.data.number, url: res.data.html_url };
  }),
};

export const addLabel: ActionWithHandler = {
  key: 'add_label',
  name: 'Add labels',
  description: 'Adds labels to an issue or pull request; labels it already has stay as they are.',
  requiresApproval: false,
  annotations: { destructiveHint: false, openWorldHint: true, idempotentHint: true },
  inputSchema: inputSchema(addLabelInput),
  outputSchema: outputSchema(addLabelOutput),
  execute: action(addLabelInput, async ({ number, labels }, ctx) => {
    const { api, repo } = target(ctx);
    // Adding a label twice changes nothing, so a transient failure can be retried.
    const res = await call(
      () => api.http.post<{ name: string }[]>(`/repos/${repo}/issues/${number}/labels`, { json: { labels } }),
      { retry: true },
    );
    return { number, labels: res.data.map((l) => l.name) };
  }),
};
