#!/usr/bin/env node
import { DEFAULT_TURN_CONCURRENCY } from '@svc/core';
import { Command, InvalidArgumentError, Option } from 'commander';
import { type ApplyFlags, applyCommand } from './apply/command.js';
import { action, applyIo, secretsIo, terminalIo } from './io.js';
import { registerRuntimeCommands } from './runtime/register.js';
import { registerEverydayCommands } from './runtime/register-everyday.js';
import { secretsList, secretsSet, secretsUnset, VALUE_SOURCES } from './secrets/command.js';
import { DEFAULT_URL, link, login, logout, whoami } from './session/commands.js';

const program = new Command('svc')
  .description('svc: a self-hostable agent platform')
  .version('0.1.0')
  .showHelpAfterError();

// The server's modules (Fastify, pg, pino) load only for the commands that run it: svc apply
// starts in half the time without them.
program
  .command('server')
  .description('run the gateway (embedded PostgreSQL unless DATABASE_URL is set)')
  .option('--port <port>', 'port to listen on', parsePort, Number(process.env.SVC_PORT) || 8787)
  .option('--host <host>', 'address to listen on', process.env.SVC_HOST || '127.0.0.1')
  .option(
    '--log-level <level>',
    'fatal, error, warn, info, debug or trace',
    process.env.SVC_LOG_LEVEL || 'info',
  )
  .option('--no-workers', 'serve HTTP only; agent turns run in `svc worker` processes')
  .addOption(turnConcurrencyOption())
  .action(async (options) => (await import('./server.js')).serverCommand(options));

program
  .command('worker')
  .description(
    "run agent turns and connector runs, on the servers' database (DATABASE_URL, SVC_ENCRYPTION_KEY)",
  )
  .addOption(turnConcurrencyOption())
  .addOption(
    new Option('--metrics-port <port>', 'serve GET /metrics and /healthz on this port (default: none)')
      .env('SVC_WORKER_METRICS_PORT')
      .argParser(parsePort),
  )
  .option('--metrics-host <host>', 'address for --metrics-port', '127.0.0.1')
  .option(
    '--log-level <level>',
    'fatal, error, warn, info, debug or trace',
    process.env.SVC_LOG_LEVEL || 'info',
  )
  .action(async (options) => (await import('./server.js')).workerCommand(options));

program
  .command('run')
  .description('run the gateway locally with this project applied to the org "default", until Ctrl-C')
  .option('--dir <dir>', 'project directory', '.')
  .option('--port <port>', 'port to listen on', parsePort, Number(process.env.SVC_PORT) || 8787)
  .option('--host <host>', 'address to listen on', process.env.SVC_HOST || '127.0.0.1')
  .option(
    '--log-level <level>',
    'fatal, error, warn, info, debug or trace',
    process.env.SVC_LOG_LEVEL || 'warn',
  )
  .addHelpText(
    'after',
    '\nConnector runs (syncs and actions) on a server are "svc runs": list, show, logs.\n',
  )
  .action(async (options) => (await import('./run.js')).runCommand(options));

program
  .command('login')
  .description('sign in once: checks the token with the server and saves it as a context')
  .option('--token <token>', 'API token (CI: svc login --token "$SVC_API_TOKEN")')
  .option('--url <url>', `server URL (default ${DEFAULT_URL}, or SVC_URL)`)
  .option('--org <slug>', "org to act on (default: the token's org)")
  .option('--context <name>', 'name of the saved context (default: the server host)')
  .action(action('login', (options) => login(options, terminalIo())));

program
  .command('logout')
  .description('forget the saved token of the current (or named) context')
  .option('--context <name>', 'context to forget')
  .action(action('logout', (options) => logout(options, terminalIo())));

program
  .command('whoami')
  .description('show the server, org, token and scopes in use')
  .option('--url <url>', 'server URL')
  .option('--org <slug>', 'org')
  .option('--context <name>', 'saved context to use')
  .action(action('whoami', (options) => whoami(options, terminalIo())));

program
  .command('link')
  .description('tie this project to the current (context, org), so that svc apply elsewhere is refused')
  .option('--dir <dir>', 'project directory', '.')
  .option('--org <slug>', 'org')
  .option('--context <name>', 'saved context to use')
  .action(action('link', ({ dir, ...options }) => link(dir, options, terminalIo())));

program
  .command('apply')
  .alias('deploy')
  .description('plan, confirm and apply svc.toml, agent folders and memory bundles to an org (never deletes)')
  .option('--dir <dir>', 'project directory', '.')
  .option('--dry-run', 'show the plan and exit without changing anything')
  .option('--yes', 'apply without asking')
  .addOption(
    new Option('--only <family>', 'restrict to agents (agents, settings, platforms) or memory').choices([
      'agents',
      'memory',
    ]),
  )
  .option('--org <slug>', "org to apply to (default: the session's)")
  .option('--url <url>', "server URL (default: the session's)")
  .option('--context <name>', 'saved context to use')
  .option('--force', 'apply even if .svc/project.json links the project to another (context, org)')
  .option('--json', 'print the plan as JSON (format_version 1)')
  .option(
    '--detailed-exitcode',
    'with --dry-run: exit 0 when nothing would change, 2 when changes are pending, 1 on error',
  )
  .option('--concurrency <n>', 'requests in flight per step', parseConcurrency, 8)
  .action(
    action('apply', async (options: ApplyFlags) => {
      process.exitCode = await applyCommand(options, applyIo(options.json ?? false));
    }),
  );

