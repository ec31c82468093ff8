import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_LAUNCH_MS } from '../../src/domain/processing/bundle-lifecycle.js';
import { runHousekeeping } from '../../src/jobs/housekeeping.js';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { bundleWithInput } from '../support/uploads.js';

/**
 * A repeated Idempotency-Key while the first submission's job is being queued (docs/uploads.md,
 * "Processing"): the first is undone when the queue refuses its job (no worker runs here, so
 * the deployment has no capacity), and the repeat must not have answered 202 for it. The test
 * holds the first submission inside its enqueue until the repeat has its answer: no timing.
 */
describe('a repeated Idempotency-Key during the first submission', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let bundleId: string;
  let cost: number;

  beforeAll(async () => {
    t = await startPlatform();
    org = await createOrg(t);
    const { folderId } = await createTree(org);
    const input = await bundleWithInput(org.admin, folderId, 'Survey', {
      name: 'scan.xyz',
      bytes: Buffer.from('1 2 3\n'.repeat(50)),
    });
    expect(input.finalized.status).toBe(200);
    bundleId = input.bundleId;
    cost = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body.cost as number;
  });
  afterAll(() => t.close());

  const submit = (key: string) =>
    org.admin.request('POST', `/v1/bundles/${bundleId}/processing`, { cost }, { 'idempotency-key': key });

  /**
   * Holds the next submission inside its enqueue, as a process stopping between its commit and
   * the queueing would: `inEnqueue` resolves once it is there, `release` lets it go on.
   */
  function holdNextEnqueue() {
    const jobs = t.platform.jobs;
    const enqueue = jobs.enqueue.bind(jobs);
    let reached!: () => void;
    const inEnqueue = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    jobs.enqueue = (async (...args: Parameters<typeof enqueue>) => {
      jobs.enqueue = enqueue;
      reached();
      await released;
      return enqueue(...args);
    }) as typeof jobs.enqueue;
    return { inEnqueue, release, restore: () => (jobs.enqueue = enqueue) };
  }

  it('never answers 202 for a submission that is then undone', async () => {
    const { inEnqueue, release, restore } = holdNextEnqueue();
    try {
      const first = submit('race-1');
      await inEnqueue;
      // The first submission is committed and its job not queued yet: the repeat answers now.
      const repeat = await submit('race-1');
      release();
      const firstAnswer = await first;
      expect(firstAnswer.status).toBe(409);
      expect(firstAnswer.body.error).toBe('InsufficientProcessingCapacity');
      expect({ status: repeat.status, error: repeat.body.error }).toEqual({ status: 409, error: 'IdempotencyKeyInUse' });
    } finally {
      restore();
    }
    // Nothing stayed: the bundle lists no processing, and the key starts afresh (refused again here).
    const bundle = await org.admin.get(`/v1/bundles/${bundleId}?expand=processings`);
    expect(bundle.body.state).toBe('uploaded');
    expect(bundle.body.processings).toEqual([]);
    const again = await submit('race-1');
    expect(again.body.error).toBe('InsufficientProcessingCapacity');
  });

  it('finishes, in the housekeeper, a launch its process left pending', async () => {
    const silent = { warn() {}, error() {} };
    const { inEnqueue, release, restore } = holdNextEnqueue();
    try {
      // The first submission stops between its commit and its job's queueing, and stays stopped.
      const first = submit('interrupted-1');
      await inEnqueue;
      const retry = await submit('interrupted-1');
      expect({ status: retry.status, error: retry.body.error }).toEqual({ status: 409, error: 'IdempotencyKeyInUse' });

      // A launch pending for less than INTERRUPTED_LAUNCH_MS may still be under way: left alone.
      await runHousekeeping(t.platform, silent);
      expect((await submit('interrupted-1')).body.error).toBe('IdempotencyKeyInUse');

      t.clock.advance(INTERRUPTED_LAUNCH_MS + 1000);
      await runHousekeeping(t.platform, silent);
      const replayed = await submit('interrupted-1');
      expect(replayed.status).toBe(202);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      const bundle = await org.admin.get(`/v1/bundles/${bundleId}?expand=processings`);
      expect(bundle.body.state).toBe('processing');
      expect(bundle.body.processings).toMatchObject([{ id: replayed.body.id, state: 'queued' }]);
      expect(await t.platform.jobs.countByState()).toMatchObject({ queued: 1 });

      // Should the stopped one come back, it finds its job queued (by the processing's id), not a second one.
      release();
      const firstAnswer = await first;
      expect(firstAnswer.status).toBe(202);
      expect(firstAnswer.body.id).toBe(replayed.body.id);
      expect(await t.platform.jobs.countByState()).toMatchObject({ queued: 1 });
    } finally {
      restore();
    }
  });
});
