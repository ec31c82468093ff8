/**
 * The durable job queue: the API side enqueues, the worker claims, runs and finishes. Two
 * adapters: a table in the embedded global store (SQLite), and pg-boss on PostgreSQL.
 */

import type { JobKind } from '../domain/jobs/job-kind.js';

// The kinds are pure values (domain/jobs): re-exported for the queue's users.
export { defineJob, type JobKind, type JobPayload } from '../domain/jobs/job-kind.js';

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed';

/** What a hook needs to find the work a job was about. */
export interface JobSummary {
  id: string;
  kind: string;
  payloadVersion: number;
  payload: unknown;
  /** How many times the job has been claimed, this run included. */
  attempts: number;
}

export interface JobRecord extends JobSummary {
  state: JobState;
  /** The handler's last reported progress (0..1) while it runs; null when it reported none. */
  progress: number | null;
  heartbeatAt: string | null;
  /** Why a failed job failed: the handler's error message or the watchdog's "no heartbeat for N seconds". */
  failureReason: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface EnqueueOptions {
  /**
   * Idempotency key, scoped to the job kind: an enqueue with a key already used returns the
   * first job (`created: false`) instead of making a second, also when both race.
   */
  singletonKey?: string;
  /**
   * Store the job only while the queued and running jobs are fewer than the slots of the workers
   * alive (the deployment's capacity), checked atomically with the insert: otherwise throws
   * CapacityExceededError. A repeat of a keyed job is answered as usual, never refused.
   */
  withinCapacity?: boolean;
}

/** An enqueue `withinCapacity` found every slot of the workers alive taken (`slots` 0: no worker alive). */
export class CapacityExceededError extends Error {
  constructor(
    readonly slots: number,
    readonly active: number,
  ) {
    super(slots === 0 ? 'no worker is running' : `all ${slots} worker slots are taken (${active} jobs queued or running)`);
  }
}

/** The deployment's capacity as the queue sees it now. */
export interface QueueCapacity {
  /** Workers whose registration is alive, and the sum of their slots. */
  workers: number;
  slots: number;
  /** Queued and running jobs of every kind. */
  active: number;
}

/** A running worker as it registers itself (JobStore.registerWorker). */
export interface WorkerRegistration {
  id: string;
  /** Jobs it runs at once; 0 while it drains at stop. */
  slots: number;
  host: string;
  pid: number;
  startedAt: string;
  /** The registration counts as alive this long after each refresh. */
  aliveForMs: number;
}

export interface RegisteredWorker extends Omit<WorkerRegistration, 'aliveForMs'> {
  heartbeatAt: string;
  /** Alive until then, unless refreshed. */
  expiresAt: string;
}

/** What the API side uses. */
export interface JobQueue {
  /** The job is durable once this resolves: it survives a restart of every process. */
  enqueue<Payload>(kind: JobKind<Payload>, payload: Payload, options?: EnqueueOptions): Promise<{ id: string; created: boolean }>;
  /** Undefined for an unknown id (also a malformed one). */
  get(id: string): Promise<JobRecord | undefined>;
  /** The alive workers' slots and the active jobs (enqueue's `withinCapacity` checks the same, atomically). */
  capacity(): Promise<QueueCapacity>;
  /** Queued and running jobs of every kind, apart: what the metrics report and readiness queries. */
  countByState(): Promise<{ queued: number; running: number }>;
  /** The connections of the queue's own pool, where it has one (pg-boss): for the metrics. */
  poolUse?(): PoolUse;
  close(): Promise<void>;
}

/** A connection pool's use: open connections, idle ones, and callers waiting for one. */
export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

/** A job a worker holds: `lease` proves it still does (a re-claim or the watchdog revokes it). */
export interface ClaimedJob extends JobSummary {
  lease: string;
}

/**
 * What the worker uses. Every state change names the lease it acts under and reports whether it
 * still held it: a job failed by the watchdog is never also completed by a late handler.
 */
export interface JobStore extends JobQueue {
  /** Marks up to `limit` queued jobs of these kinds running under a new lease; atomic across processes. */
  claim(kinds: readonly string[], limit: number): Promise<ClaimedJob[]>;
  /** Records a heartbeat (and progress); false when the lease is lost. */
  heartbeat(job: ClaimedJob, progress?: number): Promise<boolean>;
  succeed(job: ClaimedJob): Promise<boolean>;
  fail(job: ClaimedJob, reason: string): Promise<boolean>;
  /** Puts a running job back in the queue, for another process to run (graceful stop). */
  release(job: ClaimedJob): Promise<boolean>;
  /**
   * Fails every running job of these kinds whose last heartbeat is older than `cutoff`, with
   * `reason`, and returns them. Of several watchdogs racing, exactly one fails (and returns) each.
   */
  failStale(kinds: readonly string[], cutoff: Date, reason: string): Promise<JobSummary[]>;
  /** Inserts or refreshes a worker's registration: its slots count towards capacity until it expires. */
  registerWorker(worker: WorkerRegistration): Promise<void>;
  unregisterWorker(id: string): Promise<void>;
  /** Every registration, alive or expired (not yet pruned). */
  listWorkers(): Promise<RegisteredWorker[]>;
  /** Removes registrations that expired before `cutoff`. */
  pruneWorkers(cutoff: Date): Promise<void>;
  /** Calls `listener` after this process enqueued a new job: the worker's wake-up. Returns the unsubscribe. */
  onEnqueued(listener: (kind: string) => void): () => void;
}

/** Where a worker reports each job's end (the metrics: http/plugins/metrics.ts). */
export interface JobOutcomes {
  jobFinished(kind: string, outcome: 'succeeded' | 'failed'): void;
}
