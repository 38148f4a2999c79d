/**
 * A connector's file and the files it imports by relative path, as the one ES module the server
 * takes as posted source (`POST /connectors {source}`), bundled here with the esbuild the server
 * compiles posted source with. Bundled on this machine rather than on the server: the server takes
 * one module, and only here are the author's other files.
 *
 * What may stay an import: `@svc/connector-sdk` (the server links its own) and Node's built-in
 * modules. Any other package is refused, naming it and the line that imports it: the server has
 * no `node_modules` of the author's, and a sandboxed child could not reach one.
 */
import { isBuiltin } from 'node:module';
import { relative, resolve } from 'node:path';
import { build, type Message } from 'esbuild';

export const CONNECTOR_SDK = '@svc/connector-sdk';

/** The source to post, and whether it is the file's own text or a bundle of several files. */
export interface ConnectorSource {
  source: string;
  /** The files bundled, as the author would name them (relative to the working directory). */
  files: string[];
}

/** Connector code that cannot be bundled: each line says where and why, as an editor jumps to it. */
export class ConnectorBundleError extends Error {
  override name = 'ConnectorBundleError';
}

/**
 * The file at `path`, given as the user typed it, bundled with its relative imports. A file that
 * imports nothing relative is posted as it is, so that the server's messages name its own lines.
 */
export async function bundleConnectorSource(path: string, text: string): Promise<ConnectorSource> {
  const entry = resolve(path);
  const cwd = process.cwd();
  const named = (file: string) => {
    const absolute = resolve(cwd, file);
    return absolute === entry ? path : relative(cwd, absolute) || file;
  };
  let result: Awaited<ReturnType<typeof build>>;
  try {
    result = await build({
      entryPoints: [entry],
      absWorkingDir: cwd,
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
      plugins: [
        {
          name: 'svc-connector-imports',
          setup(on) {
            on.onResolve({ filter: /^[^./]/ }, (args) => {
              if (args.path === CONNECTOR_SDK || isBuiltin(args.path))
                return { path: args.path, external: true };
              return { errors: [{ text: refusedImport(args.path) }] };
            });
          },
        },
      ],
    });
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    if (!errors?.length) throw error;
    throw new ConnectorBundleError(
      [
        ...errors.map(({ text, location }) =>
          location ? `${named(location.file)}:${location.line}:${location.column + 1}: ${text}` : text,
        ),
        'fix the connector (svc connector sync <file> --feed <key> runs it on this machine) and install it again',
      ].join('\n'),
    );
  }
  const inputs = Object.keys(result.metafile?.inputs ?? {}).map(named);
  if (inputs.length <= 1) return { source: text, files: [path] };
  const output = result.outputFiles?.[0]?.text ?? '';
  // esbuild marks each file's part with a comment naming it relative to the working directory:
  // kept, so that a stack trace on the server can be followed back to the file.
  return { source: output, files: inputs };
}

function refusedImport(specifier: string): string {
  const name = specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : specifier.split('/')[0];
  if (name === '@lobu/connector-sdk' || name === '@owletto/sdk')
    return `imports "${specifier}": import from "${CONNECTOR_SDK}" instead; it has Lobu's names (ConnectorRuntime, IDENTITY.GITHUB_LOGIN, ...)`;
  return (
    `imports the package "${name}", which the server does not have: a connector's imports are ` +
    `"${CONNECTOR_SDK}", Node's built-in modules and files of its own by relative path (./helper.ts)`
  );
}
