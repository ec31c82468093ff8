import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import PgBoss from 'pg-boss';
import type { Clock } from '../../ports/clock.js';
import {
  CapacityExceededError,
  type ClaimedJob,
  type EnqueueOptions,
  type JobKind,
  type JobRecord,
  type JobState,
  type JobStore,
  type JobSummary,
  type PoolUse,
  type QueueCapacity,
  type RegisteredWorker,
  type WorkerRegistration,
} from '../../ports/job-queue.js';
import { connectWithRetry, isConnectionLost, openPool } from '../db/postgres-pool.js';

/**
 * pg-boss fails a job active longer than its expiry on its own (without our hook); its ceiling is
 * under 24 hours. The watchdog, driven by heartbeats, is what fails a stalled job long before.
 */
const EXPIRE_IN_SECONDS = 23 * 3600;
/** How long a queued job waits before pg-boss archives it unrun. */
const RETENTION_MINUTES = 30 * 24 * 60;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A fixed namespace for the name-based (version 5) ids of keyed jobs. */
const SINGLETON_NAMESPACE = Buffer.from('6f1c2b8e4d7a4c1f9e3b5a0d8c7e6f21', 'hex');

/** pg-boss's data of a job: our payload in a versioned envelope. */
interface Envelope {
  version: number;
  payload: unknown;
}

