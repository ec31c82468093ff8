import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { dropPostgresSchemas } from '../src/adapters/db/database.js';
import { loadConfig } from '../src/config/config.js';
import { handleJob } from '../src/jobs/job-handler.js';
import { JobWorker } from '../src/jobs/worker.js';
import { openPlatform, type Platform } from '../src/platform.js';
import { defineJob } from '../src/ports/job-queue.js';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';

/**
 * The durable queue's cost per job: enqueue, claim, run an empty handler with one heartbeat, and
 * record success, through the worker with its default 2 slots, against a baseline of the bare
 * writes any durable queue needs on the same store (insert, mark running, mark done: three
 * statements per job, no claiming logic). Also the wake-up: enqueue to handler start in the same
 * process with the default 500 ms poll interval, which the in-process wake-up should beat by far.
 * SQLite by default; PostgreSQL (pg-boss) with RDP_BENCH_DATABASE_URL.
 */
const JOBS = quick ? 300 : 2000;
const WAKEUPS = quick ? 10 : 30;
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

async function queueRun(platform: Platform): Promise<{ elapsed: number; wakeupMs: number }> {
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
    wakeups.sort((a, b) => a - b);
    return { elapsed, wakeupMs: wakeups[Math.floor(wakeups.length / 2)] as number };
  } finally {
    await worker.stop();
  }
}

export async function runJobs(): Promise<SummaryRow[]> {
  const databaseUrl = process.env.RDP_BENCH_DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-bench-jobs-'));
  const prefix = `b_${randomBytes(4).toString('hex')}`;
  const env = {
    RDP_DATA_DIR: dataDir,
    ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: prefix } : {}),
  };
  const store = databaseUrl ? 'PostgreSQL, pg-boss' : 'SQLite';
  log(`jobs: ${JOBS} jobs through the worker (2 slots) on ${store}, against the bare writes`);
  const platform = await openPlatform(loadConfig(env));
  try {
    const baseline = await bareWrites(platform);
    const { elapsed, wakeupMs } = await queueRun(platform);
    const perJob = elapsed / JOBS;
    log(`  bare writes: ${ms(baseline)} (${ms(baseline / JOBS)} a job)`);
    log(`  queue:       ${ms(elapsed)} (${ms(perJob)} a job, ${(1000 / perJob).toFixed(0)} jobs/s)`);
    log(`  wake-up, enqueue to handler start (median of ${WAKEUPS}): ${ms(wakeupMs)}`);
    return [
      {
        bench: 'jobs',
        measure: `queue time / bare writes (${store})`,
        ratio: times(elapsed / baseline),
        target: '< 3x',
        met: elapsed / baseline < 3,
      },
      { bench: 'jobs', measure: 'wake-up (poll 500 ms)', ratio: ms(wakeupMs), target: '< 50 ms', met: wakeupMs < 50 },
    ];
  } finally {
    await platform.close();
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, prefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runMain(import.meta.url, runJobs);
