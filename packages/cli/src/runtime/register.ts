/**
 * The connector-runtime commands on the server: `svc connector install|list` (next to the local
 * `sync` and `action`), `svc connection`, `svc feed`, `svc runs` (`svc run` is the local gateway)
 * and `svc action`.
 */

import { type Command, InvalidArgumentError, Option } from 'commander';
import { action } from '../io.js';
import { actionRun } from './actions.js';
import type { RuntimeIo } from './api.js';
import { connectionAuth } from './auth.js';
import { browserAuth, browserAuthIo } from './browser-auth.js';
import { connectorRefresh } from './codeless.js';
import {
  connectionCreate,
  connectionCredentials,
  connectionDelete,
  connectionList,
  connectionSetStatus,
} from './connections.js';
import { connectorInstall, connectorList } from './connectors.js';
import { feedConfigure, feedList, feedSetStatus, feedSync, parseInterval } from './feeds.js';
import { runsLogs } from './logs.js';
import { connectionConnect, connectionRevoke } from './oauth-connect.js';
import { CONFIG_SYNTAX } from './pairs.js';
import { RUN_STATUSES, RUN_TYPES } from './run-record.js';
import { runsDecide, runsList, runsShow } from './runs.js';
import { watchersList, watchersRun, watchersSetStatus, watchersWindows } from './watchers.js';

export function runtimeIo(): RuntimeIo {
  return {
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    pollMs: 1000,
  };
}

export const EXIT = '\nExit codes: 0 done, 1 any error (the reason and what to do on stderr).\n';
const FOLLOW_EXIT =
  '\nExit codes: 0 done (with --follow: the run completed), 1 any error, 2 with --follow: the run ended\n' +
  'failed, timed out, cancelled or rejected.\n';

/** `--org`, `--url`, `--context`, as every command that talks to the server takes them. */
export function withSession(command: Command): Command {
  return command
    .option('--org <slug>', "org (default: the session's)")
    .option('--url <url>', "server URL (default: the session's)")
    .option('--context <name>', 'saved context to use');
}

const collect = (value: string, values: string[] = []) => [...values, value];
export const json = (what: string) => new Option('--json', `print ${what} as JSON`);

