import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config/config.js';
import { handleJob } from '../src/jobs/job-handler.js';
import { JobWorker } from '../src/jobs/worker.js';
import { openPlatform, type Platform } from '../src/platform.js';
import { defineJob } from '../src/ports/job-queue.js';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';
import { median, medianRatio, pairedRounds } from './support/rounds.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';

/**
 * The durable queue's cost per job: enqueue, claim, run an empty handler with one heartbeat, and
 * record success, through the worker with its default 2 slots, against a baseline of the bare
 * writes any durable queue needs on the same store (insert, mark running, mark done: three
 * statements per job, no claiming logic). Also the wake-up: enqueue to handler start in the same
 * process with the default 500 ms poll interval, which the in-process wake-up should beat by far.
 * Rounds alternate the two; the ratio is the median of the rounds' ratios, the wake-up the median
 * of every round's. SQLite, and PostgreSQL (pg-boss) with RDP_BENCH_DATABASE_URL.
 */
const JOBS = quick ? 300 : 1000;
const WAKEUPS = quick ? 5 : 10;
const ROUNDS = quick ? 3 : 5;
const benchJob = defineJob<{ n: number }>('bench', 1);

async function bareWrites(platform: Platform): Promise<number> {
  const db = platform.stores.global.db;
  await db.schema
    .createTable('bench_jobs')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('state', 'text')
    .addColumn('at', 'text')
    .execute();
  const started = performance.now();
  // Two at a time, like the worker's two slots.
  const lane = async (offset: number) => {
    for (let i = offset; i < JOBS; i += 2) {
      const id = randomUUID();
      await db
        .insertInto('bench_jobs' as any)
        .values({ id, state: 'queued', at: new Date().toISOString() })
        .execute();
      await db
        .updateTable('bench_jobs' as any)
        .set({ state: 'running' })
        .where('id', '=', id)
        .execute();
      await db
        .updateTable('bench_jobs' as any)
        .set({ state: 'done' })
        .where('id', '=', id)
        .execute();
    }
  };
  await Promise.all([lane(0), lane(1)]);
  const elapsed = performance.now() - started;
  await db.schema.dropTable('bench_jobs').execute();
  return elapsed;
}

async function queueRun(platform: Platform): Promise<{ elapsed: number; wakeups: number[] }> {
  let done = 0;
  let allDone!: () => void;
  let started: (() => void) | undefined;
  const worker = new JobWorker({
    store: platform.jobs,
    clock: platform.clock,
    kinds: [benchJob],
    handlers: [
      handleJob(benchJob, async (_payload, context) => {
        started?.();
        await context.heartbeat();
      }),
    ],
    slots: 2,
    pollIntervalMs: 500,
    heartbeatTimeoutMs: 120_000,
    onSucceeded: () => {
      if (++done === JOBS) allDone();
    },
  });
  await worker.start();
  try {
    const finished = new Promise<void>((resolve) => {
      allDone = resolve;
    });
    const begin = performance.now();
    for (let n = 0; n < JOBS; n++) await platform.jobs.enqueue(benchJob, { n });
    await finished;
    const elapsed = performance.now() - begin;

    const wakeups: number[] = [];
    for (let i = 0; i < WAKEUPS; i++) {
      const handlerStarted = new Promise<void>((resolve) => {
        started = resolve;
      });
      const at = performance.now();
      await platform.jobs.enqueue(benchJob, { n: -i });
      await handlerStarted;
      wakeups.push(performance.now() - at);
      started = undefined;
    }
    return { elapsed, wakeups };
  } finally {
    await worker.stop();
  }
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const kind = store.databaseUrl ? 'PostgreSQL, pg-boss' : 'SQLite';
  const platform = await openPlatform(loadConfig({ ...store.env, RDP_LOG_LEVEL: 'silent' }));
  try {
    const wakeups: number[] = [];
    const measured = await pairedRounds(
      ROUNDS,
      () => bareWrites(platform),
      async () => {
        const run = await queueRun(platform);
        wakeups.push(...run.wakeups);
        return run.elapsed;
      },
      (round, bare, queue) =>
        log(
          `  ${kind} round ${round}: bare writes ${ms(bare)} (${ms(bare / JOBS)} a job), ` +
            `queue ${ms(queue)} (${ms(queue / JOBS)} a job, ${((1000 * JOBS) / queue).toFixed(0)} jobs/s)`,
        ),
    );
    const ratio = medianRatio(measured, (elapsed) => elapsed);
    const wakeupMs = median(wakeups);
    log(`  ${kind}: queue / bare writes ${times(ratio)}, median of ${ROUNDS} rounds (target < 3x)`);
    log(`  ${kind}: wake-up, enqueue to handler start (median of ${wakeups.length}): ${ms(wakeupMs)}`);
    return [
      {
        bench: 'jobs',
        measure: `queue time / bare writes (${kind})`,
        ratio: times(ratio),
        target: '< 3x',
        met: ratio < 3,
      },
      {
        bench: 'jobs',
        measure: `wake-up (poll 500 ms), ${kind}`,
        ratio: ms(wakeupMs),
        target: '< 50 ms',
        met: wakeupMs < 50,
      },
    ];
  } finally {
    await platform.close();
  }
}

export async function runJobs(): Promise<SummaryRow[]> {
  log(`# jobs: ${JOBS} jobs through the worker (2 slots) against the bare writes, median of ${ROUNDS} rounds`);
  return onEachStore('jobs', onStore);
}

runMain(import.meta.url, runJobs);
