import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleJob } from '../../src/jobs/job-handler.js';
import { JobWorker } from '../../src/jobs/worker.js';
import type { JobSummary } from '../../src/ports/job-queue.js';
import { crashWork } from './support/crash-work.js';
import { eventually, type JobProcess, type JobStores, jobStores } from './support/job-stores.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts the child worker on the test's stores; `lines` collects what it prints. */
function startChild(env: Record<string, string>): {
  child: ChildProcess;
  lines: string[];
  exited: Promise<NodeJS.Signals | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/jobs/support/worker-child.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    lines.push(...parts);
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  return { child, lines, exited };
}

/** A worker process killed with SIGKILL mid-job: its job is neither lost nor run twice. */
describe('a worker that dies mid-job', () => {
  let stores: JobStores;
  let parent: JobProcess;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    stores = jobStores();
    parent = await stores.open();
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await stores.close();
  });

  it('leaves its job running until the watchdog of another process fails it, which calls the hook', async () => {
    const { id } = await parent.store.enqueue(crashWork, { tag: 'first' });
    const started = startChild(stores.env);
    child = started.child;
    await eventually(() => started.lines.includes('running first'), 20_000);
    expect(started.child.kill('SIGKILL')).toBe(true);
    expect(await started.exited).toBe('SIGKILL');
    expect(await parent.store.get(id)).toMatchObject({ state: 'running', attempts: 1, progress: 0.1 });

    const ran: string[] = [];
    const failed: { job: JobSummary; reason: string }[] = [];
    const watchdog = new JobWorker({
      store: parent.store,
      clock: parent.clock,
      kinds: [crashWork],
      handlers: [handleJob(crashWork, async (payload) => void ran.push(payload.tag))],
      slots: 2,
      pollIntervalMs: 20,
      heartbeatTimeoutMs: 300,
      watchdogIntervalMs: 25,
      onFailed: (job, reason) => void failed.push({ job, reason }),
    });
    await watchdog.start();
    try {
      await eventually(() => failed.length === 1);
      expect(failed[0]).toEqual({
        job: { id, kind: 'crash-work', payloadVersion: 1, payload: { tag: 'first' }, attempts: 1 },
        reason: 'no heartbeat for 0.3 seconds',
      });
      expect(await parent.store.get(id)).toMatchObject({ state: 'failed', failureReason: 'no heartbeat for 0.3 seconds' });
      // The job was failed, not run again; new work still runs.
      const next = await parent.store.enqueue(crashWork, { tag: 'second' });
      await eventually(async () => (await parent.store.get(next.id))?.state === 'succeeded');
      expect(ran).toEqual(['second']);
      expect(failed).toHaveLength(1);
    } finally {
      await watchdog.stop();
    }
  });
});
