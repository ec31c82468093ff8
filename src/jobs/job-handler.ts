import type { ClaimedJob, JobKind } from '../ports/job-queue.js';

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

/** A kind bound to the function that runs it. */
export interface JobRegistration {
  kind: JobKind<any>;
  handler: JobHandler<any>;
  /** What the worker's log lines about a job of this kind add (the processing's id, say). */
  logFields?: (payload: any) => Record<string, unknown>;
}

export function handleJob<Payload>(
  kind: JobKind<Payload>,
  handler: JobHandler<Payload>,
  options: { logFields?: (payload: Payload) => Record<string, unknown> } = {},
): JobRegistration {
  return { kind, handler, ...options };
}

/** The job was failed by the watchdog, or released at stop, while its handler still ran. */
export class JobLostError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} is no longer held by this worker`);
  }
}

/** The payload in the shape the kind's current version expects; throws with a reason otherwise. */
export function currentPayload<Payload>(kind: JobKind<Payload>, job: ClaimedJob): Payload {
  if (job.payloadVersion === kind.version) return job.payload as Payload;
  if (job.payloadVersion < kind.version && kind.upgrade) return kind.upgrade(job.payload, job.payloadVersion);
  throw new Error(
    `payload version ${job.payloadVersion} of job kind ${kind.name} is not supported (this worker reads ${kind.version})`,
  );
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
