import os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { Config } from '../config/config.js';
import type { Clock } from '../ports/clock.js';
import type { ClaimedJob, JobKind, JobStore, JobSummary } from '../ports/job-queue.js';
import {
  currentPayload,
  failedPayload,
  failureReason,
  heartbeatReason,
  type JobContext,
  JobLostError,
  type JobRegistration,
} from './job-handler.js';
import { WorkerPresence } from './worker-presence.js';

/** What the worker logs through: pino's logger (Fastify's app.log) fits. */
export interface JobWorkerLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface JobWorkerOptions {
  store: JobStore;
  clock: Clock;
  /** Every kind the platform defines (JOB_KINDS): start() fails when one has no handler. */
  kinds: readonly JobKind<any>[];
  /** The kinds this worker runs, each with its handler and its failure handling. */
  handlers: readonly JobRegistration[];
  /** How many jobs this process runs at once. */
  slots: number;
  /** How often the store is asked for queued jobs; an enqueue in this process wakes the worker at once. */
  pollIntervalMs: number;
  /** A running job whose last heartbeat is older than this is failed by the watchdog. */
  heartbeatTimeoutMs: number;
  /** How often the watchdog looks; default a quarter of the timeout, at most 30 s. */
  watchdogIntervalMs?: number;
  /** Shortest spacing of one job's heartbeat writes; default a tenth of the timeout, at most 5 s. */
  heartbeatWriteIntervalMs?: number;
  /** How long stop() lets running jobs finish before it releases them to the queue; default 10 s. */
  stopGraceMs?: number;
  /**
   * How often the worker refreshes its registration (its slots are the deployment's capacity
   * while it is alive: three of these); default a quarter of the heartbeat timeout, at most 10 s.
   */
  registrationIntervalMs?: number;
  /** Where job folders are made (JobContext.workDir); default os.tmpdir(). */
  workRoot?: string;
  /** Called once after a job succeeded (not when it was lost meanwhile). */
  onSucceeded?: (job: JobSummary) => Promise<void> | void;
  /**
   * Called exactly once per failed job: its handler threw, or the watchdog (of any process) failed
   * it. Then the kind's own onFailed (JobRegistration) is called.
   */
  onFailed?: (job: JobSummary, reason: string) => Promise<void> | void;
  log?: JobWorkerLog;
}

/** The worker's timings from the configuration (RDP_PROCESSING_SLOTS, RDP_JOB_*). */
export function workerSettings(config: Config): Pick<JobWorkerOptions, 'slots' | 'pollIntervalMs' | 'heartbeatTimeoutMs'> {
  return {
    slots: config.jobs.slots,
    pollIntervalMs: config.jobs.pollIntervalMs,
    heartbeatTimeoutMs: config.jobs.heartbeatTimeoutSeconds * 1000,
  };
}

/**
 * Records an outcome through a store that may refuse for a moment (a busy SQLite file, a
 * dropped connection): a few tries with growing pauses, so that a finished job is not left
 * running until the watchdog fails it. The store's calls act under the job's lease, so a
 * repeat never records twice.
 */
async function persistently<T>(record: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await record();
    } catch (error) {
      if (attempt >= 4) throw error;
      await delay(50 * 2 ** attempt);
    }
  }
}

interface Running {
  job: ClaimedJob;
  controller: AbortController;
  /** The job is no longer ours (watchdog or release): whatever the handler does next is ignored. */
  lost: boolean;
  done: Promise<void>;
}

/**
 * Runs jobs from a JobStore: claims up to `slots` at a time, runs each handler with a heartbeat,
 * records the outcome under the job's lease, and runs a watchdog that fails the running jobs (of
 * this process or of a dead one) whose heartbeat stopped. Handlers run in this process; a slow
 * handler must await now and then so that the event loop serves the rest.
 */
export class JobWorker {
  private readonly handlers = new Map<string, JobRegistration>();
  private readonly kinds: string[];
  private readonly running = new Map<string, Running>();
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | undefined;
  private filling: Promise<void> | undefined;
  private refill = false;
  private watching: Promise<unknown> | undefined;
  private stopping = false;
  private presence: WorkerPresence | undefined;

  constructor(private readonly options: JobWorkerOptions) {
    for (const registration of options.handlers) {
      if (this.handlers.has(registration.kind.name)) throw new Error(`two handlers for job kind ${registration.kind.name}`);
      this.handlers.set(registration.kind.name, registration);
    }
    this.kinds = [...this.handlers.keys()];
  }

  /** How many jobs run in this process now. */
  get busy(): number {
    return this.running.size;
  }

