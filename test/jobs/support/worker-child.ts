/**
 * A worker process for the crash test: opens the stores named by its environment, runs jobs of
 * kind "crash-work" whose handler heart-beats once, says so on stdout, and then hangs until the
 * test kills the process.
 */
import { loadConfig } from '../../../src/config/config.js';
import { handleJob } from '../../../src/jobs/job-handler.js';
import { JobWorker } from '../../../src/jobs/worker.js';
import { openPlatform } from '../../../src/platform.js';
import { crashWork } from './crash-work.js';

const platform = await openPlatform(loadConfig());
const store = platform.jobs;
const worker = new JobWorker({
  store,
  clock: platform.clock,
  kinds: [crashWork],
  handlers: [
    handleJob(crashWork, async (payload, context) => {
      await context.heartbeat(0.1);
      process.stdout.write(`running ${payload.tag}\n`);
      await new Promise(() => {});
    }),
  ],
  slots: 1,
  pollIntervalMs: 20,
  heartbeatTimeoutMs: 60_000,
});
await worker.start();
process.stdout.write('ready\n');