function interval(value: string): number {
  try {
    return parseInterval(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

export function registerRuntimeCommands(program: Command, connector: Command): void {
  withSession(
    connector
      .command('install')
      .description('install a connector in the org on the server, or upgrade it (admin scope)')
      .argument(
        '<connector>',
        'a bundled connector (rss, code-host), the path of a module (./shop.ts), or a definition without code (./petstore.yaml)',
      )
      .addOption(json('{result, connector}')),
  )
    .addHelpText(
      'after',
      '\nA module (a path ending in .ts or .js) is sent as source: one module, importing only\n' +
        '@svc/connector-sdk. The server must allow that (SVC_CONNECTOR_SOURCE_INSTALLS=on).\n' +
        'A .json, .yaml or .yml file is a definition without code: openapiConfig (an OpenAPI\n' +
        'description) or mcpConfig (an MCP server), whose actions the server generates; a top-level\n' +
        'requiresApproval: {actionKey: true|false} overrides which of them need approval.\n' +
        EXIT,
    )
    .action(
      action('connector install', (target: string, options) =>
        connectorInstall(target, options, runtimeIo()),
      ),
    );

  withSession(
    connector
      .command('refresh')
      .description(
        "read a connector without code's upstream again (its OpenAPI description, its MCP server's tools) and replace its actions (admin scope)",
      )
      .argument('<key>', 'the installed connector ("svc connector list")')
      .option(
        '--connection <id>',
        "read it with this connection's credentials (default: the first active connection that has some)",
      )
      .addOption(json('{result, connector, added, removed}')),
  )
    .addHelpText('after', EXIT)
    .action(
      action('connector refresh', (key: string, options) => connectorRefresh(key, options, runtimeIo())),
    );

  withSession(
    connector
      .command('list')
      .description("the org's installed connectors")
      .addOption(json('{org, connectors}')),
  ).action(action('connector list', (options) => connectorList(options, runtimeIo())));

  const connection = program
    .command('connection')
    .description("the org's connections: a connector, connected");

  withSession(
    connection
      .command('create')
      .description('connect an installed connector; its feeds are created with it')
      .argument('<connectorKey>', 'the installed connector ("svc connector list")')
      .option('--name <name>', "the connection's display name")
      .option('--config <key=value>', `the connection's config, repeatable: ${CONFIG_SYNTAX}`, collect)
      .option(
        '--credential <FIELD=ENV_VAR>',
        'an env_keys value, read from the environment variable ENV_VAR (repeatable)',
        collect,
      )
      .addOption(json('{connection, feeds}')),
  )
    .addHelpText(
      'after',
      '\nA credential is never taken on the command line (it would show in ps and shell history) and\n' +
        'never printed: export SHOP_TOKEN=... then --credential token=SHOP_TOKEN.\n' +
        EXIT,
    )
    .action(
      action('connection create', (key: string, options) => connectionCreate(key, options, runtimeIo())),
    );

  withSession(
    connection.command('list').description("the org's connections").addOption(json('{org, connections}')),
  ).action(action('connection list', (options) => connectionList(options, runtimeIo())));

  for (const [verb, status, what] of [
    ['pause', 'paused', 'stop its feeds syncing and its actions running'],
    ['resume', 'active', 'let its feeds sync and its actions run again'],
  ] as const) {
    withSession(connection.command(verb).description(what).argument('<id>', 'connection id'))
      .addHelpText('after', EXIT)
      .action(
        action(`connection ${verb}`, (id: string, options) =>
          connectionSetStatus(id, status, options, runtimeIo()),
        ),
      );
  }

  withSession(
    connection
      .command('credentials')
      .description("replace a connection's credentials (brings a connection in error back to active)")
      .argument('<id>', 'connection id')
      .option(
        '--credential <FIELD=ENV_VAR>',
        'a credential value, read from the environment variable ENV_VAR (repeatable)',
        collect,
      ),
  )
    .addHelpText('after', EXIT)
    .action(
      action('connection credentials', (id: string, options) =>
        connectionCredentials(id, options, runtimeIo()),
      ),
    );

  withSession(
    connection
      .command('delete')
      .description('delete a connection that holds no events, with its feeds (admin scope)')
      .argument('<id>', 'connection id')
      .addOption(json('{result, connectionId}')),
  )
    .addHelpText(
      'after',
      '\nA connection whose syncs collected events is refused: deleting it would delete them. Stop it and\n' +
        'keep its events with "svc connection revoke <id>". One with a pending or running run is refused too.\n' +
        EXIT,
    )
    .action(action('connection delete', (id: string, options) => connectionDelete(id, options, runtimeIo())));

  withSession(
    connection
      .command('auth')
      .description(
        "authenticate a connection interactively: runs its connector's authenticate() and shows what it asks (a QR code, a code, a link, a form)",
      )
      .argument('<id>', 'connection id')
      .addOption(json('each event of the auth run, one a line,')),
  )
    .addHelpText(
      'after',
      '\nA QR code is drawn in the terminal; a form is asked field by field (passwords and one-time codes\n' +
        'hidden), or read from standard input a line per field when it is not a terminal:\n' +
        "  printf '123456\\n' | svc connection auth 7\n" +
        'What is typed is sent once to the server, kept encrypted until the connector takes it, and never printed.\n' +
        'Ctrl-C cancels the auth run.\n' +
        '\nExit codes: 0 the connection is authenticated, 1 any error, 2 the auth run failed, timed out or was\n' +
        'cancelled (its error on stderr).\n',
    )
    .action(
      action('connection auth', async (id: string, options) => {
        process.exitCode = await connectionAuth(id, options, runtimeIo());
      }),
    );

  withSession(
    connection
      .command('connect')
      .description(
        'connect an OAuth connection: prints the provider URL to open, waits until the provider sends you back, says how it went',
      )
      .argument('<id>', 'connection id')
      .option(
        '--scope <scope>',
        'an optional scope of the connector to ask for as well (repeatable)',
        collect,
      )
      .option('--no-wait', 'print the URL (with --json: the whole answer) and exit')
      .addOption(json('{attempt, connection}')),
  )
    .addHelpText(
      'after',
      '\nThe tokens go from the provider to the server; this command never sees them.\n' +
        'Exit codes: 0 connected (or the URL printed, with --no-wait), 1 declined, expired, failed or any other error (why on stderr).\n',
    )
    .action(
      action('connection connect', (id: string, options) => connectionConnect(id, options, runtimeIo())),
    );

  withSession(
    connection
      .command('revoke')
      .description(
        "forget a connection's credentials (tokens, values, browser session): it is revoked until connected again",
      )
      .argument('<id>', 'connection id')
      .option('--reason <text>', 'why, kept in its error message')
      .addOption(json('{connection}')),
  )
    .addHelpText('after', EXIT)
    .action(action('connection revoke', (id: string, options) => connectionRevoke(id, options, runtimeIo())));

  const feed = program.command('feed').description("a connection's feeds and their syncs");

  withSession(
    feed
      .command('list')
      .description("a connection's feeds: status, schedule, last sync, items")
      .argument('<connectionId>', 'connection id ("svc connection list")')
      .addOption(json('{org, connectionId, feeds}')),
  ).action(action('feed list', (id: string, options) => feedList(id, options, runtimeIo())));

  withSession(
    feed
      .command('sync')
      .description(
        'sync a feed now: prints the run id (one open sync per feed: asking twice gives the same run)',
      )
      .argument('<feedId>', 'feed id ("svc feed list <connectionId>")')
      .option('--follow', "print the run's log until it ends, instead of its id"),
  )
    .addHelpText('after', FOLLOW_EXIT)
    .action(
      action('feed sync', async (id: string, options) => {
        process.exitCode = await feedSync(id, options, runtimeIo());
      }),
    );

  withSession(
    feed
      .command('configure')
      .description("set a feed's config (replacing it whole) or how often it syncs")
      .argument('<feedId>', 'feed id')
      .option('--config <key=value>', `the feed's config, repeatable: ${CONFIG_SYNTAX}`, collect)
      .option('--every <interval>', 'time between syncs: 15m, 1h, 2d (1m to 30d)', interval),
  )
    .addHelpText('after', `\nA feed paused for want of config starts once its config is valid.\n${EXIT}`)
    .action(action('feed configure', (id: string, options) => feedConfigure(id, options, runtimeIo())));

  for (const [verb, status, what] of [
    ['pause', 'paused', 'stop syncing the feed'],
    ['resume', 'active', 'sync the feed again (clears an error status after failures)'],
  ] as const) {
    withSession(feed.command(verb).description(what).argument('<feedId>', 'feed id'))
      .addHelpText('after', EXIT)
      .action(
        action(`feed ${verb}`, (id: string, options) => feedSetStatus(id, status, options, runtimeIo())),
      );
  }

  registerBrowserAuth(
    program.command('memory').description("memory's connections that need a person: browser sessions"),
  );

  const runs = program
    .command('runs')
    .description('connector runs on the server: syncs and actions (svc run is the local gateway)');

  withSession(
    runs
      .command('list')
      .description("the org's runs, newest first")
      .option('--feed <feedId>', "a feed's runs")
      .option('--connection <connectionId>', "a connection's runs")
      .addOption(new Option('--status <status>', 'runs in this status').choices(RUN_STATUSES))
      .addOption(new Option('--type <type>', 'runs of this type').choices(RUN_TYPES))
      .option('--limit <n>', 'runs per page (1 to 200)', pageSize, 20)
      .option('--cursor <cursor>', 'the next page, as the previous one printed it')
      .addOption(json('{org, runs, nextCursor}')),
  ).action(action('runs list', (options) => runsList(options, runtimeIo())));

  withSession(
    runs.command('show').description('one run').argument('<id>', 'run id').addOption(json('{run}')),
  ).action(action('runs show', (id: string, options) => runsShow(id, options, runtimeIo())));

  withSession(
    runs
      .command('logs')
      .description("a run's log lines: time level msg {fields}")
      .argument('<id>', 'run id')
      .option('-f, --follow', 'keep printing new lines until the run has ended'),
  )
    .addHelpText('after', FOLLOW_EXIT)
    .action(
      action('runs logs', async (id: string, options) => {
        process.exitCode = await runsLogs(id, options, runtimeIo());
      }),
    );

  for (const [verb, what] of [
    ['cancel', 'stop a pending or running run'],
    ['approve', 'approve an action run that waits for approval; a worker then runs it'],
    ['reject', 'reject an action run that waits for approval; it never runs'],
  ] as const) {
    withSession(runs.command(verb).description(what).argument('<id>', 'run id'))
      .addHelpText('after', EXIT)
      .action(action(`runs ${verb}`, (id: string, options) => runsDecide(verb, id, options, runtimeIo())));
  }

  registerWatchers(program);

  const actions = program.command('action').description("a connection's actions, run on the server");

  withSession(
    actions
      .command('run')
      .description('run one action: prints the run id; one that requires approval waits for it')
      .argument('<connectionId>', 'connection id ("svc connection list")')
      .argument('<actionKey>', 'the action, as its connector names it ("svc connector list")')
      .option('--input <json>', "the action's input, a JSON object (default {})")
      .option('--follow', "print the run's log until it ends, instead of its id"),
  )
    .addHelpText('after', FOLLOW_EXIT)
    .action(
      action('action run', async (id: string, key: string, options) => {
        process.exitCode = await actionRun(id, key, options, runtimeIo());
      }),
    );
}

/** `svc memory browser-auth`: a person's browser session, captured locally for a `browser` connection. */
export function registerBrowserAuth(memory: Command): void {
  withSession(
    memory
      .command('browser-auth')
      .description(
        "log in to a browser connector's service in a local Chromium (fresh profile) and upload the cookies of its requiredDomains",
      )
      .requiredOption('--connection <id>', 'the connection ("svc connection list")')
      .option('--open <url>', 'a page to open instead of https://<domain>/ (repeatable)', collect)
      .option('--headless', 'no window: for a page that logs in by itself')
      .option('--no-wait', 'capture once the pages are open, without waiting for Enter')
      .option(
        '--browser-arg <flag>',
        'another Chromium flag, such as --proxy-server=... (repeatable)',
        collect,
      )
      .addOption(json('{connection, session}')),
  )
    .addHelpText(
      'after',
      '\nChromium is SVC_CHROMIUM_PATH, else /usr/bin/chromium (Debian: apt-get install chromium) or another\n' +
        'usual place. It starts with a fresh temporary profile, never yours, removed afterwards. Log in, then\n' +
        "press Enter: the cookies of the connector's requiredDomains are uploaded (never printed), and the\n" +
        "connection's syncs get them as ctx.sessionState.\n" +
        EXIT,
    )
    .action(action('memory browser-auth', (options) => browserAuth(options, browserAuthIo(runtimeIo()))));
}

export function pageSize(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 200)
    throw new InvalidArgumentError('must be a whole number from 1 to 200');
  return n;
}

/** `svc watchers`: the memory bundles' watchers as they run on the server. */
function registerWatchers(program: Command): void {
  const watchers = program
    .command('watchers')
    .description(
      'watchers on the server: their windows, a run now, pause and resume (defined in memory bundles)',
    );
  withSession(
    watchers
      .command('list')
      .description('every watcher: schedule, status, last window, next run, problem')
      .addOption(json('{org, watchers}')),
  )
    .addHelpText('after', EXIT)
    .action(action('watchers list', (options) => watchersList(options, runtimeIo())));
  withSession(
    watchers
      .command('run')
      .description('run a window now (its open one, or one from where the last ended to now): prints its id')
      .argument('<slug>', 'watcher slug')
      .addOption(json('{window, created}')),
  )
    .addHelpText('after', EXIT)
    .action(action('watchers run', (slug: string, options) => watchersRun(slug, options, runtimeIo())));
  withSession(
    watchers
      .command('windows')
      .description("a watcher's windows, newest first; with --window, one window's result")
      .argument('<slug>', 'watcher slug')
      .option('--window <id>', 'one window: its reply or structured result, and the events it covered')
      .option('--limit <n>', 'windows per page (1 to 200)', pageSize, 20)
      .option('--cursor <cursor>', 'the next page, as the previous one printed it')
      .addOption(json('{windows, nextCursor} or {window}')),
  )
    .addHelpText('after', EXIT)
    .action(
      action('watchers windows', (slug: string, options) => watchersWindows(slug, options, runtimeIo())),
    );
  for (const [verb, status, what] of [
    ['pause', 'paused', 'stop making windows'],
    ['resume', 'active', 'make windows again; a failed window is retried at once and its failures forgotten'],
  ] as const) {
    withSession(watchers.command(verb).description(what).argument('<slug>', 'watcher slug'))
      .addHelpText('after', EXIT)
      .action(
        action(`watchers ${verb}`, (slug: string, options) =>
          watchersSetStatus(slug, status, options, runtimeIo()),
        ),
      );
  }
}
