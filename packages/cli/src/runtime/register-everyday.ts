/**
 * The everyday commands on the server: `svc tokens`, `svc agents`, `svc chat`, `svc conversations`,
 * `svc approvals`, `svc events` and `svc search`. Kept apart from register.ts (the connector
 * runtime's), with the same session flags, `--json` and exit codes.
 */

import { confirm, isCancel } from '@clack/prompts';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { action } from '../io.js';
import { agentsDelete, agentsList, agentsShow } from './agents.js';
import { APPROVAL_FILTERS, approvalsDecide, approvalsList } from './approvals.js';
import { chat, chatIo } from './chat.js';
import { conversationsList, conversationsShow } from './conversations.js';
import { eventsList, eventsShow, search } from './events.js';
import { EXIT, json, pageSize, runtimeIo, withSession } from './register.js';
import { tokensCreate, tokensList, tokensRevoke } from './tokens.js';

function days(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 3650)
    throw new InvalidArgumentError('must be a whole number of days from 1 to 3650');
  return n;
}

/** A prompt only on a terminal (and not in CI): elsewhere a question would hang or read a pipe. */
function confirmIo() {
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !process.env.CI;
  if (!interactive) return runtimeIo();
  return {
    ...runtimeIo(),
    async confirm(message: string) {
      const answer = await confirm({ message, initialValue: false });
      return !isCancel(answer) && answer === true;
    },
  };
}

export function registerEverydayCommands(program: Command): void {
  registerTokens(program);
  registerAgents(program);
  registerChat(program);
  registerConversations(program);
  registerApprovals(program);
  registerEvents(program);
}

function registerTokens(program: Command): void {
  const tokens = program.command('tokens').description("the org's API tokens (admin scope)");
  withSession(
    tokens
      .command('create')
      .description('create a token: prints its secret once, on stdout alone')
      .argument('<name>', 'a name unique among the active tokens (letters, digits, spaces, _ . : @ -)')
      .requiredOption('--scopes <list>', 'comma-separated: read, write, messages, admin')
      .option('--expires-in-days <n>', 'expires after N days (1 to 3650; default never)', days)
      .addOption(json('{result, token, secret}')),
  )
    .addHelpText(
      'after',
      '\nThe secret is shown this once; the server keeps only its hash. The warning goes to stderr, so\n' +
        '"svc tokens create ci --scopes read > ci.token" writes the secret alone.\n' +
        EXIT,
    )
    .action(action('tokens create', (name: string, options) => tokensCreate(name, options, runtimeIo())));
  withSession(
    tokens
      .command('list')
      .description("the org's tokens: status, scopes, expiry, last use (never secrets)")
      .addOption(json('{org, tokens}')),
  )
    .addHelpText('after', EXIT)
    .action(action('tokens list', (options) => tokensList(options, runtimeIo())));
  withSession(
    tokens
      .command('revoke')
      .description('revoke a token: it stops working at once')
      .argument('<tokenId>', 'token id ("svc tokens list")')
      .addOption(json('{result, token}')),
  )
    .addHelpText('after', EXIT)
    .action(action('tokens revoke', (id: string, options) => tokensRevoke(id, options, runtimeIo())));
}

function registerAgents(program: Command): void {
  const agents = program.command('agents').description("the org's agents on the server");
  withSession(
    agents.command('list').description('every agent: providers, platforms').addOption(json('{org, agents}')),
  )
    .addHelpText('after', EXIT)
    .action(action('agents list', (options) => agentsList(options, runtimeIo())));
  withSession(
    agents
      .command('show')
      .description('one agent: its settings, platforms with their webhook URLs, providers with their status')
      .argument('<agentId>', 'agent id')
      .addOption(json('{agent}')),
  )
    .addHelpText('after', EXIT)
    .action(action('agents show', (id: string, options) => agentsShow(id, options, runtimeIo())));
  withSession(
    agents
      .command('delete')
      .description('delete an agent with its settings and platforms (admin scope); asks first')
      .argument('<agentId>', 'agent id')
      .option('--yes', 'do not ask (needed without a terminal)'),
  )
    .addHelpText(
      'after',
      '\nExit codes: 0 deleted, 1 any error, declined, or no terminal to ask on without --yes.\n',
    )
    .action(action('agents delete', (id: string, options) => agentsDelete(id, options, confirmIo())));
}

function registerChat(program: Command): void {
  withSession(
    program
      .command('chat')
      .description(
        'talk to an agent in the terminal: replies stream, tool calls that need approval are asked inline',
      )
      .argument('<agentId>', 'agent id ("svc agents list")')
      .option('--message <text>', 'send one message, print the reply and exit')
      .option(
        '--channel <name>',
        'a conversation shared by the org under this name (default: one of your token alone)',
      ),
  )
    .addHelpText(
      'after',
      '\nEach message waits for its reply. An approval is asked as "approve? [y/N]" then "reason:"\n' +
        '(Enter for none). /exit or Ctrl-D ends the conversation. The token needs the messages scope.\n' +
        'With --message, stdout holds the reply alone (prompts, tool calls and notes on stderr), and the\n' +
        'answers to approvals may be piped in: printf \'y\\nok\\n\' | svc chat ops --message "wipe staging".\n' +
        '\nExit codes: 0 done (with --message: the reply completed), 1 any error, or with --message the\n' +
        'reply failed or an approval was left undecided at the end of input (why on stderr).\n',
    )
    .action(
      action('chat', async (agentId: string, options) => {
        const io = chatIo(runtimeIo(), options.message !== undefined);
        try {
          process.exitCode = await chat(agentId, options, io);
        } finally {
          io.close();
        }
      }),
    );
}

