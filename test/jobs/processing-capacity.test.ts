import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse, createOrg, createTree, type OrgFixture, snapshot } from '../support/fixtures.js';
import { activeJobs } from '../support/job-counts.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { bundleWithInput, sampleBytes } from '../support/uploads.js';
import { writeTestVideo } from '../support/video-samples.js';
import { eventually } from './support/job-stores.js';
import { collectedLog } from './support/log-lines.js';

/**
 * The deployment's processing capacity through HTTP: the slots of the workers that are alive
 * (each its own platform sharing the stores, as separate worker processes would), checked in the
 * same transaction as the enqueue. Jobs are videos whose reconstruction waits for a gate file, so
 * they stay queued or running until the test opens it.
 */
// Video jobs (ffprobe, key frames) on a shared two-core machine: the tests that run them get room.
describe('processing capacity: the slots of the workers alive', () => {
  const gateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-gate-'));
  const gate = path.join(gateDir, 'open');
  const env = {
    RDP_PROCESSING_SLOTS: '2',
    RDP_RECONSTRUCTION_COMMAND: `gated() { until [ -e '${gate}' ]; do sleep 0.05; done; echo solid > "$2/model.stl"; }; gated`,
  };
  const { log: workerLog, lines: logLines } = collectedLog();
  let api: TestPlatform;
  let firstWorker: TestPlatform;
  let secondWorker: TestPlatform | undefined;
  let org: OrgFixture;
  let siteId: string;
  let video: Buffer;

  beforeAll(async () => {
    video = await sampleBytes((file) => writeTestVideo(file, 16, 2), '.mp4');
    api = await startPlatform(env);
    org = await createOrg(api);
    ({ siteId } = await createTree(org));
  });
  afterAll(async () => {
    fs.writeFileSync(gate, '');
    await secondWorker?.close();
    await firstWorker?.close();
    await api.close();
    fs.rmSync(gateDir, { recursive: true, force: true });
  });

  /** Bundles with a finalized video input, ready to submit, each with its current cost. */
  async function uploadedBundles(count: number): Promise<{ bundleId: string; cost: number }[]> {
    const bundles = [];
    for (let i = 0; i < count; i++) {
      const { bundleId, finalized } = await bundleWithInput(org.admin, siteId, `Walk ${Math.random()}`, {
        name: 'walk.mp4',
        bytes: video,
      });
      expect(finalized.status).toBe(200);
      const { cost } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
      bundles.push({ bundleId, cost: cost as number });
    }
    return bundles;
  }

  /** Submits through one platform's copy of the API (default the API platform), with the organization's token. */
  function submit(bundle: { bundleId: string; cost: number }, key?: string, target: TestPlatform = api): Promise<ApiResponse> {
    const client = new ApiClient(target.regionUrl(org.region), org.admin.token);
    const headers: Record<string, string> = key ? { 'idempotency-key': key } : {};
    return client.request('POST', `/v1/bundles/${bundle.bundleId}/processing`, { cost: bundle.cost }, headers);
  }

  /** Opens the gate until every accepted processing has ended, then closes it again. */
  async function finishAll(bundles: { bundleId: string }[]): Promise<void> {
    fs.writeFileSync(gate, '');
    for (const { bundleId } of bundles) {
      await eventually(async () => (await org.admin.get(`/v1/bundles/${bundleId}`)).body.state !== 'processing', 60_000);
    }
    // A bundle is ready a moment before its job is recorded as ended.
    await eventually(async () => (await activeJobs(api.platform.jobs)) === 0, 10_000);
    fs.rmSync(gate);
  }

  /** A refused bundle is as it was: uploaded, not processing, without a processing. */
  async function expectUntouched(bundleId: string): Promise<void> {
    const bundle = await org.admin.get(`/v1/bundles/${bundleId}?expand=processings`);
    expect(bundle.body).toMatchObject({ state: 'uploaded', isProcessing: false, isFailed: false, processings: [] });
  }

  it('refuses every submission with 409 when no worker is running, storing nothing', async () => {
    const [bundle] = await uploadedBundles(1);
    const before = await snapshot(api, org);
    const refused = await submit(bundle!);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ statusCode: 409, error: 'InsufficientProcessingCapacity' });
    expect(refused.body.message).toMatch(/no processing worker is running/i);
    expect(await snapshot(api, org)).toEqual(before);
  });

  it('accepts four and refuses the fifth with two workers of two slots; a repeat answers the first', async () => {
    firstWorker = await startPlatform(env, { sharing: api, worker: true, workerLog });
    secondWorker = await startPlatform(env, { sharing: api, worker: true });
    const bundles = await uploadedBundles(5);
    const accepted = [];
    for (const bundle of bundles.slice(0, 4)) {
      const response = await submit(bundle, `key-${bundle.bundleId}`);
      expect(response.status).toBe(202);
      accepted.push(response);
    }
    // Refused through either copy of the API (the worker platforms serve it too).
    for (const target of [api, secondWorker as TestPlatform]) {
      const refused = await submit(bundles[4]!, undefined, target);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ statusCode: 409, error: 'InsufficientProcessingCapacity' });
      expect(refused.body.message).toMatch(/every processing slot/i);
    }
    await expectUntouched(bundles[4]!.bundleId);
    // An idempotent repeat is never refused: it answers the processing it started.
    const repeat = await submit(bundles[0]!, `key-${bundles[0]!.bundleId}`);
    expect(repeat.status).toBe(202);
    expect(repeat.body.id).toBe(accepted[0]!.body.id);

    await finishAll(bundles.slice(0, 4));
    // The worker's log tells each job's start and outcome, with the processing it was for.
    const processingIds = new Set(accepted.map((response) => response.body.id));
    const started = logLines.filter((line) => line.msg === 'job started');
    expect(started.length).toBeGreaterThan(0);
    for (const line of started) {
      expect(line).toMatchObject({ level: 30, kind: 'process-bundle', attempt: 1 });
      expect(processingIds.has(line.processingId)).toBe(true);
      // The bundle is ready a moment before the worker records the job's end.
      const ended = await eventually(() => logLines.find((other) => other.msg === 'job succeeded' && other.jobId === line.jobId));
      expect(ended).toMatchObject({ level: 30, kind: 'process-bundle', processingId: line.processingId });
      expect(ended?.durationMs).toEqual(expect.any(Number));
    }
  }, 120_000);

  it('counts a stopped worker no more: six concurrent submissions against two slots give 2 accepted and 4 refused', async () => {
    await secondWorker?.close();
    secondWorker = undefined;
    const bundles = await uploadedBundles(6);
    const responses = await Promise.all(bundles.map((bundle) => submit(bundle)));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([202, 202, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.status === 409)) {
      expect(response.body.error).toBe('InsufficientProcessingCapacity');
    }
    for (const [i, bundle] of bundles.entries()) if (responses[i]?.status === 409) await expectUntouched(bundle.bundleId);
    await finishAll(bundles.filter((_, i) => responses[i]?.status === 202));
  }, 120_000);
});
