#!/usr/bin/env node
import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config.js';
import { ApiError } from '../domain/errors.js';
import { addAdminCommands } from './admin-commands.js';
import { describeError, EXIT, RefusedError, UsageError } from './cli-errors.js';
import { addNodeCommands } from './node-commands.js';
import { addProcessingCommands } from './processing-commands.js';
import { addSessionCommands } from './session-commands.js';
import { addUploadCommand } from './upload-command.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** The program: every command group adds itself; usage errors are thrown, not exited on. */
export function buildProgram(): Command {
  const program = new Command('rdp')
    .description(
      'Reality Data Platform command line: sign in, browse, upload, process and view; admin commands for the deployment',
    )
    .version(version, '-V, --version', 'print the version')
    .exitOverride()
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ outputError: (message, write) => write(message.replace(/^error: /, 'rdp: ')) });
  addSessionCommands(program);
  addNodeCommands(program);
  addUploadCommand(program);
  addProcessingCommands(program);
  addAdminCommands(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.done;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version asked for are done; help shown because a command was missing is usage.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.done;
      return EXIT.usage;
    }
    if (error instanceof UsageError || error instanceof ConfigError) {
      console.error(`rdp: ${error.message}`);
      return EXIT.usage;
    }
    if (error instanceof ApiError || error instanceof RefusedError) {
      const body = error instanceof ApiError ? error.toBody() : error.body;
      if (json && body !== undefined) process.stdout.write(`${JSON.stringify(body)}\n`);
      console.error(`rdp: ${error.message}`);
      return EXIT.refused;
    }
    // Anything else (a store or server that cannot be reached, say): one line, not a stack trace.
    console.error(`rdp: failed: ${describeError(error)}`);
    return EXIT.refused;
  }
}

process.exitCode = await main(process.argv.slice(2));
