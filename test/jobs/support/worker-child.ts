/**
 * A worker process for the crash test: opens the stores named by its environment, runs jobs of
 * kind "crash-work" whose handler heart-beats once, writes a file in its job folder (under
 * RDP_TEST_WORK_ROOT), says so on stdout with the folder, and then hangs until the test kills the process.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
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
      const folder = await context.workDir();
      await fs.writeFile(path.join(folder, 'input'), 'half a processing');
      process.stdout.write(`running ${payload.tag} ${folder}\n`);
      await new Promise(() => {});
    }),
  ],
  slots: 1,
  pollIntervalMs: 20,
  heartbeatTimeoutMs: 60_000,
  workRoot: process.env.RDP_TEST_WORK_ROOT,
});
await worker.start();
process.stdout.write('ready\n');
