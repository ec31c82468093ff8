import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Selectable } from 'kysely';
import type { Clock } from '../../ports/clock.js';
import type { ClaimedJob, EnqueueOptions, JobKind, JobRecord, JobStore, JobSummary } from '../../ports/job-queue.js';
import type { Store } from '../db/database.js';
import type { GlobalSchema, JobRow } from '../db/schema.js';

function summary(row: Selectable<JobRow>): JobSummary {
  return {
    id: row.id,
    kind: row.kind,
    payloadVersion: row.payload_version,
    payload: JSON.parse(row.payload),
    attempts: row.attempts,
  };
}

function record(row: Selectable<JobRow>): JobRecord {
  return {
    ...summary(row),
    state: row.state,
    progress: row.progress,
    heartbeatAt: row.heartbeat_at,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/**
 * The embedded queue: the `jobs` table of the global SQLite store. Every state change is one
 * statement conditioned on the state it expects (and the lease), so processes sharing the file
 * take turns on SQLite's write lock and never both win: a claim is an UPDATE of queued rows, the
 * watchdog an UPDATE of stale running rows, each RETURNING exactly the rows it changed.
 */
export class SqliteJobStore implements JobStore {
  private readonly enqueued = new EventEmitter();

  constructor(
    private readonly store: Store<GlobalSchema>,
    private readonly clock: Clock,
  ) {}

  private get db() {
    return this.store.db;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  async enqueue<Payload>(
    kind: JobKind<Payload>,
    payload: Payload,
    options: EnqueueOptions = {},
  ): Promise<{ id: string; created: boolean }> {
    const id = randomUUID();
    const singletonKey = options.singletonKey ?? null;
    const inserted = await this.db
      .insertInto('jobs')
      .values({
        id,
        kind: kind.name,
        payload: JSON.stringify(payload ?? null),
        payload_version: kind.version,
        singleton_key: singletonKey,
        state: 'queued',
        attempts: 0,
        created_at: this.now(),
      })
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) {
      this.enqueued.emit('job', kind.name);
      return { id, created: true };
    }
    // Only the singleton index can conflict (the id is fresh): the key's first job wins.
    const first = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', kind.name)
      .where('singleton_key', '=', singletonKey)
      .executeTakeFirstOrThrow();
    return { id: first.id, created: false };
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && record(row);
  }

  async countActive(): Promise<number> {
    const row = await this.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('state', 'in', ['queued', 'running'])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async claim(kinds: readonly string[], limit: number): Promise<ClaimedJob[]> {
    if (kinds.length === 0 || limit < 1) return [];
    const lease = randomUUID();
    const now = this.now();
    const oldest = this.db
      .selectFrom('jobs')
      .select('id')
      .where('state', '=', 'queued')
      .where('kind', 'in', [...kinds])
      .orderBy('created_at')
      .limit(limit);
    const rows = await this.db
      .updateTable('jobs')
      .set((eb) => ({
        state: 'running',
        attempts: eb('attempts', '+', 1),
        lease,
        heartbeat_at: now,
        started_at: now,
        progress: null,
      }))
      .where('id', 'in', oldest)
      .where('state', '=', 'queued')
      .returningAll()
      .execute();
    return rows.map((row) => ({ ...summary(row), lease }));
  }

  async heartbeat(job: ClaimedJob, progress?: number): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ heartbeat_at: this.now(), ...(progress === undefined ? {} : { progress }) })
      .where('id', '=', job.id)
      .where('lease', '=', job.lease)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  succeed(job: ClaimedJob): Promise<boolean> {
    return this.finish(job, { state: 'succeeded', failure_reason: null });
  }

  fail(job: ClaimedJob, reason: string): Promise<boolean> {
    return this.finish(job, { state: 'failed', failure_reason: reason });
  }

  async release(job: ClaimedJob): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ state: 'queued', lease: null, heartbeat_at: null, progress: null })
      .where('id', '=', job.id)
      .where('lease', '=', job.lease)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async failStale(kinds: readonly string[], cutoff: Date, reason: string): Promise<JobSummary[]> {
    if (kinds.length === 0) return [];
    const rows = await this.db
      .updateTable('jobs')
      .set({ state: 'failed', failure_reason: reason, finished_at: this.now(), lease: null })
      .where('state', '=', 'running')
      .where('kind', 'in', [...kinds])
      .where('heartbeat_at', '<', cutoff.toISOString())
      .returningAll()
      .execute();
    return rows.map(summary);
  }

  onEnqueued(listener: (kind: string) => void): () => void {
    this.enqueued.on('job', listener);
    return () => this.enqueued.off('job', listener);
  }

  /** The store belongs to the platform, which closes it. */
  async close(): Promise<void> {
    this.enqueued.removeAllListeners();
  }

  private async finish(job: ClaimedJob, outcome: Pick<JobRow, 'state' | 'failure_reason'>): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ ...outcome, finished_at: this.now(), lease: null })
      .where('id', '=', job.id)
      .where('lease', '=', job.lease)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
