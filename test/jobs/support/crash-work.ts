import { defineJob } from '../../../src/ports/job-queue.js';

/** The job kind of the crash test, shared by the test and its child worker. */
export const crashWork = defineJob<{ tag: string }>('crash-work', 1);
