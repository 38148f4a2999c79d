/**
 * `svc connector install|list`: connectors installed in the org on the server (DESIGN.md section
 * 10). Installing code is admin only; posted source only where the operator allowed it.
 */

import { readFile, stat } from 'node:fs/promises';
import { bundleConnectorSource } from '../connector/bundle.js';
import { isDefinitionFile } from '../connector/definition-file.js';
import { type Hints, type Locate, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import { definitionBody, definitionHints, type Generated, printGenerated } from './codeless.js';
import { cell, table, when } from './table.js';

export interface ConnectorRecord {
  connectorKey: string;
  name: string;
  version: string;
  description: string | null;
  package: string | null;
  definition: {
    authSchema?: { methods?: { type: string; fields?: { key: string }[] }[] };
    feeds?: Record<string, unknown>;
    actions?: Record<string, { key: string; requiresApproval?: boolean }>;
  };
  /** What the server read from the upstream of a connector without code; null for code. */
  generated?: Generated | null;
  createdAt: string;
  updatedAt: string;
}

/** The server's limit on posted source (`POST /connectors` takes up to 512 KiB of it). */
const SOURCE_MAX_CHARS = 512 * 1024;

/**
 * A path is what names a file: a separator, a module's extension or a definition's (.json, .yaml).
 * Anything else is a bundled name.
 */
export const isPath = (target: string) =>
  /[/\\]/.test(target) || /\.[cm]?[jt]s$/.test(target) || isDefinitionFile(target);

const SOURCE_REFUSED =
  'the server must allow source installs: its operator starts it with SVC_CONNECTOR_SOURCE_INSTALLS=on (the code ' +
  "then runs on the server's hosts). Until then, install a bundled connector: svc connector install rss";

export async function connectorInstall(
  target: string,
  flags: SessionFlags & { json?: boolean },
  io: RuntimeIo,
): Promise<void> {
  const { body, hints, locate } = await installBody(target);
  const api = await openApi(io, flags);
  const answer = await api.call<{ result: 'created' | 'updated' | 'unchanged'; connector: ConnectorRecord }>(
    'POST',
    '/connectors',
    body,
    {
      // Both refusals are 403 `forbidden`; a missing scope is the one whose detail names it.
      forbidden: ({ detail }) =>
        /scope/.test(detail)
          ? 'installing a connector needs an admin token: svc login --token <ADMIN_TOKEN>'
          : 'source' in body
            ? SOURCE_REFUSED
            : undefined,
      ...hints,
    },
    locate,
  );
  const { connector } = answer;
  if (flags.json) {
    io.out(JSON.stringify(answer, null, 2));
    return;
  }
  io.out(`${answer.result} connector ${connector.connectorKey} ${connector.version} (${connector.name})`);
  printGenerated(connector, io);
  const fields = envKeyFields(connector);
  const credentials = fields.map((field) => ` --credential ${field}=<ENV_VAR>`).join('');
  io.err(`connect it: svc connection create ${connector.connectorKey}${credentials}`);
}

export async function connectorList(flags: SessionFlags & { json?: boolean }, io: RuntimeIo): Promise<void> {
  const api = await openApi(io, flags);
  const { connectors } = await api.call<{ connectors: ConnectorRecord[] }>('GET', '/connectors');
  if (flags.json) {
    io.out(JSON.stringify({ org: api.session.org, connectors }, null, 2));
    return;
  }
  if (connectors.length === 0) {
    io.out(`No connectors in org ${api.session.org}: install one with "svc connector install rss".`);
    return;
  }
  const rows = connectors.map((c) => [
    c.connectorKey,
    c.version,
    c.package ? `bundled ${c.package}` : (c.generated?.kind ?? 'source'),
    Object.keys(c.definition.feeds ?? {}).join(',') || '-',
    Object.keys(c.definition.actions ?? {}).join(',') || '-',
    cell(envKeyFields(c).join(',')),
    when(c.updatedAt),
    c.name,
  ]);
  for (const line of table(
    ['KEY', 'VERSION', 'FROM', 'FEEDS', 'ACTIONS', 'CREDENTIALS', 'UPDATED', 'NAME'],
    rows,
  ))
    io.out(line);
}

/** The body for a bundled name, a module's code or a definition file, and how to explain a refusal. */
async function installBody(
  target: string,
): Promise<{ body: Record<string, unknown>; hints: Hints; locate?: Locate }> {
  if (isDefinitionFile(target)) {
    const { body, locate } = await definitionBody(target);
    return { body, hints: definitionHints(target), locate };
  }
  if (!isPath(target)) {
    return {
      body: { package: target },
      hints: {
        validation_failed:
          'bundled connectors are rss and code-host; to install a file, give its path (./connector.ts, ./petstore.yaml)',
      },
    };
  }
  return {
    body: { source: await bundledSource(target) },
    hints: {
      validation_failed: ({ errors }) =>
        [
          // A syntax error, where an editor jumps to it: the server names lines of the source.
          ...errors.flatMap(({ message }) =>
            [...message.matchAll(/line (\d+):(\d+): (.+?)(?=; line \d+:\d+: |$)/g)].map(
              ([, line, column, text]) => `${target}:${line}:${column}: ${text}`,
            ),
          ),
          'fix the connector (svc connector sync <file> --feed <key> runs it on this machine) and install it again',
        ].join('\n'),
    },
  };
}

/** The env_keys fields a connection of this connector takes as `--credential`. */
export function envKeyFields(connector: Pick<ConnectorRecord, 'definition'>): string[] {
  const methods = connector.definition.authSchema?.methods ?? [];
  return methods.flatMap((m) => (m.type === 'env_keys' ? (m.fields ?? []).map((f) => f.key) : []));
}

async function readSource(path: string): Promise<string> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new Error(
      error.code === 'ENOENT'
        ? `no file ${path}; give the path of the connector's module, or a bundled name (rss, code-host)`
        : `cannot read ${path}: ${error.message}`,
    );
  });
  if (!info.isFile())
    throw new Error(`${path} is not a file: give the connector's module (one .ts or .js file)`);
  if (info.size > SOURCE_MAX_CHARS * 4) throw new Error(tooLarge(path));
  const text = await readFile(path, 'utf8');
  if (text.length > SOURCE_MAX_CHARS) throw new Error(tooLarge(path));
  if (text.trim() === '') throw new Error(`${path} is empty: nothing to install`);
  return text;
}

/**
 * The file's text, with the files it imports by relative path bundled in (the server takes one
 * module); a file that imports none is posted as it is, so the server's messages name its lines.
 */
async function bundledSource(path: string): Promise<string> {
  const text = await readSource(path);
  const { source, files } = await bundleConnectorSource(path, text);
  if (source.length > SOURCE_MAX_CHARS)
    throw new Error(`${tooLarge(path)} (bundled with ${files.slice(1).join(', ')})`);
  return source;
}

const tooLarge = (path: string) =>
  `${path} is over ${SOURCE_MAX_CHARS / 1024} KiB, more than the server takes: bundle it smaller (one module, imports of @svc/connector-sdk only)`;
