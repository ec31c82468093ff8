import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, createTree } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { sampleBytes, uploadBytes } from '../support/uploads.js';
import { writeTestVideo } from '../support/video-samples.js';

/**
 * Video inputs through the API: the bundle's size includes them, the processing checks them
 * with ffprobe and hands the key frames to the pluggable reconstruction; a reconstruction that
 * goes silent is failed by the watchdog and the bundle's node is marked failed.
 */
describe('processing video inputs', () => {
  let video: Buffer;
  beforeAll(async () => {
    video = await sampleBytes((file) => writeTestVideo(file, 16, 2), '.mp4');
  });

  async function processedVideo(env: Record<string, string>) {
    const t = await startPlatform(env, { worker: true });
    const org = await createOrg(t);
    const { siteId } = await createTree(org);
    const bundle = await org.admin.post(`/v1/nodes/${siteId}/bundle`, { name: '360 walk' });
    const session = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions`);
    const file = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/files`, {
      name: 'walk.mp4',
      size: video.length,
    });
    await uploadBytes(file.body, video);
    const finalized = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/finalize`);
    expect(finalized.status).toBe(200);
    // The bundle's size includes its video input.
    expect(finalized.body).toMatchObject({ state: 'uploaded', size: video.length });
    const { cost } = (await org.admin.get(`/v1/bundles/${bundle.body.id}/processing/cost`)).body;
    expect((await org.admin.post(`/v1/bundles/${bundle.body.id}/processing`, { cost })).status).toBe(202);
    let settled: any;
    for (const started = Date.now(); Date.now() - started < 60_000; ) {
      settled = (await org.admin.get(`/v1/bundles/${bundle.body.id}?expand=processings`)).body;
      if (settled.state !== 'processing') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { t, org, bundleId: bundle.body.id as string, settled };
  }

  let platforms: TestPlatform[] = [];
  afterAll(async () => {
    for (const t of platforms) await t.close();
    platforms = [];
  });

  it('fails with a clear reason when no reconstruction processor is configured', async () => {
    const { t, settled } = await processedVideo({});
    platforms.push(t);
    expect(settled).toMatchObject({ state: 'failed', isFailed: true, isProcessing: false });
    expect(settled.processings[0].failureReason).toMatch(/no reconstruction processor is configured/);
  });

  it('fails a reconstruction that stops making progress by the watchdog, and marks the node failed', async () => {
    const { t, org, bundleId, settled } = await processedVideo({
      RDP_RECONSTRUCTION_COMMAND: 'sleep 4; true',
      RDP_JOB_HEARTBEAT_TIMEOUT_SECONDS: '1',
    });
    platforms.push(t);
    expect(settled).toMatchObject({ state: 'failed', isFailed: true });
    expect(settled.processings[0].failureReason).toMatch(/no heartbeat for 1 seconds/);
    const refused = await org.admin.delete(`/v1/nodes/${bundleId}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'NodeNotInDeletableState', isFailed: true });
  });

  it('hands the key frames to the reconstruction and makes its output a linked mesh derivative', async () => {
    // A stand-in reconstruction: counts the key frames it is given and writes a model file.
    const command = 'reconstruct() { ls "$1" | wc -l > "$2/frames.txt" && echo "solid test" > "$2/model.stl"; }; reconstruct';
    const { t, org, bundleId, settled } = await processedVideo({ RDP_RECONSTRUCTION_COMMAND: command });
    platforms.push(t);
    expect(settled).toMatchObject({ state: 'ready', isFailed: false, isProcessing: false });
    const derivativeId = settled.processings[0].derivativeId as string;
    const derivative = await org.admin.get(`/v1/nodes/${derivativeId}`);
    expect(derivative.body).toMatchObject({ type: 'mesh' });
    expect(derivative.body.sources.map((source: { id: string }) => source.id)).toEqual([bundleId]);
    const frames = await t.platform.blobs.read(`orgs/${org.orgId}/nodes/${derivativeId}/reconstruction/frames.txt`);
    let text = '';
    for await (const chunk of frames) text += chunk;
    expect(Number(text.trim())).toBeGreaterThanOrEqual(30);
  });
});
