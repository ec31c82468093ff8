import type { Platform } from '../platform.js';
import type { JobOutcomes } from '../ports/job-queue.js';
import { missingVideoTools } from '../processing/video/video-tools.js';
import { PREVIEW_LIBRARY_MODEL } from '../services/library/preview-job.js';
import { PROCESS_BUNDLE } from '../services/processing/processing-service.js';
import { failLibraryModelPreview, previewLibraryModelJob } from './preview-library-model.js';
import { failProcessing, processBundleJob } from './process-bundle.js';
import { JobWorker, type JobWorkerLog, workerSettings } from './worker.js';

/**
 * The processing worker of this process: every job kind the platform defines, with its handler.
 * Says at start when the video tools are missing, rather than only failing each video job. Its
 * stop() lets running jobs finish for the shutdown grace (RDP_SHUTDOWN_GRACE_SECONDS); `metrics`
 * counts the outcomes.
 */
export async function startWorker(platform: Platform, log?: JobWorkerLog, metrics?: JobOutcomes): Promise<JobWorker> {
  const missing = await missingVideoTools();
  if (missing.length > 0) {
    log?.warn(
      { missing },
      `${missing.join(' and ')} not found on PATH: every video input will fail processing until the Debian package ffmpeg is installed (apt-get install ffmpeg)`,
    );
  }
  const worker = new JobWorker({
    store: platform.jobs,
    clock: platform.clock,
    kinds: [PROCESS_BUNDLE, PREVIEW_LIBRARY_MODEL],
    handlers: [processBundleJob(platform, log), previewLibraryModelJob(platform, log)],
    ...workerSettings(platform.config),
    stopGraceMs: platform.config.shutdownGraceSeconds * 1000,
    onSucceeded: (job) => metrics?.jobFinished(job.kind, 'succeeded'),
    onFailed: (job, reason) => {
      metrics?.jobFinished(job.kind, 'failed');
      if (job.kind === PREVIEW_LIBRARY_MODEL.name) return failLibraryModelPreview(platform, job, reason);
      return failProcessing(platform, job, reason);
    },
    log,
  });
  await worker.start();
  return worker;
}