function registerConversations(program: Command): void {
  const conversations = program.command('conversations').description("an agent's conversations and messages");
  withSession(
    conversations
      .command('list')
      .description("an agent's conversations that this token may read, newest first")
      .argument('<agentId>', 'agent id')
      .option('--search <text>', 'only those with a message or reply containing it (any case)')
      .option('--limit <n>', 'conversations per page (1 to 200)', pageSize, 20)
      .option('--cursor <cursor>', 'the next page, as the previous one printed it')
      .addOption(json('{agentId, conversations, nextCursor}')),
  )
    .addHelpText('after', EXIT)
    .action(
      action('conversations list', (id: string, options) => conversationsList(id, options, runtimeIo())),
    );
  withSession(
    conversations
      .command('show')
      .description('a conversation: its messages with their replies, oldest first')
      .argument('<agentId>', 'agent id')
      .argument('<conversationId>', 'conversation id ("svc conversations list <agentId>")')
      .addOption(json('{agentId, conversationId, messages}')),
  )
    .addHelpText('after', EXIT)
    .action(
      action('conversations show', (agentId: string, id: string, options) =>
        conversationsShow(agentId, id, options, runtimeIo()),
      ),
    );
}

function registerApprovals(program: Command): void {
  const approvals = program
    .command('approvals')
    .description("what waits for a person's decision: agents' tool calls and connector action runs");
  withSession(
    approvals
      .command('list')
      .description('the approvals inbox, newest first (pending by default)')
      .addOption(
        new Option('--status <status>', 'which to list').choices(APPROVAL_FILTERS).default('pending'),
      )
      .option('--agent <agentId>', "only this agent's tool calls")
      .option('--limit <n>', 'items per page (1 to 200)', pageSize, 50)
      .option('--cursor <cursor>', 'the next page, as the previous one printed it')
      .addOption(json('{org, approvals, nextCursor}')),
  )
    .addHelpText('after', EXIT)
    .action(action('approvals list', (options) => approvalsList(options, runtimeIo())));
  for (const [verb, what] of [
    ['approve', 'approve a tool call (a uuid) or an action run (a number): it runs'],
    ['reject', 'reject a tool call or an action run: it never runs'],
  ] as const) {
    withSession(
      approvals
        .command(verb)
        .description(what)
        .argument('<id>', 'the id "svc approvals list" shows')
        .option('--reason <text>', 'why (a tool call tells the model; an action run keeps none)')
        .option('--agent <agentId>', "a tool call's agent: decided directly (a messages-only token can)")
        .addOption(json('the decided record')),
    )
      .addHelpText(
        'after',
        `\nA tool call is decided with the messages scope, an action run with write.\n${EXIT}`,
      )
      .action(
        action(`approvals ${verb}`, (id: string, options) => approvalsDecide(verb, id, options, runtimeIo())),
      );
  }
}

/** The filters `svc events list` and `svc search` share, as the API names them. */
function withFilters(command: Command, feed: string): Command {
  return command
    .option('--connection <id>', 'events of this connection')
    .option('--feed <feed>', feed)
    .option('--kind <kind>', 'origin_type, or semantic_type of an event without one')
    .option('--entity <id>', 'events linked to this entity')
    .option('--since <instant>', 'occurred at or after (ISO 8601: 2026-01-31, 2026-01-31T10:00:00Z)')
    .option('--until <instant>', 'occurred before');
}

function registerEvents(program: Command): void {
  const events = program.command('events').description('what syncs, agents and watchers wrote to memory');
  withSession(
    withFilters(
      events.command('list').description("the org's events, newest first"),
      'events of this feed: its id, or its key (posts)',
    )
      .option('--limit <n>', 'events per page (1 to 200)', pageSize, 20)
      .option('--cursor <cursor>', 'the next page, as the previous one printed it')
      .addOption(json('{org, events, nextCursor}')),
  )
    .addHelpText('after', EXIT)
    .action(action('events list', (options) => eventsList(options, runtimeIo())));
  withSession(
    events
      .command('show')
      .description('one event, with its text')
      .argument('<eventId>', 'event id')
      .addOption(json('{event}')),
  )
    .addHelpText('after', EXIT)
    .action(action('events show', (id: string, options) => eventsShow(id, options, runtimeIo())));
  withSession(
    withFilters(
      program
        .command('search')
        .description("the org's events that match words, best first")
        .argument('<query>', 'words (all must match), "a phrase", -word, or'),
      'events of this feed (its id)',
    )
      .option('--limit <n>', 'hits (1 to 200)', pageSize, 20)
      .addOption(json('{mode, modeNote, coverage, hits}')),
  )
    .addHelpText('after', EXIT)
    .action(action('search', (query: string, options) => search(query, options, runtimeIo())));
}
