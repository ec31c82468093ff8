import fs from 'node:fs';
import path from 'node:path';
import { ok, UploadExpiredError, uploadBundleInput } from '@reality-data-platform/sdk';
import type { Command } from 'commander';
import { RefusedError, UsageError } from './cli-errors.js';
import { printResult } from './output.js';
import { ProgressBar } from './progress-bar.js';
import { refusal, signedIn } from './signed-in.js';
import { readUploadRun, removeUploadRun, uploadStateFile, writeUploadRun } from './upload-state.js';

interface UploadOptions {
  to: string;
  name?: string;
  concurrency: string;
  json?: boolean;
}

export function addUploadCommand(program: Command): void {
  program
    .command('upload')
    .description(
      'upload files into a new data bundle in NODE and finalize it; prints the bundle id. Interrupted, the same command resumes, sending only the missing parts',
    )
    .argument('<files...>', 'the bundle’s files (the largest is the one processed: a point cloud or a video)')
    .requiredOption('--to <node>', 'the site or folder to make the bundle in')
    .option('--name <name>', 'the bundle’s name (default: the first file’s name)')
    .option('--concurrency <n>', 'parts sent at once', '4')
    .option('--json', 'print the bundle as one JSON object')
    .action(async (fileArgs: string[], options: UploadOptions) => {
      const concurrency = Number(options.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1)
        throw new UsageError(`--concurrency must be a whole number from 1, got "${options.concurrency}"`);
      const files = fileArgs.map((file) => path.resolve(file));
      for (const file of files) {
        if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`${file} is not a file`);
      }
      const { api, credentials } = signedIn();
      const stateFile = uploadStateFile(credentials.apiUrl, options.to, files);
      const run = readUploadRun(stateFile) ?? {
        apiUrl: credentials.apiUrl,
        to: options.to,
        files,
        name: options.name ?? path.basename(files[0] as string),
      };
      const resuming = run.bundleId !== undefined;
      // Ctrl-C stops the parts in flight; the parts done are in the state file already.
      const stop = new AbortController();
      const interrupt = () =>
        stop.abort(new RefusedError(`interrupted; run the same command again to resume (state: ${stateFile})`));
      process.once('SIGINT', interrupt);
      let bar: ProgressBar | undefined;
      try {
        if (run.bundleId === undefined) {
          const bundle = await ok(
            api.POST('/v1/nodes/{parentId}/bundle', { params: { path: { parentId: options.to } }, body: { name: run.name } }),
          );
          run.bundleId = bundle.id;
          writeUploadRun(stateFile, run);
        } else {
          const done = run.upload?.kind === 'bundleInput' ? run.upload.files.reduce((sum, file) => sum + file.done.length, 0) : 0;
          process.stderr.write(
            `Resuming the upload into bundle ${run.bundleId} (${done} part${done === 1 ? '' : 's'} already stored)\n`,
          );
        }
        const bundle = await uploadBundleInput(
          { api },
          {
            bundleId: run.bundleId,
            files: files.map((source) => ({ source })),
            resume: run.upload,
            concurrency,
            signal: stop.signal,
            onState: (state) => {
              run.upload = state;
              writeUploadRun(stateFile, run);
            },
            onProgress: ({ sentBytes, totalBytes }) => {
              bar ??= new ProgressBar(resuming ? 'resuming' : 'uploading', totalBytes);
              bar.update(sentBytes);
            },
          },
        );
        bar?.finish();
        removeUploadRun(stateFile);
        if (options.json) printResult(bundle as unknown as Record<string, unknown>, true);
        else process.stdout.write(`${bundle.id}\n`);
      } catch (error) {
        bar?.finish();
        if (error instanceof UploadExpiredError) {
          removeUploadRun(stateFile);
          throw new RefusedError(`${error.message} (the state is removed: the next run starts anew)`);
        }
        if (stop.signal.aborted) throw stop.signal.reason;
        const reason = refusal(error);
        if (reason instanceof RefusedError) {
          // Refused by the platform: the same command would meet the same answer unless something changes.
          const kept = fs.existsSync(stateFile) ? ` (the upload's state is kept in ${stateFile}; delete it to start over)` : '';
          throw new RefusedError(`${reason.message}${kept}`, reason.body);
        }
        throw new RefusedError(
          `upload stopped: ${(error as Error).message}; run the same command again to resume (state: ${stateFile})`,
        );
      } finally {
        process.off('SIGINT', interrupt);
      }
    });
}