  async start(): Promise<void> {
    if (this.timers.length > 0) throw new Error('the worker is running already');
    const { kinds, slots, pollIntervalMs, heartbeatTimeoutMs } = this.options;
    for (const kind of kinds) if (!this.handlers.has(kind.name)) throw new Error(`no handler for job kind ${kind.name}`);
    for (const name of this.kinds) {
      if (!kinds.some((kind) => kind.name === name)) throw new Error(`a handler for job kind ${name}, which is not defined`);
    }
    if (!Number.isInteger(slots) || slots < 1) throw new Error('the worker needs at least one slot');
    if (!(pollIntervalMs > 0 && heartbeatTimeoutMs > 0)) throw new Error('poll interval and heartbeat timeout must be positive');
    this.stopping = false;
    const presence = new WorkerPresence({
      store: this.options.store,
      clock: this.options.clock,
      slots,
      intervalMs: this.options.registrationIntervalMs ?? Math.min(heartbeatTimeoutMs / 4, 10_000),
      deadAfterMs: heartbeatTimeoutMs,
      root: this.options.workRoot ?? os.tmpdir(),
      log: this.options.log,
    });
    await presence.start();
    this.presence = presence;
    this.unsubscribe = this.options.store.onEnqueued((kind) => {
      if (this.handlers.has(kind)) void this.fill();
    });
    const watchdogMs = this.options.watchdogIntervalMs ?? Math.min(heartbeatTimeoutMs / 4, 30_000);
    this.timers = [setInterval(() => void this.fill(), pollIntervalMs), setInterval(() => void this.watch(), watchdogMs)];
    // Jobs of a process that died while this one was down are failed before new work starts.
    await this.watch();
    await this.fill();
    // Then the job folders that dead workers left on this machine go.
    await presence.sweep().catch((err) => this.logError(err, 'removing the job folders of dead workers failed'));
  }

  /**
   * Stops claiming, lets running jobs finish for the grace period, then aborts and releases the
   * rest to the queue (another process, or this one started again, runs them).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.unsubscribe?.();
    // Its slots stop counting at once; the registration stays (and keeps the folder) while jobs finish.
    await this.presence?.drain().catch((err) => this.logError(err, 'draining the worker registration failed'));
    await this.filling;
    await this.watching;
    await this.finishOrRelease();
    const presence = this.presence;
    this.presence = undefined;
    await presence?.stop(this.running.size === 0).catch((err) => this.logError(err, 'removing the worker registration failed'));
  }

  private async finishOrRelease(): Promise<void> {
    const settled = Promise.all([...this.running.values()].map((entry) => entry.done));
    const grace = delay(this.options.stopGraceMs ?? 10_000, 'grace over', { ref: false });
    if ((await Promise.race([settled.then(() => 'settled'), grace])) === 'settled') return;
    for (const entry of this.running.values()) {
      if (entry.lost) continue; // failed by the watchdog already
      entry.lost = true;
      entry.controller.abort(new JobLostError(entry.job.id));
      this.options.log?.warn(this.jobFields(entry.job), 'job released to the queue at stop');
      await this.options.store.release(entry.job).catch((err) => this.logError(err, 'releasing a job at stop failed'));
    }
    // Handlers that heed their signal end now; one that does not is left to the process's exit.
    await Promise.race([settled, delay(Math.min(this.options.stopGraceMs ?? 1000, 1000), undefined, { ref: false })]);
  }

  /** One watchdog pass: fails the running jobs whose heartbeat is older than the timeout. */
  async checkHeartbeats(): Promise<JobSummary[]> {
    const { heartbeatTimeoutMs, clock, store } = this.options;
    const cutoff = new Date(clock.now().getTime() - heartbeatTimeoutMs);
    const reason = heartbeatReason(heartbeatTimeoutMs);
    const failed = await store.failStale(this.kinds, cutoff, reason);
    for (const job of failed) {
      const entry = this.running.get(job.id);
      if (entry) {
        // Its slot is free again: a handler hung for good must not take the worker's capacity with it.
        this.running.delete(job.id);
        entry.lost = true;
        entry.controller.abort(new JobLostError(job.id));
        if (!this.stopping) void this.fill();
      }
      this.options.log?.error({ ...this.jobFields(job), reason }, 'job failed by the watchdog');
      await this.failed(job, reason);
    }
    return failed;
  }

  private async watch(): Promise<void> {
    if (this.watching) return;
    this.watching = this.checkHeartbeats().catch((err) => this.logError(err, 'the job watchdog failed'));
    await this.watching;
    this.watching = undefined;
  }

