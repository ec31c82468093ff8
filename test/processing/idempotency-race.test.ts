import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('never answers 202 for a submission that is then undone', async () => {
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
      reached();
      await released;
      return enqueue(...args);
    }) as typeof jobs.enqueue;
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
      jobs.enqueue = enqueue;
    }
    // Nothing stayed: the bundle lists no processing, and the key starts afresh (refused again here).
    const bundle = await org.admin.get(`/v1/bundles/${bundleId}?expand=processings`);
    expect(bundle.body.state).toBe('uploaded');
    expect(bundle.body.processings).toEqual([]);
    const again = await submit('race-1');
    expect(again.body.error).toBe('InsufficientProcessingCapacity');
  });
});
