import type { JobKind, JobSummary } from '../ports/job-queue.js';

/** What a running handler gets besides its payload. */
export interface JobContext {
  /** The job's id: what its progress is read by (JobQueue.get). */
  jobId: string;
  /**
   * Reports that the job is making progress (and how far, 0..1). A job whose handler stops
   * calling this is failed by the watchdog after the heartbeat timeout. Calls are cheap: writes
   * are spaced out. Throws JobLostError once the job is no longer this worker's.
   */
  heartbeat(progress?: number): Promise<void>;
  /** Aborted when the job is lost (failed by the watchdog) or the worker stops before it finishes. */
  signal: AbortSignal;
  /**
   * A folder of this job's own on local disk, made on first call. The worker removes it when the
   * handler ends; a worker killed mid-job leaves it, and a later worker start on the machine removes it.
   */
  workDir(): Promise<string>;
}

export type JobHandler<Payload> = (payload: Payload, context: JobContext) => Promise<void>;

/**
 * A job kind as the worker runs it: its definition (domain/processing/jobs.ts), the handler, and
 * what a failure of one of its jobs does. Declared beside its handler (process-bundle.ts,
 * preview-library-model.ts); the worker takes a table of them (start-worker.ts).
 */
export interface JobRegistration<Payload = any> {
  kind: JobKind<Payload>;
  handler: JobHandler<Payload>;
  /**
   * Called once per failed job of this kind, after the failure is recorded: its handler threw, or
   * a watchdog (of any process) failed it. Where the kind's own record is set failed.
   */
  onFailed?: (payload: Payload, reason: string) => Promise<void> | void;
  /** What the worker's log lines about a job of this kind add (the processing's id, say). */
  logFields?: (payload: Payload) => Record<string, unknown>;
}

export function handleJob<Payload>(
  kind: JobKind<Payload>,
  handler: JobHandler<Payload>,
  options: Pick<JobRegistration<Payload>, 'onFailed' | 'logFields'> = {},
): JobRegistration<Payload> {
  return { kind, handler, ...options };
}

/** What a job handler logs an internal error through (the worker's log). */
export interface JobErrorLog {
  error(object: object, message: string): void;
}

/** The job was failed by the watchdog, or released at stop, while its handler still ran. */
export class JobLostError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} is no longer held by this worker`);
  }
}

/** The payload in the shape the kind's current version expects; throws with a reason otherwise. */
export function currentPayload<Payload>(kind: JobKind<Payload>, job: JobSummary): Payload {
  if (job.payloadVersion === kind.version) return job.payload as Payload;
  if (job.payloadVersion < kind.version && kind.upgrade) return kind.upgrade(job.payload, job.payloadVersion);
  throw new Error(
    `payload version ${job.payloadVersion} of job kind ${kind.name} is not supported (this worker reads ${kind.version})`,
  );
}

/** A failed job's payload for its kind's failure handling: brought up to date when it can be, else as stored. */
export function failedPayload<Payload>(kind: JobKind<Payload>, job: JobSummary): Payload {
  try {
    return currentPayload(kind, job);
  } catch {
    return job.payload as Payload;
  }
}

const MAX_REASON_LENGTH = 1000;

/** A failure's reason as stored and shown: the error's message, never its stack. */
export function failureReason(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).trim();
  const reason = message === '' ? 'the job failed without a message' : message;
  return reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH - 1)}…` : reason;
}

export function heartbeatReason(timeoutMs: number): string {
  return `no heartbeat for ${Number((timeoutMs / 1000).toFixed(3))} seconds`;
}