  /** Claims jobs until the slots are full or the queue is empty; one pass at a time, repeated when asked meanwhile. */
  private fill(): Promise<void> {
    if (this.filling) {
      this.refill = true;
      return this.filling;
    }
    this.filling = (async () => {
      const { store, slots } = this.options;
      do {
        this.refill = false;
        while (!this.stopping && this.running.size < slots) {
          const wanted = slots - this.running.size;
          const jobs = await store.claim(this.kinds, wanted);
          for (const job of jobs) {
            if (this.stopping) await store.release(job);
            else this.run(job);
          }
          if (jobs.length < wanted) break;
        }
      } while (this.refill && !this.stopping);
    })()
      .catch((err) => this.logError(err, 'claiming jobs failed'))
      .finally(() => {
        this.filling = undefined;
      });
    return this.filling;
  }

  private run(job: ClaimedJob): void {
    const entry: Running = { job, controller: new AbortController(), lost: false, done: Promise.resolve() };
    this.running.set(job.id, entry);
    entry.done = this.execute(entry).finally(() => {
      if (this.running.get(job.id) === entry) this.running.delete(job.id);
      if (!this.stopping) void this.fill();
    });
  }

  private async execute(entry: Running): Promise<void> {
    const { job } = entry;
    const { store, log } = this.options;
    const registration = this.handlers.get(job.kind) as JobRegistration;
    const fields = this.jobFields(job);
    log?.info(fields, 'job started');
    const started = performance.now();
    let failure: string | undefined;
    try {
      await registration.handler(currentPayload(registration.kind, job), this.context(entry));
    } catch (error) {
      failure = failureReason(error);
    }
    const durationMs = Math.round(performance.now() - started);
    await this.presence?.removeJobFolder(job.id).catch((err) => this.logError(err, 'removing a job folder failed'));
    if (entry.lost) {
      log?.warn({ ...fields, durationMs }, 'job ended after it was lost (failed by the watchdog or released)');
      return;
    }
    try {
      if (failure === undefined) {
        if (await persistently(() => store.succeed(job))) {
          log?.info({ ...fields, durationMs }, 'job succeeded');
          await this.hook(() => this.options.onSucceeded?.(job));
        }
      } else if (await persistently(() => store.fail(job, failure))) {
        log?.warn({ ...fields, durationMs, reason: failure }, 'job failed');
        await this.failed(job, failure);
      }
    } catch (err) {
      // The job stays running without heartbeats: the watchdog fails it later.
      this.logError(err, 'recording a job outcome failed');
    }
  }

  private context(entry: Running): JobContext {
    const { store, heartbeatTimeoutMs } = this.options;
    const spacing = this.options.heartbeatWriteIntervalMs ?? Math.min(heartbeatTimeoutMs / 10, 5000);
    let lastWrite = Number.NEGATIVE_INFINITY;
    const presence = this.presence as WorkerPresence;
    return {
      jobId: entry.job.id,
      signal: entry.controller.signal,
      workDir: () => presence.jobFolder(entry.job.id),
      heartbeat: async (progress?: number) => {
        if (entry.lost) throw new JobLostError(entry.job.id);
        if (progress !== undefined && !(progress >= 0 && progress <= 1)) throw new Error('progress must be from 0 to 1');
        if (performance.now() - lastWrite < spacing) return;
        lastWrite = performance.now();
        if (await store.heartbeat(entry.job, progress)) return;
        entry.lost = true;
        entry.controller.abort(new JobLostError(entry.job.id));
        throw new JobLostError(entry.job.id);
      },
    };
  }

  /** A failed job's hooks: the worker's, then its kind's (each logged apart when it throws). */
  private async failed(job: JobSummary, reason: string): Promise<void> {
    await this.hook(() => this.options.onFailed?.(job, reason));
    const registration = this.handlers.get(job.kind);
    const onFailed = registration?.onFailed;
    if (registration && onFailed) await this.hook(() => onFailed(failedPayload(registration.kind, job), reason));
  }

  private async hook(call: () => Promise<void> | void): Promise<void> {
    try {
      await call();
    } catch (err) {
      this.logError(err, 'a job hook failed');
    }
  }

  /** What every log line about a job carries: its id, kind, attempt, and what its kind adds. */
  private jobFields(job: JobSummary): Record<string, unknown> {
    const fields = { jobId: job.id, kind: job.kind, attempt: job.attempts };
    try {
      return { ...this.handlers.get(job.kind)?.logFields?.(job.payload), ...fields };
    } catch {
      return fields;
    }
  }

  private logError(err: unknown, message: string): void {
    this.options.log?.error({ err }, message);
  }
}
