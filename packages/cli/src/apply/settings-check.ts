/**
 * The server's own refusals of settings (a private MCP URL, a stdio command SVC_MCP_COMMANDS does
 * not name: its policy, which the CLI cannot know), asked for before anything is written, so that
 * an apply does not stop half-way. Each refusal is reported where svc.toml writes the value.
 */

import type { PlanRow } from '../plan/types.js';
import type { Project, ProjectProblem } from '../project/index.js';
import { type ApiClient, ApiError } from '../session/client.js';
import { withinBodyLimit } from './execute.js';

export interface SettingsCheck {
  refusals: ProjectProblem[];
  /** Why the settings could not be checked (a token without the write scope), when they were not. */
  unchecked?: string;
}

/** `/body/mcpServers/files~1x/url` -> `['mcpServers', 'files/x', 'url']` (RFC 6901). */
function pointerPath(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(2)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export async function checkSettings(
  rows: PlanRow[],
  project: Pick<Project, 'settingAt'>,
  client: ApiClient,
  concurrency = 8,
): Promise<SettingsCheck> {
  const checks = rows
    .filter((row) => row.kind === 'settings' && row.request)
    .flatMap((row) =>
      withinBodyLimit(row.request as NonNullable<PlanRow['request']>).map((part) => ({
        agentId: row.id,
        part,
      })),
    );
  const result: SettingsCheck = { refusals: [] };
  for (let i = 0; i < checks.length; i += concurrency) {
    await Promise.all(
      checks.slice(i, i + concurrency).map(async ({ agentId, part }) => {
        try {
          await client.request('POST', `${part.path}/check`, part.body);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          const errors = error.problem?.errors ?? [];
          // 403: a token that may only read sees the plan, unchecked; 404: a server without the check.
          if ((error.status === 403 || error.status === 404) && errors.length === 0) {
            result.unchecked = `${error.problem?.detail ?? `HTTP ${error.status}`}`;
            return;
          }
          if (errors.length === 0) throw error;
          for (const refusal of errors) {
            const at = project.settingAt(agentId, pointerPath(refusal.path));
            result.refusals.push({
              file: at.file,
              line: at.line,
              col: at.col,
              message: `${at.key}: ${refusal.message}`,
              hint: `the server refuses it (${error.problem?.code})`,
            });
          }
        }
      }),
    );
  }
  return result;
}
