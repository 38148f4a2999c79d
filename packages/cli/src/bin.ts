#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { serverCommand } from './server.js';

const program = new Command('svc')
  .description('svc: a self-hostable agent platform')
  .version('0.1.0')
  .showHelpAfterError();

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
  .action(serverCommand);

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError('must be a port number from 0 to 65535');
  }
  return port;
}

await program.parseAsync();
