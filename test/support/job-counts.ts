import type { JobQueue } from '../../src/ports/job-queue.js';

/** Queued and running jobs of every kind. */
export async function activeJobs(queue: Pick<JobQueue, 'countByState'>): Promise<number> {
  const { queued, running } = await queue.countByState();
  return queued + running;
}