/** The same key of the same kind always names the same job: pg-boss's insert then does nothing. */
function singletonId(kind: string, key: string): string {
  const hash = createHash('sha1').update(SINGLETON_NAMESPACE).update(`${kind}\n${key}`).digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const STATES: Record<string, JobState> = {
  created: 'queued',
  retry: 'queued',
  active: 'running',
  completed: 'succeeded',
  cancelled: 'failed',
  failed: 'failed',
};

type Db = { executeSql(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount?: number | null }> };

function onClient(client: pg.PoolClient): Db {
  return { executeSql: (text, values) => client.query(text, values) };
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/**
 * The queue on PostgreSQL: pg-boss in the schema `${prefix}_jobs`, one pg-boss queue per job
 * kind, no automatic retries. pg-boss has no heartbeat, so a lease table of ours sits next to its
 * tables: a row per running job with the lease token and the last heartbeat. A claim (pg-boss's
 * fetch) and its lease row commit together; finishing deletes the lease row and completes or fails
 * the pg-boss job in one transaction, and so does the watchdog, so whoever deletes the row decides
 * the job's end. Reads (get, count, the watchdog's rows) query pg-boss's job tables directly.
 */
export class PgBossJobStore implements JobStore {
  private readonly enqueued = new EventEmitter();
  private readonly queues = new Map<string, Promise<void>>();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly boss: PgBoss,
    private readonly schema: string,
    private readonly clock: Clock,
  ) {}

  /**
   * Opens pg-boss on `schema`, creating or migrating it; several processes may start at once.
   * `poolSize`: the connections of its one pool (RDP_DATABASE_POOL_SIZE). A lost connection is
   * reported to onError and replaced, never thrown at the process (postgres-pool.ts).
   */
  static async open(
    url: string,
    schema: string,
    clock: Clock,
    onError?: (error: Error) => void,
    poolSize = 10,
  ): Promise<PgBossJobStore> {
    if (!/^[a-z_][a-z0-9_]{0,49}$/.test(schema))
      throw new Error(`job schema "${schema}" must be lower-case letters, digits and _`);
    const pool = openPool({ connectionString: url, max: poolSize, application_name: 'rdp-jobs' }, onError);
    const boss = new PgBoss({
      // One pool for pg-boss and our own statements; a failed statement never leaves a pooled
      // connection inside an aborted transaction.
      db: {
        executeSql: async (text: string, values: unknown[]) => {
          const client = await connectWithRetry(pool);
          try {
            return await client.query(text, values);
          } catch (error) {
            await client.query('rollback').catch(() => undefined);
            throw error;
          } finally {
            client.release();
          }
        },
      },
      schema,
      schedule: false,
      supervise: true,
      migrate: true,
    });
    boss.on('error', (error) => onError?.(error));
    const store = new PgBossJobStore(pool, boss, schema, clock);
    try {
      await store.install();
    } catch (error) {
      await pool.end();
      throw error;
    }
    return store;
  }

  private get leases(): string {
    return `"${this.schema}".rdp_job_leases`;
  }

  private get workers(): string {
    return `"${this.schema}".rdp_job_workers`;
  }

  /** pg-boss's schema and our lease table, under one advisory lock so concurrent starts take turns. */
  private async install(): Promise<void> {
    const lock = await connectWithRetry(this.pool);
    try {
      await lock.query('select pg_advisory_lock(hashtext($1))', [`rdp-jobs:${this.schema}`]);
      await this.boss.start();
      await lock.query(
        `create table if not exists ${this.leases} (
          job_id uuid primary key, kind text not null, lease text not null,
          heartbeat_at timestamptz not null, progress double precision)`,
      );
      await lock.query(`create index if not exists rdp_job_leases_heartbeat on ${this.leases} (heartbeat_at)`);
      await lock.query(
        `create table if not exists ${this.workers} (
          id text primary key, slots integer not null, host text not null, pid integer not null,
          started_at timestamptz not null, heartbeat_at timestamptz not null, expires_at timestamptz not null)`,
      );
    } finally {
      await lock.query('select pg_advisory_unlock(hashtext($1))', [`rdp-jobs:${this.schema}`]).catch(() => undefined);
      lock.release();
    }
  }

  /** pg-boss needs a queue (a partition of its job table) per name before the first send. */
  private ensureQueue(kind: string): Promise<void> {
    let created = this.queues.get(kind);
    if (!created) {
      created = this.boss.createQueue(kind, { name: kind, retryLimit: 0, expireInSeconds: EXPIRE_IN_SECONDS });
      created.catch(() => this.queues.delete(kind));
      this.queues.set(kind, created);
    }
    return created;
  }

  async enqueue<Payload>(
    kind: JobKind<Payload>,
    payload: Payload,
    options: EnqueueOptions = {},
  ): Promise<{ id: string; created: boolean }> {
    await this.ensureQueue(kind.name);
    const key = options.singletonKey;
    const id = key === undefined ? randomUUID() : singletonId(kind.name, key);
    const send = async (client: pg.Pool | pg.PoolClient, db?: Db): Promise<boolean> => {
      if (key !== undefined) {
        // A keyed job that finished long ago has moved to pg-boss's archive, out of reach of its insert.
        const archived = await client.query(`select 1 from "${this.schema}".archive where name = $1 and id = $2`, [
          kind.name,
          id,
        ]);
        if (archived.rows.length > 0) return false;
      }
      if (options.withinCapacity) {
        // A repeat of a keyed job is answered, never refused.
        if (key !== undefined && (await client.query(`select 1 from "${this.schema}".job where id = $1`, [id])).rows.length > 0)
          return false;
        const { slots, active } = await this.capacityOn(client);
        if (active >= slots) throw new CapacityExceededError(slots, active);
      }
      const envelope: Envelope = { version: kind.version, payload: payload ?? null };
      const sent = await this.boss.send(kind.name, envelope as object, {
        id,
        retryLimit: 0,
        expireInSeconds: EXPIRE_IN_SECONDS,
        retentionMinutes: RETENTION_MINUTES,
        ...(key === undefined ? {} : { singletonKey: key }),
        ...(db ? { db } : {}),
      });
      return sent !== null;
    };
    // Within capacity: the count and the insert in one transaction, under a lock every enqueuer of
    // the deployment takes, so each counts what the ones before it inserted.
    const created = options.withinCapacity
      ? await this.transaction(async (db, client) => {
          await client.query('select pg_advisory_xact_lock(hashtext($1))', [`rdp-jobs-capacity:${this.schema}`]);
          return send(client, db);
        })
      : await send(this.pool);
    if (created) this.enqueued.emit('job', kind.name);
    return { id, created };
  }

  capacity(): Promise<QueueCapacity> {
    return this.capacityOn(this.pool);
  }

  private async capacityOn(client: pg.Pool | pg.PoolClient): Promise<QueueCapacity> {
    const { rows } = await client.query(
      `select (select count(*) from ${this.workers} where expires_at > $1) as workers,
              (select coalesce(sum(slots), 0) from ${this.workers} where expires_at > $1) as slots,
              (select count(*) from "${this.schema}".job where state < 'completed') as active`,
      [this.clock.now()],
    );
    return { workers: Number(rows[0].workers), slots: Number(rows[0].slots), active: Number(rows[0].active) };
  }

  async registerWorker(worker: WorkerRegistration): Promise<void> {
    const now = this.clock.now();
    await this.pool.query(
      `insert into ${this.workers} (id, slots, host, pid, started_at, heartbeat_at, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (id) do update set slots = excluded.slots, heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at`,
      [worker.id, worker.slots, worker.host, worker.pid, worker.startedAt, now, new Date(now.getTime() + worker.aliveForMs)],
    );
  }

  async unregisterWorker(id: string): Promise<void> {
    await this.pool.query(`delete from ${this.workers} where id = $1`, [id]);
  }

  async listWorkers(): Promise<RegisteredWorker[]> {
    const { rows } = await this.pool.query(`select * from ${this.workers} order by started_at`);
    return rows.map((row) => ({
      id: row.id,
      slots: row.slots,
      host: row.host,
      pid: row.pid,
      startedAt: iso(row.started_at) as string,
      heartbeatAt: iso(row.heartbeat_at) as string,
      expiresAt: iso(row.expires_at) as string,
    }));
  }

  async pruneWorkers(cutoff: Date): Promise<void> {
    await this.pool.query(`delete from ${this.workers} where expires_at < $1`, [cutoff]);
  }

  async get(id: string): Promise<JobRecord | undefined> {
    if (!UUID.test(id)) return undefined;
    const columns = 'j.id, j.name, j.data, j.state, j.retry_count, j.started_on, j.created_on, j.completed_on, j.output';
    const { rows } = await this.pool.query(
      `select ${columns}, l.heartbeat_at, l.progress from "${this.schema}".job j
         left join ${this.leases} l on l.job_id = j.id where j.id = $1
       union all
       select ${columns}, null, null from "${this.schema}".archive j where j.id = $1
       limit 1`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    const state = STATES[row.state] ?? 'failed';
    const envelope = row.data as Envelope;
    return {
      id: row.id,
      kind: row.name,
      payloadVersion: envelope.version,
      payload: envelope.payload,
      attempts: row.started_on ? row.retry_count + 1 : 0,
      state,
      progress: row.progress ?? null,
      heartbeatAt: iso(row.heartbeat_at),
      failureReason: state === 'failed' ? String(row.output?.reason ?? row.state) : null,
      createdAt: iso(row.created_on) as string,
      startedAt: iso(row.started_on),
      finishedAt: state === 'succeeded' || state === 'failed' ? iso(row.completed_on) : null,
    };
  }

  async countByState(): Promise<{ queued: number; running: number }> {
    const { rows } = await this.pool.query(
      `select count(*) filter (where state < 'active') as queued, count(*) filter (where state = 'active') as running
         from "${this.schema}".job where state < 'completed'`,
    );
    return { queued: Number(rows[0].queued), running: Number(rows[0].running) };
  }

  poolUse(): PoolUse {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async claim(kinds: readonly string[], limit: number): Promise<ClaimedJob[]> {
    if (kinds.length === 0 || limit < 1) return [];
    const lease = randomUUID();
    const now = this.clock.now();
    return this.transaction(async (db, client) => {
      const claimed: ClaimedJob[] = [];
      for (const kind of kinds) {
        if (claimed.length >= limit) break;
        const jobs = await this.boss.fetch<Envelope>(kind, { batchSize: limit - claimed.length, includeMetadata: true, db });
        for (const job of jobs) {
          claimed.push({
            id: job.id,
            kind,
            payloadVersion: job.data.version,
            payload: job.data.payload,
            attempts: job.retryCount + 1,
            lease,
          });
        }
      }
      if (claimed.length > 0) {
        await client.query(
          `insert into ${this.leases} (job_id, kind, lease, heartbeat_at)
           select id, kind, $3, $4 from unnest($1::uuid[], $2::text[]) as t(id, kind)`,
          [claimed.map((job) => job.id), claimed.map((job) => job.kind), lease, now],
        );
      }
      return claimed;
    });
  }

  async heartbeat(job: ClaimedJob, progress?: number): Promise<boolean> {
    const result = await this.pool.query(
      `update ${this.leases} set heartbeat_at = $3, progress = coalesce($4, progress) where job_id = $1 and lease = $2`,
      [job.id, job.lease, this.clock.now(), progress ?? null],
    );
    return result.rowCount === 1;
  }

  succeed(job: ClaimedJob): Promise<boolean> {
    return this.finish(job, (db) => this.boss.complete(job.kind, job.id, {}, { db }));
  }

  fail(job: ClaimedJob, reason: string): Promise<boolean> {
    return this.finish(job, (db) => this.boss.fail(job.kind, job.id, { reason }, { db }));
  }

  /** pg-boss has no "release": a fail and a retry (its way back to the queue), in one transaction. */
  release(job: ClaimedJob): Promise<boolean> {
    return this.finish(job, async (db) => {
      const failed = await this.boss.fail(job.kind, job.id, { reason: 'released' }, { db });
      await this.boss.retry(job.kind, job.id, { db });
      return failed;
    });
  }

  async failStale(kinds: readonly string[], cutoff: Date, reason: string): Promise<JobSummary[]> {
    if (kinds.length === 0) return [];
    return this.transaction(async (db, client) => {
      // The deleted rows stay locked until commit: a concurrent heartbeat waits, then finds none.
      const stale = await client.query(`delete from ${this.leases} where kind = any($1) and heartbeat_at < $2 returning job_id`, [
        [...kinds],
        cutoff,
      ]);
      if (stale.rows.length === 0) return [];
      const ids = stale.rows.map((row) => row.job_id as string);
      const { rows } = await client.query(
        `select id, name, data, retry_count from "${this.schema}".job where id = any($1::uuid[]) and state = 'active'`,
        [ids],
      );
      const failed: JobSummary[] = [];
      for (const row of rows) {
        const result = (await this.boss.fail(row.name, row.id, { reason }, { db })) as unknown as { affected: number };
        if (result.affected !== 1) continue;
        const envelope = row.data as Envelope;
        failed.push({
          id: row.id,
          kind: row.name,
          payloadVersion: envelope.version,
          payload: envelope.payload,
          attempts: row.retry_count + 1,
        });
      }
      return failed;
    });
  }

  onEnqueued(listener: (kind: string) => void): () => void {
    this.enqueued.on('job', listener);
    return () => this.enqueued.off('job', listener);
  }

  async close(): Promise<void> {
    this.enqueued.removeAllListeners();
    await this.boss.stop({ graceful: false, close: false });
    await this.pool.end();
  }

  /** Deletes the job's lease row and, if it was still there, ends the pg-boss job: one transaction. */
  private finish(job: ClaimedJob, end: (db: Db) => Promise<unknown>): Promise<boolean> {
    return this.transaction(async (db, client) => {
      const held = await client.query(`delete from ${this.leases} where job_id = $1 and lease = $2`, [job.id, job.lease]);
      if (held.rowCount !== 1) return false;
      const result = (await end(db)) as { affected: number };
      return result.affected === 1;
    });
  }

  private async transaction<T>(work: (db: Db, client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await connectWithRetry(this.pool);
    let failure: unknown;
    try {
      await client.query('begin');
      const result = await work(onClient(client), client);
      await client.query('commit');
      return result;
    } catch (error) {
      failure = error;
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      // A connection that failed mid-transaction is dropped rather than trusted again.
      client.release(failure instanceof Error && isConnectionLost(failure) ? failure : undefined);
    }
  }
}