const secrets = program
  .command('secrets')
  .description(
    "the org's secrets: what references ($NAME) in the project resolve to, before the server's environment",
  );

secrets
  .command('set')
  .description('store a secret for the org (created, updated or unchanged); the value is never printed')
  .argument('<NAME>', 'the name references use, e.g. OPENAI_API_KEY')
  .option('--org <slug>', "org (default: the session's)")
  .option('--url <url>', "server URL (default: the session's)")
  .option('--context <name>', 'saved context to use')
  .addHelpText('after', `\n${VALUE_SOURCES}\n\nExit codes: 0 stored, 1 any error (nothing stored).\n`)
  .action(action('secrets set', (name: string, options) => secretsSet(name, options, secretsIo())));

secrets
  .command('list')
  .description("list the org's secrets: names and update times, never values")
  .option('--json', 'print {org, secrets: [{name, createdAt, updatedAt}]}')
  .option('--org <slug>', "org (default: the session's)")
  .option('--url <url>', "server URL (default: the session's)")
  .option('--context <name>', 'saved context to use')
  .action(action('secrets list', (options) => secretsList(options, terminalIo())));

secrets
  .command('unset')
  .description('delete a secret of the org; references to it stop resolving at once')
  .argument('<NAME>', 'the secret to delete')
  .option('--org <slug>', "org (default: the session's)")
  .option('--url <url>', "server URL (default: the session's)")
  .option('--context <name>', 'saved context to use')
  .addHelpText('after', '\nExit codes: 0 deleted, 1 any error (including no such secret).\n')
  .action(action('secrets unset', (name: string, options) => secretsUnset(name, options, terminalIo())));

const connector = program
  .command('connector')
  .description(
    'connectors: install and list them on the server; sync and action run one on this machine, without a server',
  );

connector
  .command('sync')
  .description(
    'sync one feed on this machine: events to stdout as JSON lines, the summary and logs to stderr',
  )
  .argument('<file>', 'module exporting the connector (.ts or .js)')
  .requiredOption('--feed <key>', 'feed to sync')
  .option('--config <json>', "the feed's config, a JSON object")
  .option('--checkpoint <json>', 'checkpoint to start from, a JSON object (default: none, a first sync)')
  .addOption(tokenEnvOption())
  .addOption(envKeyOption())
  .action(
    action('connector sync', async (file: string, options) => {
      const { connectorSync } = await import('./connector/command.js');
      process.exitCode = await connectorSync(file, options, connectorIo());
    }),
  );

connector
  .command('action')
  .description('run one action on this machine: the ActionResult to stdout, the summary and logs to stderr')
  .argument('<file>', 'module exporting the connector (.ts or .js)')
  .requiredOption('--action <key>', 'action to run')
  .option('--input <json>', "the action's input, a JSON object")
  .option('--config <json>', "the connection's config, a JSON object")
  .addOption(tokenEnvOption())
  .addOption(envKeyOption())
  .option('--approve', 'run an action that requires approval')
  .action(
    action('connector action', async (file: string, options) => {
      const { connectorAction } = await import('./connector/command.js');
      process.exitCode = await connectorAction(file, options, connectorIo());
    }),
  );

program
  .command('import')
  .description('convert a project of another platform into an svc project')
  .command('lobu')
  .description(
    'write an svc project from a Lobu project (lobu.toml, agent folders, models), with a report of every key',
  )
  .option('--dir <dir>', 'the Lobu project (the folder of lobu.toml)', '.')
  .option('--out <dir>', 'where to write the svc project (default: <dir>-svc beside it)')
  .option('--force', 'write into a non-empty --out, overwriting the files the import writes')
  .option('--json', 'print the report as JSON (format_version 1)')
  .addHelpText(
    'after',
    '\nExit codes: 0 written, and svc loads it; 1 nothing written (lobu.toml missing or invalid, --out not empty);\n' +
      "2 written, but svc's loader reports problems (listed).\n",
  )
  .action(
    action('import lobu', async (options) => {
      const { importLobu } = await import('./import/command.js');
      process.exitCode = await importLobu(options, {
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
      });
    }),
  );

registerRuntimeCommands(program, connector);
registerEverydayCommands(program);

/** Where a connector's credentials come from: the environment only, never a flag's value. */
function tokenEnvOption() {
  return new Option(
    '--token-env <name>',
    'variable holding the OAuth access token (default SVC_CONNECTOR_ACCESS_TOKEN)',
  );
}

function envKeyOption() {
  return new Option(
    '--env-key <field=VARIABLE>',
    'an env_keys value from the environment, merged into the config (repeatable)',
  ).argParser((pair: string, pairs: string[] = []) => [...pairs, pair]);
}

function connectorIo() {
  return {
    env: process.env,
    out: (line: string) => process.stdout.write(`${line}\n`),
    err: (line: string) => process.stderr.write(`${line}\n`),
  };
}

function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64)
    throw new InvalidArgumentError('must be a whole number from 1 to 64');
  return n;
}

/** No default here: the server's (DEFAULT_TURN_CONCURRENCY) applies, the same for every caller. */
function turnConcurrencyOption(): Option {
  return new Option(
    '--concurrency <n>',
    `agent turns this process runs at once (default SVC_TURN_CONCURRENCY, else ${DEFAULT_TURN_CONCURRENCY})`,
  ).argParser(parseTurnConcurrency);
}

function parseTurnConcurrency(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000)
    throw new InvalidArgumentError('must be a whole number from 1 to 10000');
  return n;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError('must be a port number from 0 to 65535');
  }
  return port;
}

await program.parseAsync();
