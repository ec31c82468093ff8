import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Clock } from '../../ports/clock.js';
import {
  CapacityExceededError,
  type ClaimedJob,
  type EnqueueOptions,
  type JobKind,
  type JobRecord,
  type JobStore,
  type JobSummary,
  type QueueCapacity,
  type RegisteredWorker,
  type WorkerRegistration,
} from '../../ports/job-queue.js';
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
    if (options.withinCapacity) return this.enqueueWithinCapacity(kind, payload, options.singletonKey ?? null);
    const singletonKey = options.singletonKey ?? null;
    const row = this.newRow(kind, payload, singletonKey);
    const { id } = row;
    const inserted = await this.db
      .insertInto('jobs')
      .values(row)
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

  private newRow<Payload>(kind: JobKind<Payload>, payload: Payload, singletonKey: string | null) {
    return {
      id: randomUUID(),
      kind: kind.name,
      payload: JSON.stringify(payload ?? null),
      payload_version: kind.version,
      singleton_key: singletonKey,
      state: 'queued' as const,
      attempts: 0,
      created_at: this.now(),
    };
  }

  /**
   * The capacity check and the insert in one immediate transaction: it holds SQLite's write lock
   * from its first statement, so of several processes enqueueing at once each counts what the
   * ones before it inserted.
   */
  private async enqueueWithinCapacity<Payload>(
    kind: JobKind<Payload>,
    payload: Payload,
    singletonKey: string | null,
  ): Promise<{ id: string; created: boolean }> {
    const result = await this.db.connection().execute(async (connection) => {
      await sql`begin immediate`.execute(connection);
      try {
        const first =
          singletonKey === null
            ? undefined
            : await connection
                .selectFrom('jobs')
                .select('id')
                .where('kind', '=', kind.name)
                .where('singleton_key', '=', singletonKey)
                .executeTakeFirst();
        if (first) {
          await sql`commit`.execute(connection);
          return { id: first.id, created: false };
        }
        const { slots, active } = await this.capacityOn(connection);
        if (active >= slots) throw new CapacityExceededError(slots, active);
        const row = this.newRow(kind, payload, singletonKey);
        await connection.insertInto('jobs').values(row).execute();
        await sql`commit`.execute(connection);
        return { id: row.id, created: true };
      } catch (error) {
        await sql`rollback`.execute(connection);
        throw error;
      }
    });
    if (result.created) this.enqueued.emit('job', kind.name);
    return result;
  }

  capacity(): Promise<QueueCapacity> {
    return this.capacityOn(this.db);
  }

  private async capacityOn(db: Kysely<GlobalSchema>): Promise<QueueCapacity> {
    const workers = await db
      .selectFrom('job_workers')
      .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum<number | null>('slots').as('slots')])
      .where('expires_at', '>', this.now())
      .executeTakeFirstOrThrow();
    return { workers: Number(workers.n), slots: Number(workers.slots ?? 0), active: await this.countActiveOn(db) };
  }

  async registerWorker(worker: WorkerRegistration): Promise<void> {
    const now = this.clock.now();
    const times = { heartbeat_at: now.toISOString(), expires_at: new Date(now.getTime() + worker.aliveForMs).toISOString() };
    await this.db
      .insertInto('job_workers')
      .values({
        id: worker.id,
        slots: worker.slots,
        host: worker.host,
        pid: worker.pid,
        started_at: worker.startedAt,
        ...times,
      })
      .onConflict((conflict) => conflict.column('id').doUpdateSet({ slots: worker.slots, ...times }))
      .execute();
  }

  async unregisterWorker(id: string): Promise<void> {
    await this.db.deleteFrom('job_workers').where('id', '=', id).execute();
  }

  async listWorkers(): Promise<RegisteredWorker[]> {
    const rows = await this.db.selectFrom('job_workers').selectAll().orderBy('started_at').execute();
    return rows.map((row) => ({
      id: row.id,
      slots: row.slots,
      host: row.host,
      pid: row.pid,
      startedAt: row.started_at,
      heartbeatAt: row.heartbeat_at,
      expiresAt: row.expires_at,
    }));
  }

  async pruneWorkers(cutoff: Date): Promise<void> {
    await this.db.deleteFrom('job_workers').where('expires_at', '<', cutoff.toISOString()).execute();
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && record(row);
  }

  private async countActiveOn(db: Kysely<GlobalSchema>): Promise<number> {
    const row = await db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('state', 'in', ['queued', 'running'])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countByState(): Promise<{ queued: number; running: number }> {
    const rows = await this.db
      .selectFrom('jobs')
      .select((eb) => ['state', eb.fn.countAll().as('n')])
      .where('state', 'in', ['queued', 'running'])
      .groupBy('state')
      .execute();
    const count = (state: string) => Number(rows.find((row) => row.state === state)?.n ?? 0);
    return { queued: count('queued'), running: count('running') };
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
