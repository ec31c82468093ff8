import type { Platform } from '../platform.js';
import { PROCESS_BUNDLE } from '../services/processing/processing-service.js';
import { failProcessing, processBundleJob } from './process-bundle.js';
import { JobWorker, workerSettings } from './worker.js';

/** The processing worker of this process: every job kind the platform defines, with its handler. */
export async function startWorker(
  platform: Platform,
  log?: { error(object: object, message: string): void },
): Promise<JobWorker> {
  const worker = new JobWorker({
    store: platform.jobs,
    clock: platform.clock,
    kinds: [PROCESS_BUNDLE],
    handlers: [processBundleJob(platform, log)],
    ...workerSettings(platform.config),
    onFailed: (job, reason) => failProcessing(platform, job, reason),
    log,
  });
  await worker.start();
  return worker;
}
