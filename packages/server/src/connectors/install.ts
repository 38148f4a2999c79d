import { dirname } from 'node:path';
import { type ConnectorDefinition, validateDefinition } from '@svc/connector-sdk';
import { ProblemError } from '../http/problem.js';
import { connectorsRoot, materializeSource } from './compile.js';
import {
  BUNDLED_CONNECTORS,
  ConnectorCodeError,
  INSPECT_LIMITS,
  runInSandbox,
  SANDBOX_SLOT,
} from './sandbox.js';

export type ConnectorOrigin = { package: string } | { source: string };

/** `SVC_CONNECTOR_NIX_PACKAGES`: the nix packages this deployment's workers have on their PATH. */
export function providedNixPackages(env: Record<string, string | undefined>): Set<string> {
  return new Set(
    (env.SVC_CONNECTOR_NIX_PACKAGES ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
}

/**
 * The definition of the connector at `origin`, read by running its code in the sandbox and checked
 * with the SDK's `validateDefinition`: every problem at once, as 422 `validation_failed` with the
 * definition's paths. A connector needing nix packages the workers lack is refused, naming them.
 */
export async function inspectConnector(
  origin: ConnectorOrigin,
  nixPackages: Set<string>,
  unsandboxedSource = false,
): Promise<ConnectorDefinition> {
  if ('package' in origin && !Object.hasOwn(BUNDLED_CONNECTORS, origin.package)) {
    throw new ProblemError(422, 'validation_failed', `"${origin.package}" is not a bundled connector`, [
      {
        path: '/body/package',
        message: `must be one of ${Object.keys(BUNDLED_CONNECTORS)
          .map((name) => `"${name}"`)
          .join(', ')}, or post the connector's code as "source"`,
      },
    ]);
  }
  let material: Awaited<ReturnType<typeof materializeSource>> | null = null;
  let definition: unknown;
  try {
    if ('package' in origin) definition = structuredClone(await bundledDefinition(origin.package));
    else {
      material = await materializeSource(origin.source);
      ({ definition } = await runInSandbox<{ definition: unknown }>(
        { task: 'definition', module: { file: material.file, name: 'the connector source' } },
        { ...INSPECT_LIMITS, unsandboxedSource },
        dirname(material.file),
      ));
    }
  } catch (error) {
    if (!(error instanceof ConnectorCodeError)) throw error;
    const message = withoutServerPaths(error.message);
    throw new ProblemError(422, 'validation_failed', `the connector could not be loaded: ${message}`, [
      { path: 'source' in origin ? '/body/source' : '/body/package', message },
    ]);
  } finally {
    await material?.cleanup();
  }
  const { valid, problems } = validateDefinition(definition);
  if (!valid) {
    throw new ProblemError(
      422,
      'validation_failed',
      `the connector's definition has ${problems.length} problem${problems.length === 1 ? '' : 's'}`,
      problems.map((problem) => ({ path: pointer(problem.path), message: problem.message })),
    );
  }
  const checked = definition as ConnectorDefinition;
  const missing = (checked.runtime?.nix?.packages ?? []).filter((name) => !nixPackages.has(name));
  if (missing.length > 0) {
    throw new ProblemError(
      422,
      'validation_failed',
      `connector "${checked.key}" needs nix packages this deployment's workers do not provide: ${missing.join(', ')}`,
      [
        {
          path: '/definition/runtime/nix/packages',
          message: `install ${missing.join(', ')} where the workers run and list them in SVC_CONNECTOR_NIX_PACKAGES`,
        },
      ],
    );
  }
  return checked;
}

/**
 * A loading error with the server's folders taken out: where it compiles posted source, and where
 * a sandboxed child sees it, are the server's business (Node says `Cannot find module
 * '/run/svc/connector/helper.js' imported from /run/svc/connector/connector.mjs`). The author
 * reads their own names (`./helper.js`, `connector.ts`), and, for an import by relative path, how
 * to install a connector of several files.
 */
export function withoutServerPaths(message: string): string {
  const roots = [connectorsRoot(), SANDBOX_SLOT].map((root) => root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const path = new RegExp(`(?:file://)?(?:${roots.join('|')})(?:/[^\\s'"/]+)*/([^\\s'"/]+)`, 'g');
  let text = message.replace(path, (_, name: string) =>
    name === 'connector.mjs' ? 'connector.ts' : `./${name}`,
  );
  if (/Cannot find (?:module|package) '\.\//.test(text)) {
    text +=
      '. Posted source is one module: install a connector of several files with svc connector install ./dir/connector.ts, which bundles its relative imports';
  }
  return text;
}

/**
 * A bundled connector's definition, read in the sandbox once per process: its code is svc's own
 * and does not change while svc runs.
 */
const bundled = new Map<string, Promise<unknown>>();
export function bundledDefinition(name: string): Promise<unknown> {
  let known = bundled.get(name);
  if (!known) {
    known = runInSandbox<{ definition: unknown }>(
      { task: 'definition', module: { package: BUNDLED_CONNECTORS[name] as string } },
      INSPECT_LIMITS,
    ).then((answer) => answer.definition);
    // A failure (a time limit on a busy host) is not kept: the next install tries again.
    known.catch(() => bundled.delete(name));
    bundled.set(name, known);
  }
  return known;
}

/** The SDK's `feeds.issues.key` / `methods[1].fields` as a JSON Pointer into the definition. */
export const pointer = (path: string) =>
  `/definition/${path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean)
    .join('/')}`;
