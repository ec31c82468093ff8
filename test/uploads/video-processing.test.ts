import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../src/jobs/start-worker.js';
import { createOrg, createTree } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { bundleWithInput, sampleBytes } from '../support/uploads.js';
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
    const { bundleId, finalized } = await bundleWithInput(org.admin, siteId, '360 walk', { name: 'walk.mp4', bytes: video });
    expect(finalized.status).toBe(200);
    // The bundle's size includes its video input.
    expect(finalized.body).toMatchObject({ state: 'uploaded', size: video.length });
    const { cost } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
    expect((await org.admin.post(`/v1/bundles/${bundleId}/processing`, { cost })).status).toBe(202);
    let settled: any;
    // Each read of the processing while the bundle was processing: its state and its job's progress.
    const seen: { state: string; progress: number | null }[] = [];
    for (const started = Date.now(); Date.now() - started < 60_000; ) {
      settled = (await org.admin.get(`/v1/bundles/${bundleId}?expand=processings`)).body;
      if (settled.state !== 'processing') break;
      seen.push({ state: settled.processings[0].state, progress: settled.processings[0].progress });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { t, org, siteId, bundleId, settled, seen };
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
    // It takes a second, in which the API shows the job's progress (the key frames are made by then).
    const command =
      'reconstruct() { sleep 1; ls "$1" | wc -l > "$2/frames.txt" && echo "solid test" > "$2/model.stl"; }; reconstruct';
    const { t, org, siteId, bundleId, settled, seen } = await processedVideo({ RDP_RECONSTRUCTION_COMMAND: command });
    platforms.push(t);
    // Right after the start the job has reported nothing yet (null); then its progress shows.
    const reported = seen.filter((read) => read.state === 'running' && read.progress !== null);
    expect(reported.length).toBeGreaterThan(0);
    for (const read of reported) expect(read.progress).toBeGreaterThan(0);
    for (const read of reported) expect(read.progress).toBeLessThanOrEqual(1);
    expect(seen.filter((read) => read.state === 'queued').every((read) => read.progress === null)).toBe(true);
    expect(settled.processings[0].progress).toBeNull();
    expect(settled.processings[0].failureReason).toBeNull();
    expect(settled).toMatchObject({ state: 'ready', isFailed: false, isProcessing: false });
    const derivativeId = settled.processings[0].derivativeId as string;
    const derivative = await org.admin.get(`/v1/nodes/${derivativeId}`);
    expect(derivative.body).toMatchObject({ type: 'mesh' });
    expect(derivative.body.sources.map((source: { id: string }) => source.id)).toEqual([bundleId]);
    const frames = await t.platform.blobs.read(`orgs/${org.orgId}/nodes/${derivativeId}/reconstruction/frames.txt`);
    let text = '';
    for await (const chunk of frames) text += chunk;
    expect(Number(text.trim())).toBeGreaterThanOrEqual(30);
    // A mesh node, but no tileset: the reconstruction's files are its own (docs/twins.md, "Layers").
    expect(settled.processings[0].tilesetUrl).toBeNull();
    const { components } = (await org.admin.get(`/v1/bundles/${bundleId}?expand=components`)).body;
    expect(components.find((component: { role: string }) => component.role === 'output')).toMatchObject({
      id: derivativeId,
      tilesetUrl: null,
    });
    expect((await org.admin.get(`/v1/nodes/${derivativeId}/tiles/tileset.json`)).status).toBe(404);
    const layer = await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${bundleId}`);
    expect(layer.status).toBe(409);
    expect(layer.body.error).toBe('DataBundleHasNoTileset');
  });

  it('warns when the worker starts, naming the Debian package, when ffprobe cannot be run', async () => {
    const t = await startPlatform();
    platforms.push(t);
    const withPath = async (searched: string | undefined) => {
      const warned: { object: object; message: string }[] = [];
      const log = {
        info: () => undefined,
        warn: (object: object, message: string) => warned.push({ object, message }),
        error: () => undefined,
      };
      const saved = process.env.PATH;
      process.env.PATH = searched;
      try {
        await (await startWorker(t.platform, log)).stop();
      } finally {
        process.env.PATH = saved;
      }
      return warned;
    };
    const empty = await mkdtemp(path.join(tmpdir(), 'rdp-no-tools-'));
    try {
      expect(await withPath(empty)).toEqual([
        { object: { missing: ['ffprobe', 'ffmpeg'] }, message: expect.stringMatching(/ffprobe.*Debian package ffmpeg/) },
      ]);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
    expect(await withPath(process.env.PATH)).toEqual([]);
  });
});
