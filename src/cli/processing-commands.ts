import { randomUUID } from 'node:crypto';
import readline from 'node:readline/promises';
import { ok, waitForProcessing } from '@reality-data-platform/sdk';
import type { Command } from 'commander';
import { RefusedError, UsageError } from './cli-errors.js';
import { printResult } from './output.js';
import { refusal, signedIn } from './signed-in.js';

async function confirm(question: string): Promise<boolean> {
  const prompt = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}

function elapsed(since: number): string {
  const seconds = Math.round((Date.now() - since) / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export function addProcessingCommands(program: Command): void {
  program
    .command('process')
    .description('show the processing cost of a bundle’s input and, once confirmed, start processing it')
    .argument('<bundle>', 'a data bundle with its input uploaded')
    .option('-y, --yes', 'do not ask (needed where there is no terminal to ask on)')
    .option('--json', 'print the processing as one JSON object')
    .action(async (bundleId: string, options: { yes?: boolean; json?: boolean }) => {
      const { api } = signedIn();
      try {
        const cost = await ok(api.GET('/v1/bundles/{bundleId}/processing/cost', { params: { path: { bundleId } } }));
        const files = `${cost.fileCount} file${cost.fileCount === 1 ? '' : 's'}`;
        process.stderr.write(
          `Processing ${files} (${cost.inputBytes} bytes${cost.format ? `, ${cost.format}` : ''}) costs ${cost.cost} ${cost.unit}.\n`,
        );
        if (!options.yes) {
          if (!process.stdin.isTTY) {
            throw new RefusedError('not started: there is no terminal to confirm the cost on; add --yes to start without asking');
          }
          if (!(await confirm('Start processing? [y/N] '))) throw new RefusedError('not started: not confirmed');
        }
        // One key per run of the command: a retry after a lost answer never starts a second processing.
        const processing = await ok(
          api.POST('/v1/bundles/{bundleId}/processing', {
            params: { path: { bundleId }, header: { 'idempotency-key': randomUUID() } },
            body: { cost: cost.cost },
          }),
        );
        if (options.json) printResult(processing as unknown as Record<string, unknown>, true);
        else process.stdout.write(`processing ${processing.id} ${processing.state}; follow it with: rdp watch ${bundleId}\n`);
      } catch (error) {
        throw refusal(error);
      }
    });

  program
    .command('watch')
    .description('follow a bundle’s processing until it ends: exit 0 when it succeeded, 1 when it failed (with the reason)')
    .argument('<bundle>', 'a data bundle being processed')
    .option('--interval <seconds>', 'how often to look', '1')
    .option('--json', 'print the finished processing as one JSON object')
    .action(async (bundleId: string, options: { interval: string; json?: boolean }) => {
      const intervalMs = Number(options.interval) * 1000;
      if (!(intervalMs > 0)) throw new UsageError(`--interval must be a number of seconds, got "${options.interval}"`);
      const { api } = signedIn();
      const started = Date.now();
      const live = Boolean(process.stderr.isTTY);
      let shown = '';
      try {
        const processing = await waitForProcessing({ api }, bundleId, undefined, {
          intervalMs,
          onUpdate: (update) => {
            const line = `processing ${update.id}: ${update.state}`;
            if (live) process.stderr.write(`\r\x1b[K${line} (${elapsed(started)})`);
            else if (line !== shown) process.stderr.write(`${line}\n`);
            shown = line;
          },
        });
        if (live) process.stderr.write('\n');
        if (options.json) printResult(processing as unknown as Record<string, unknown>, true);
        if (processing.state === 'failed')
          throw new RefusedError(`processing failed: ${processing.failureReason ?? 'no reason given'}`);
        if (!options.json)
          process.stdout.write(`succeeded: derivative ${processing.derivativeId}; see it with: rdp open ${bundleId}\n`);
      } catch (error) {
        throw refusal(error);
      }
    });
}
