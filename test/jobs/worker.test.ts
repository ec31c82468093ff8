import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { handleJob, type JobContext, type JobHandler } from '../../src/jobs/job-handler.js';
import { JobWorker, type JobWorkerOptions, workerSettings } from '../../src/jobs/worker.js';
import { defineJob, type JobSummary } from '../../src/ports/job-queue.js';
import { eventually, type JobProcess, type JobStores, jobStores } from './support/job-stores.js';
import { collectedLog } from './support/log-lines.js';

const work = defineJob<{ n: number; ms?: number; throw?: string }>('work', 1);

/** The worker against the real queue of the suite's store. */
describe('job worker', () => {
  let stores: JobStores;
  let a: JobProcess;
  let b: JobProcess;
  const workers: JobWorker[] = [];
  beforeAll(async () => {
    stores = jobStores();
    a = await stores.open();
    b = await stores.open();
  });
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
  });
  afterAll(() => stores.close());

  interface Outcomes {
    succeeded: JobSummary[];
    failed: { job: JobSummary; reason: string }[];
  }

  function worker(
    on: JobProcess,
    handler: JobHandler<{ n: number; ms?: number; throw?: string }>,
    options: Partial<JobWorkerOptions> = {},
  ): { worker: JobWorker; outcomes: Outcomes } {
    const outcomes: Outcomes = { succeeded: [], failed: [] };
    const created = new JobWorker({
      store: on.store,
      clock: on.clock,
      kinds: [work],
      handlers: [handleJob(work, handler)],
      slots: 2,
      pollIntervalMs: 20,
      heartbeatTimeoutMs: 60_000,
      stopGraceMs: 2000,
      onSucceeded: (job) => void outcomes.succeeded.push(job),
      onFailed: (job, reason) => void outcomes.failed.push({ job, reason }),
      ...options,
    });
    workers.push(created);
    return { worker: created, outcomes };
  }

  it('runs an enqueued job at once (in-process wake-up) and reports it succeeded', async () => {
    const seen: unknown[] = [];
    const { worker: w, outcomes } = worker(
      a,
      async (payload, context) => {
        await context.heartbeat(0.5);
        seen.push(payload);
      },
      { pollIntervalMs: 60_000 },
    );
    await w.start();
    const started = performance.now();
    const { id } = await a.store.enqueue(work, { n: 1 });
    await eventually(() => outcomes.succeeded.length === 1);
    expect(performance.now() - started).toBeLessThan(2000); // far below the 60 s poll
    expect(seen).toEqual([{ n: 1 }]);
    expect(outcomes.succeeded[0]).toMatchObject({ id, kind: 'work', payload: { n: 1 } });
    expect(await a.store.get(id)).toMatchObject({ state: 'succeeded', attempts: 1 });
  });

  it('fails a throwing job with the error message as its reason, never the stack', async () => {
    const { worker: w, outcomes } = worker(a, async (payload) => {
      if (payload.throw) throw new Error(payload.throw);
    });
    await w.start();
    const { id } = await a.store.enqueue(work, { n: 2, throw: 'the point cloud has no points' });
    await eventually(() => outcomes.failed.length === 1);
    expect(outcomes.failed[0]).toMatchObject({ job: { id }, reason: 'the point cloud has no points' });
    const job = await a.store.get(id);
    expect(job).toMatchObject({ state: 'failed', failureReason: 'the point cloud has no points' });
    expect(job?.failureReason).not.toMatch(/at .*\.ts/);
    expect(outcomes.succeeded).toEqual([]);
  });

  it('calls the failed job’s own kind with its payload and reason, after the worker’s hook, also for the watchdog', async () => {
    const calls: string[] = [];
    const handler = async (payload: { n: number; ms?: number; throw?: string }) => {
      if (payload.throw) throw new Error(payload.throw);
      await delay(payload.ms ?? 0);
    };
    const kind = handleJob(work, handler, {
      onFailed: (payload, reason) => void calls.push(`kind ${payload.n}: ${reason}`),
    });
    const { worker: w, outcomes } = worker(a, handler, {
      handlers: [kind],
      heartbeatTimeoutMs: 250,
      watchdogIntervalMs: 25,
      onFailed: (job, reason) => void calls.push(`worker ${(job.payload as { n: number }).n}: ${reason}`),
    });
    await w.start();
    await a.store.enqueue(work, { n: 21, throw: 'the input is empty' });
    await eventually(() => calls.length === 2);
    expect(calls).toEqual(['worker 21: the input is empty', 'kind 21: the input is empty']);
    await a.store.enqueue(work, { n: 22, ms: 600 });
    await eventually(() => calls.length === 4);
    expect(calls.slice(2)).toEqual(['worker 22: no heartbeat for 0.25 seconds', 'kind 22: no heartbeat for 0.25 seconds']);
    expect(outcomes.succeeded).toEqual([]);
  });

  it('logs each job’s start and outcome with its id, kind, attempt, duration and what its kind adds', async () => {
    const { log, lines } = collectedLog();
    const handler = async (payload: { throw?: string }) => {
      if (payload.throw) throw new Error(payload.throw);
    };
    const { worker: w, outcomes } = worker(a, handler, {
      handlers: [handleJob(work, handler, { logFields: (payload) => ({ n: payload.n }) })],
      log,
    });
    await w.start();
    const ok = await a.store.enqueue(work, { n: 11 });
    const bad = await a.store.enqueue(work, { n: 12, throw: 'the input is empty' });
    await eventually(() => outcomes.succeeded.length === 1 && outcomes.failed.length === 1);
    const about = (id: string) => lines.filter((line) => line.jobId === id);
    await eventually(() => about(ok.id).length === 2 && about(bad.id).length === 2);
    expect(about(ok.id)).toEqual([
      expect.objectContaining({ level: 30, msg: 'job started', kind: 'work', attempt: 1, n: 11 }),
      expect.objectContaining({
        level: 30,
        msg: 'job succeeded',
        kind: 'work',
        attempt: 1,
        n: 11,
        durationMs: expect.any(Number),
      }),
    ]);
    expect(about(bad.id)).toEqual([
      expect.objectContaining({ level: 30, msg: 'job started', kind: 'work', attempt: 1, n: 12 }),
      expect.objectContaining({
        level: 40,
        msg: 'job failed',
        kind: 'work',
        attempt: 1,
        n: 12,
        reason: 'the input is empty',
        durationMs: expect.any(Number),
      }),
    ]);
  });

  it('gives a job a folder of its own under the worker’s, removed when the job ends, and the worker’s at stop', async () => {
    const workRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-work-root-'));
    try {
      const folders: string[] = [];
      const { worker: w, outcomes } = worker(
        a,
        async (_payload, context) => {
          const folder = await context.workDir();
          fs.writeFileSync(path.join(folder, 'output'), 'bytes');
          folders.push(folder);
          expect(await context.workDir()).toBe(folder);
        },
        { workRoot },
      );
      await w.start();
      const { id } = await a.store.enqueue(work, { n: 13 });
      await eventually(() => outcomes.succeeded.length === 1);
      expect(folders).toEqual([expect.stringMatching(new RegExp(`/rdp-worker-[0-9a-f-]{36}/${id}$`))]);
      expect(fs.existsSync(folders[0] as string)).toBe(false);
      expect(fs.readdirSync(workRoot)).toEqual([path.basename(path.dirname(folders[0] as string))]);
      await w.stop();
      expect(fs.readdirSync(workRoot)).toEqual([]);
    } finally {
      fs.rmSync(workRoot, { recursive: true, force: true });
    }
  });

  it('fails a job whose handler stops heart-beating, calls the hook once and aborts the handler', async () => {
    let signal: AbortSignal | undefined;
    let lateHeartbeat: unknown;
    const { worker: w, outcomes } = worker(
      a,
      async (_payload, context: JobContext) => {
        signal = context.signal;
        await context.heartbeat();
        await delay(600); // stalls past the timeout, then carries on as if nothing happened
        lateHeartbeat = await context.heartbeat().catch((error: Error) => error.constructor.name);
      },
      { heartbeatTimeoutMs: 250, watchdogIntervalMs: 25, heartbeatWriteIntervalMs: 0 },
    );
    await w.start();
    const { id } = await a.store.enqueue(work, { n: 3 });
    await eventually(() => outcomes.failed.length === 1);
    expect(outcomes.failed[0]).toMatchObject({ job: { id }, reason: 'no heartbeat for 0.25 seconds' });
    expect(signal?.aborted).toBe(true);
    await eventually(() => lateHeartbeat !== undefined);
    expect(lateHeartbeat).toBe('JobLostError');
    await eventually(() => w.busy === 0);
    // The late handler's end neither completes the job nor reports it again.
    expect(await a.store.get(id)).toMatchObject({ state: 'failed', failureReason: 'no heartbeat for 0.25 seconds' });
    expect(outcomes.failed).toHaveLength(1);
    expect(outcomes.succeeded).toEqual([]);
  });

  it('keeps a job alive while it heart-beats, however long it runs', async () => {
    const { worker: w, outcomes } = worker(
      a,
      async (_payload, context) => {
        for (let i = 0; i < 12; i++) {
          await delay(50);
          await context.heartbeat(i / 12);
        }
      },
      { heartbeatTimeoutMs: 250, watchdogIntervalMs: 25 },
    );
    await w.start();
    const { id } = await a.store.enqueue(work, { n: 4 });
    await eventually(() => outcomes.succeeded.length === 1);
    expect(outcomes.failed).toEqual([]);
    expect((await a.store.get(id))?.state).toBe('succeeded');
  });

  it('on the platform clock: a job silent for longer than the timeout is failed at the next look, freeing its slot', async () => {
    // Job 5 hangs for good, ignoring its signal; the worker has one slot.
    const hang = (payload: { n: number }) => (payload.n === 5 ? new Promise<void>(() => {}) : Promise.resolve());
    const { worker: w, outcomes } = worker(a, hang, { heartbeatTimeoutMs: 120_000, stopGraceMs: 10, slots: 1 });
    await w.start();
    const { id } = await a.store.enqueue(work, { n: 5 });
    await eventually(() => w.busy === 1);
    // Process a's clock goes back at the end: two minutes ahead of b's, a's watchdog in the next
    // test failed b's fresh jobs as silent (about one run in six).
    onTestFinished(() => a.clock.advance(-121_000));
    a.clock.advance(119_000);
    expect(await w.checkHeartbeats()).toEqual([]);
    a.clock.advance(2000);
    expect((await w.checkHeartbeats()).map((job) => job.id)).toEqual([id]);
    expect(outcomes.failed).toEqual([{ job: expect.objectContaining({ id }), reason: 'no heartbeat for 120 seconds' }]);
    expect((await a.store.get(id))?.state).toBe('failed');
    // The hung handler no longer holds the only slot.
    expect(w.busy).toBe(0);
    const next = await a.store.enqueue(work, { n: 55 });
    await eventually(() => outcomes.succeeded.some((job) => job.id === next.id));
  });

  it('never runs one job in two workers, and runs every job', async () => {
    const runs = new Map<number, number>();
    let concurrent = 0;
    let most = 0;
    const handler = async (payload: { n: number }) => {
      runs.set(payload.n, (runs.get(payload.n) ?? 0) + 1);
      concurrent++;
      most = Math.max(most, concurrent);
      await delay(5);
      concurrent--;
    };
    const first = worker(a, handler, { slots: 3 });
    const second = worker(b, handler, { slots: 3 });
    const ids = [];
    for (let n = 0; n < 40; n++) ids.push((await a.store.enqueue(work, { n: 1000 + n })).id);
    await Promise.all([first.worker.start(), second.worker.start()]);
    await eventually(() => first.outcomes.succeeded.length + second.outcomes.succeeded.length === 40, 15_000);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(runs.size).toBe(40);
    expect(most).toBeLessThanOrEqual(6);
    expect(first.outcomes.succeeded.length).toBeGreaterThan(0);
    expect(second.outcomes.succeeded.length).toBeGreaterThan(0);
    for (const id of ids) expect((await b.store.get(id))?.state).toBe('succeeded');
  });

  it('stops gracefully: a job that ends in the grace period finishes, one that does not goes back to the queue', async () => {
    const { worker: quick, outcomes } = worker(
      a,
      async (payload, context) => {
        await delay(payload.ms ?? 0, undefined, { signal: context.signal });
      },
      { stopGraceMs: 300 },
    );
    await quick.start();
    const short = await a.store.enqueue(work, { n: 6, ms: 100 });
    const long = await a.store.enqueue(work, { n: 7, ms: 60_000 });
    await eventually(() => quick.busy === 2);
    await quick.stop();
    expect(outcomes.succeeded.map((job) => job.id)).toEqual([short.id]);
    expect(outcomes.failed).toEqual([]);
    expect(await a.store.get(long.id)).toMatchObject({ state: 'queued', attempts: 1 });

    // Another process picks it up and runs it to the end.
    const { worker: next, outcomes: nextOutcomes } = worker(b, async () => {});
    await next.start();
    await eventually(() => nextOutcomes.succeeded.length === 1);
    expect(await b.store.get(long.id)).toMatchObject({ state: 'succeeded', attempts: 2 });
  });

  it('runs a job enqueued while no worker ran, after a restart', async () => {
    const { id } = await a.store.enqueue(work, { n: 8 });
    await a.close();
    a = await stores.open();
    const { worker: w, outcomes } = worker(a, async () => {});
    await w.start();
    await eventually(() => outcomes.succeeded.length === 1);
    expect(outcomes.succeeded[0]?.id).toBe(id);
  });

  it('takes its settings from the configuration, which refuses values out of range', () => {
    expect(workerSettings(loadConfig({}))).toEqual({ slots: 2, pollIntervalMs: 500, heartbeatTimeoutMs: 120_000 });
    const config = loadConfig({
      RDP_PROCESSING_SLOTS: '4',
      RDP_JOB_HEARTBEAT_TIMEOUT_SECONDS: '30',
      RDP_JOB_POLL_INTERVAL_MS: '50',
    });
    expect(workerSettings(config)).toEqual({ slots: 4, pollIntervalMs: 50, heartbeatTimeoutMs: 30_000 });
    expect(() => loadConfig({ RDP_PROCESSING_SLOTS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ RDP_JOB_HEARTBEAT_TIMEOUT_SECONDS: 'soon' })).toThrow(/RDP_JOB_HEARTBEAT_TIMEOUT_SECONDS/);
    expect(() => loadConfig({ RDP_JOB_POLL_INTERVAL_MS: '1' })).toThrow(/RDP_JOB_POLL_INTERVAL_MS/);
  });

  it('refuses to start when a defined kind has no handler, and fails payloads of a version it cannot read', async () => {
    const orphan = defineJob('orphan', 1);
    const { worker: missing } = worker(a, async () => {}, { kinds: [work, orphan] });
    await expect(missing.start()).rejects.toThrow('no handler for job kind orphan');

    const newer = defineJob<{ n: number }>('work', 2);
    const { id } = await a.store.enqueue(newer, { n: 9 });
    const { worker: w, outcomes } = worker(a, async () => {});
    await w.start();
    await eventually(() => outcomes.failed.length === 1);
    expect(outcomes.failed[0]).toMatchObject({
      job: { id },
      reason: 'payload version 2 of job kind work is not supported (this worker reads 1)',
    });

    const upgraded: unknown[] = [];
    const current = defineJob<{ n: number; label: string }>('work', 2, (payload) => ({
      ...(payload as { n: number }),
      label: 'v1',
    }));
    const { worker: reader, outcomes: readerOutcomes } = worker(a, async () => {}, {
      kinds: [current],
      handlers: [handleJob(current, async (payload) => void upgraded.push(payload))],
    });
    await w.stop();
    await reader.start();
    await a.store.enqueue(work, { n: 10 });
    await eventually(() => readerOutcomes.succeeded.length === 1);
    expect(upgraded).toEqual([{ n: 10, label: 'v1' }]);
  });
});
