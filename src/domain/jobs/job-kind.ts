/**
 * A kind of job: its name and the version of its payload. A worker refuses a payload of a
 * version it does not read (unless `upgrade` brings an older one up to date), so a payload's
 * shape can change between releases while old jobs are still queued. A pure value: the API side
 * that enqueues and the worker that runs both import it (docs/jobs.md).
 */
export interface JobKind<Payload> {
  readonly name: string;
  readonly version: number;
  /** Turns a stored payload of an older version into the current shape. */
  readonly upgrade?: (payload: unknown, fromVersion: number) => Payload;
}

const JOB_KIND_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** The payload type of a job kind. */
export type JobPayload<Kind> = Kind extends JobKind<infer Payload> ? Payload : never;

export function defineJob<Payload>(name: string, version: number, upgrade?: JobKind<Payload>['upgrade']): JobKind<Payload> {
  if (!JOB_KIND_NAME.test(name)) throw new Error(`job kind "${name}" must be lower-case letters, digits and -`);
  if (!Number.isInteger(version) || version < 1) throw new Error(`job kind ${name}: version must be a positive integer`);
  return { name, version, upgrade };
}
