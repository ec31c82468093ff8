import { type RegionLifecycles, regionLifecycles } from '../composition/region-services.js';
import { JOB_KINDS } from '../domain/processing/jobs.js';
import type { Region } from '../domain/regions.js';
import type { Platform } from '../platform.js';
import type { JobOutcomes } from '../ports/job-queue.js';
import { missingVideoTools } from '../processing/video/video-tools.js';
import { compareBundlesJob } from './compare-bundles.js';
import type { JobErrorLog, JobRegistration } from './job-handler.js';
import { previewLibraryModelJob } from './preview-library-model.js';
import { processBundleJob } from './process-bundle.js';
import { JobWorker, type JobWorkerLog, workerSettings } from './worker.js';

/**
 * Every job kind the worker runs, each with its handler and failure handling, over the
 * platform's stores: a region's lifecycles are built once, when its first job comes.
 */
export function workerJobs(platform: Platform, log?: JobErrorLog): JobRegistration[] {
  const built = new Map<Region, RegionLifecycles>();
  const lifecycles = (region: Region): RegionLifecycles => {
    let found = built.get(region);
    if (!found) {
      found = regionLifecycles(platform, platform.region(region));
      built.set(region, found);
    }
    return found;
  };
  const { blobs } = platform;
  return [
    processBundleJob({
      processings: (region) => lifecycles(region).processings,
      blobs,
      reconstructionCommand: platform.config.jobs.reconstructionCommand,
      log,
    }),
    previewLibraryModelJob({ previews: (region) => lifecycles(region).previews, blobs, log }),
    compareBundlesJob({ comparisons: (region) => lifecycles(region).comparisons, blobs, log }),
  ];
}

/**
 * The processing worker of this process: every job kind the platform defines (JOB_KINDS), run by
 * the table of workerJobs. Says at start when the video tools are missing, rather than only
 * failing each video job. Its stop() lets running jobs finish for the shutdown grace
 * (RDP_SHUTDOWN_GRACE_SECONDS); `metrics` counts the outcomes.
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
    kinds: JOB_KINDS,
    handlers: workerJobs(platform, log),
    ...workerSettings(platform.config),
    stopGraceMs: platform.config.shutdownGraceSeconds * 1000,
    onSucceeded: (job) => metrics?.jobFinished(job.kind, 'succeeded'),
    onFailed: (job) => metrics?.jobFinished(job.kind, 'failed'),
    log,
  });
  await worker.start();
  return worker;
}
