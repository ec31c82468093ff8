import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

/**
 * A worker process killed with SIGKILL mid-job: its job is neither lost nor run twice, its job
 * folder is removed by the next worker start on the machine (never while it lives), and its
 * registration stops counting towards capacity once it expires.
 */
describe('a worker that dies mid-job', () => {
  let stores: JobStores;
  let parent: JobProcess;
  let child: ChildProcess | undefined;
  const workRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-work-root-'));
  beforeAll(async () => {
    stores = jobStores();
    parent = await stores.open();
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await stores.close();
    fs.rmSync(workRoot, { recursive: true, force: true });
  });

  it('leaves its job running until the watchdog of another process fails it, which calls the hook', async () => {
    const { id } = await parent.store.enqueue(crashWork, { tag: 'first' });
    const started = startChild({ ...stores.env, RDP_TEST_WORK_ROOT: workRoot });
    child = started.child;
    const running = await eventually(() => started.lines.find((line) => line.startsWith('running first ')), 20_000);
    const jobFolder = running.slice('running first '.length);
    expect(path.relative(workRoot, jobFolder)).toMatch(/^rdp-worker-[0-9a-f-]{36}\/[0-9a-f-]{36}$/);
    expect(fs.readFileSync(path.join(jobFolder, 'input'), 'utf8')).toBe('half a processing');
    // A folder of a worker that is not in this deployment's registry (another deployment's, sharing the folder).
    const foreign = path.join(workRoot, `rdp-worker-${randomUUID()}`);
    fs.mkdirSync(foreign);

    // A worker starting while the child lives sweeps the folders, and leaves the child's alone.
    const bystander = new JobWorker({
      store: parent.store,
      clock: parent.clock,
      kinds: [crashWork],
      handlers: [handleJob(crashWork, async () => undefined)],
      slots: 2,
      pollIntervalMs: 60_000,
      heartbeatTimeoutMs: 60_000,
      workRoot,
    });
    await bystander.start();
    expect(fs.existsSync(jobFolder)).toBe(true);
    expect(await parent.store.capacity()).toEqual({ workers: 2, slots: 3, active: 1 });
    await bystander.stop();
    expect(await parent.store.capacity()).toEqual({ workers: 1, slots: 1, active: 1 });

    expect(started.child.kill('SIGKILL')).toBe(true);
    expect(await started.exited).toBe('SIGKILL');
    expect(await parent.store.get(id)).toMatchObject({ state: 'running', attempts: 1, progress: 0.1 });
    expect(fs.existsSync(jobFolder)).toBe(true);

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
      workRoot,
    });
    await watchdog.start();
    try {
      // Its start removed the dead child's folder (same machine, no such process), not the foreign one.
      expect(fs.existsSync(path.dirname(jobFolder))).toBe(false);
      expect(fs.existsSync(foreign)).toBe(true);
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

      // The dead child's registration counts until it expires (three of its 10 s refreshes).
      expect(await parent.store.capacity()).toMatchObject({ workers: 2, slots: 3 });
      parent.clock.advance(31_000);
      await eventually(async () => (await parent.store.capacity()).workers === 1);
      expect(await parent.store.capacity()).toEqual({ workers: 1, slots: 2, active: 0 });
    } finally {
      await watchdog.stop();
    }
  });
});
