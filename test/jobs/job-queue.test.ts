import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStores, type Stores } from '../../src/adapters/db/database.js';
import { openJobStore } from '../../src/adapters/jobs/open-job-store.js';
import { loadConfig } from '../../src/config/config.js';
import { systemClock } from '../../src/ports/clock.js';
import { CapacityExceededError, defineJob } from '../../src/ports/job-queue.js';
import { activeJobs } from '../support/job-counts.js';
import { type JobProcess, type JobStores, jobStores } from './support/job-stores.js';

const convert = defineJob<{ bundleId: string }>('convert', 1);
const other = defineJob<{ n: number }>('other-kind', 2);

/** The queue's contract, on the store the suite runs against (SQLite, or pg-boss on PostgreSQL). */
describe('job queue', () => {
  let stores: JobStores;
  let a: JobProcess;
  let b: JobProcess;
  beforeAll(async () => {
    stores = jobStores();
    a = await stores.open();
    b = await stores.open();
  });
  afterAll(() => stores.close());

  /** Claims every queued job of the kinds, so that each test starts from an empty queue. */
  async function drain(): Promise<void> {
    for (const job of await a.store.claim(['convert', 'other-kind'], 1000)) await a.store.succeed(job);
  }

  it('keeps a job queued with its versioned payload, then running, then succeeded', async () => {
    await drain();
    const before = await activeJobs(a.store);
    const { id, created } = await a.store.enqueue(convert, { bundleId: 'b-1' });
    expect(created).toBe(true);
    const queued = await b.store.get(id);
    expect(queued).toMatchObject({
      id,
      kind: 'convert',
      payloadVersion: 1,
      payload: { bundleId: 'b-1' },
      state: 'queued',
      attempts: 0,
      failureReason: null,
      startedAt: null,
      finishedAt: null,
    });
    expect(Date.parse(queued?.createdAt as string)).not.toBeNaN();
    expect(await activeJobs(b.store)).toBe(before + 1);

    const [claimed, ...more] = await b.store.claim(['convert'], 5);
    expect(more).toEqual([]);
    expect(claimed).toMatchObject({ id, kind: 'convert', payload: { bundleId: 'b-1' }, attempts: 1 });
    const running = await a.store.get(id);
    expect(running).toMatchObject({ state: 'running', attempts: 1 });
    expect(running?.heartbeatAt).toBeTruthy();

    expect(await b.store.heartbeat(claimed!, 0.5)).toBe(true);
    expect((await a.store.get(id))?.progress).toBe(0.5);
    expect(await b.store.succeed(claimed!)).toBe(true);
    expect(await a.store.get(id)).toMatchObject({ state: 'succeeded', failureReason: null });
    expect((await a.store.get(id))?.finishedAt).toBeTruthy();
    expect(await activeJobs(a.store)).toBe(before);
    // Finished under its lease once: a second finish, a heartbeat or a release changes nothing.
    expect(await b.store.fail(claimed!, 'late')).toBe(false);
    expect(await b.store.heartbeat(claimed!)).toBe(false);
    expect(await b.store.release(claimed!)).toBe(false);
    expect((await a.store.get(id))?.state).toBe('succeeded');
  });

  it('claims only the kinds asked for, and never with a lease that is not the claim’s', async () => {
    await drain();
    const { id } = await a.store.enqueue(other, { n: 7 });
    expect(await a.store.claim(['convert'], 10)).toEqual([]);
    const [job] = await a.store.claim(['other-kind'], 10);
    expect(job).toMatchObject({ id, payloadVersion: 2, payload: { n: 7 } });
    const forged = { ...job!, lease: '00000000-0000-4000-8000-000000000000' };
    expect(await a.store.succeed(forged)).toBe(false);
    expect(await a.store.fail(job!, 'it broke')).toBe(true);
    expect(await a.store.get(id)).toMatchObject({ state: 'failed', failureReason: 'it broke' });
  });

  it('gives the first job for a repeated singleton key, also when two processes race', async () => {
    const key = `processing-${Math.random()}`;
    const results = await Promise.all([
      a.store.enqueue(convert, { bundleId: 'x' }, { singletonKey: key }),
      b.store.enqueue(convert, { bundleId: 'y' }, { singletonKey: key }),
      a.store.enqueue(convert, { bundleId: 'z' }, { singletonKey: key }),
    ]);
    expect(new Set(results.map((result) => result.id)).size).toBe(1);
    expect(results.filter((result) => result.created)).toHaveLength(1);
    // Still one job after it ran, and the same key on another kind is another job.
    for (const job of await a.store.claim(['convert'], 100)) await a.store.succeed(job);
    const again = await b.store.enqueue(convert, { bundleId: 'w' }, { singletonKey: key });
    expect(again).toEqual({ id: results[0]?.id, created: false });
    expect((await b.store.get(again.id))?.state).toBe('succeeded');
    const otherKind = await b.store.enqueue(other, { n: 1 }, { singletonKey: key });
    expect(otherKind.created).toBe(true);
    expect(otherKind.id).not.toBe(again.id);
  });

  it('hands each job to one claimant when processes claim at once', async () => {
    await drain();
    const ids = new Set<string>();
    for (let i = 0; i < 30; i++) ids.add((await a.store.enqueue(convert, { bundleId: `c-${i}` })).id);
    const claims = await Promise.all([
      ...Array.from({ length: 6 }, () => a.store.claim(['convert'], 4)),
      ...Array.from({ length: 6 }, () => b.store.claim(['convert'], 4)),
    ]);
    const claimed = claims.flat().map((job) => job.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    const rest = await a.store.claim(['convert'], 100);
    expect(new Set([...claimed, ...rest.map((job) => job.id)])).toEqual(ids);
    for (const job of [...claims.flat(), ...rest]) expect(await a.store.succeed(job)).toBe(true);
  });

  it('fails running jobs whose heartbeat is older than the cutoff, once, and puts released ones back', async () => {
    await drain();
    const stale = await a.store.enqueue(convert, { bundleId: 'stale' });
    const [job] = await a.store.claim(['convert'], 1);
    expect(job?.id).toBe(stale.id);
    a.clock.advance(60_000);
    const fresh = await a.store.enqueue(convert, { bundleId: 'fresh' });
    const [live] = await a.store.claim(['convert'], 1);
    expect(live?.id).toBe(fresh.id);

    const cutoff = new Date(a.clock.now().getTime() - 30_000);
    expect(await b.store.failStale(['other-kind'], cutoff, 'no heartbeat for 30 seconds')).toEqual([]);
    const [failedByA, failedByB] = await Promise.all([
      a.store.failStale(['convert'], cutoff, 'no heartbeat for 30 seconds'),
      b.store.failStale(['convert'], cutoff, 'no heartbeat for 30 seconds'),
    ]);
    const failed = [...(failedByA ?? []), ...(failedByB ?? [])];
    expect(failed).toEqual([{ id: stale.id, kind: 'convert', payloadVersion: 1, payload: { bundleId: 'stale' }, attempts: 1 }]);
    expect(await a.store.get(stale.id)).toMatchObject({ state: 'failed', failureReason: 'no heartbeat for 30 seconds' });
    // The stalled worker has lost it: it can neither heartbeat nor complete it.
    expect(await a.store.heartbeat(job!)).toBe(false);
    expect(await a.store.succeed(job!)).toBe(false);
    expect((await a.store.get(stale.id))?.state).toBe('failed');

    expect(await a.store.release(live!)).toBe(true);
    expect(await a.store.get(fresh.id)).toMatchObject({ state: 'queued', failureReason: null });
    const [again] = await b.store.claim(['convert'], 1);
    expect(again).toMatchObject({ id: fresh.id, attempts: 2 });
    expect(again?.lease).not.toBe(live?.lease);
    expect(await a.store.heartbeat(live!)).toBe(false);
    expect(await b.store.succeed(again!)).toBe(true);
  });

  it('keeps queued jobs across a restart of every process', async () => {
    await drain();
    const { id } = await a.store.enqueue(convert, { bundleId: 'durable' });
    await a.close();
    await b.close();
    a = await stores.open();
    b = await stores.open();
    expect((await b.store.get(id))?.state).toBe('queued');
    const [job] = await b.store.claim(['convert'], 10);
    expect(job).toMatchObject({ id, payload: { bundleId: 'durable' } });
    expect(await b.store.succeed(job!)).toBe(true);
  });

  it('installs the queue on fresh stores when several processes start at once', async () => {
    const fresh = jobStores();
    const config = loadConfig(fresh.env);
    // The stores one after the other (their schemas exist first): only the queue's installation races.
    const opened: Stores[] = [];
    for (let i = 0; i < 3; i++) opened.push(await openStores(config));
    try {
      const queues = await Promise.all(opened.map((stores) => openJobStore({ config, clock: systemClock, stores })));
      const { id } = await queues[0]!.enqueue(convert, { bundleId: 'first' });
      expect((await queues[2]!.get(id))?.state).toBe('queued');
      expect(await activeJobs(queues[1]!)).toBe(1);
      for (const queue of queues) await queue.close();
    } finally {
      for (const stores of opened) await stores.close();
      await fresh.close();
    }
  });

  it('enqueues within capacity only below the slots of the registered workers alive, atomically across processes', async () => {
    await drain();
    const refusal = await a.store.enqueue(convert, { bundleId: 'none' }, { withinCapacity: true }).catch((error) => error);
    expect(refusal).toBeInstanceOf(CapacityExceededError);
    expect(refusal).toMatchObject({ slots: 0, active: 0 });
    const worker = { host: 'test-host', pid: 1, startedAt: a.clock.now().toISOString(), aliveForMs: 60_000 };
    await a.store.registerWorker({ ...worker, id: 'w-1', slots: 2 });
    await b.store.registerWorker({ ...worker, id: 'w-2', slots: 1 });
    expect(await b.store.capacity()).toEqual({ workers: 2, slots: 3, active: 0 });

    // Eight at once from two processes: exactly three get in, the rest are refused.
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? a : b).store.enqueue(convert, { bundleId: `cap-${i}` }, { singletonKey: `cap-${i}`, withinCapacity: true }),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    for (const result of results.filter((result) => result.status === 'rejected'))
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(CapacityExceededError);
    expect(await activeJobs(a.store)).toBe(3);
    // A repeat of an accepted keyed job is answered, not refused.
    const accepted = results.findIndex((result) => result.status === 'fulfilled');
    const repeat = await a.store.enqueue(
      convert,
      { bundleId: 'again' },
      { singletonKey: `cap-${accepted}`, withinCapacity: true },
    );
    expect(repeat).toEqual({ id: (results[accepted] as PromiseFulfilledResult<{ id: string }>).value.id, created: false });

    // An expired registration counts no more; a registration refreshed with no slots neither.
    a.clock.advance(61_000);
    await a.store.registerWorker({ ...worker, id: 'w-1', slots: 2 });
    expect(await a.store.capacity()).toEqual({ workers: 1, slots: 2, active: 3 });
    await a.store.registerWorker({ ...worker, id: 'w-1', slots: 0 });
    expect((await a.store.capacity()).slots).toBe(0);
    await a.store.pruneWorkers(a.clock.now());
    expect((await a.store.listWorkers()).map((registered) => registered.id)).toEqual(['w-1']);
    await a.store.unregisterWorker('w-1');
    expect(await a.store.listWorkers()).toEqual([]);
  });

  it('answers undefined for unknown and malformed ids', async () => {
    expect(await a.store.get('4a1c0e8e-0000-4000-8000-000000000000')).toBeUndefined();
    expect(await a.store.get('not-an-id')).toBeUndefined();
  });

  it('refuses a kind name or version that cannot be stored', () => {
    expect(() => defineJob('Bad Name', 1)).toThrow(/lower-case/);
    expect(() => defineJob('fine', 0)).toThrow(/positive integer/);
  });
});
