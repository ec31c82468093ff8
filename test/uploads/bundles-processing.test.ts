import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, createTree, expectNoInternals, type OrgFixture, snapshot } from '../support/fixtures.js';
import { writeLaz } from '../support/laz-writer.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeE57, writeLas, writePly, writePts, writeXyz } from '../support/point-cloud-samples.js';
import { rdpAdmin } from '../support/rdp-cli.js';
import { BLOB_BACKENDS, type BlobBackend, sampleBytes, uploadBytes } from '../support/uploads.js';
import { writeTestVideo } from '../support/video-samples.js';

/** A real PNG of one pixel. */
const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** Polls until the bundle leaves `processing`, or gives up after `ms`. */
async function settled(org: OrgFixture, bundleId: string, ms = 60_000) {
  const started = Date.now();
  for (;;) {
    const bundle = await org.admin.get(`/v1/bundles/${bundleId}?expand=processings,components,thumbnail`);
    if (bundle.body.state !== 'processing' || Date.now() - started > ms) return bundle.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(BLOB_BACKENDS.filter((backend) => backend.available))(
  'data bundles: upload sessions, the input component, processing into a derivative, on $name',
  (backend) => {
    let blobStore: Awaited<ReturnType<BlobBackend['start']>>;
    let t: TestPlatform;
    let org: OrgFixture;
    let siteId: string;
    let las: Buffer;

    beforeAll(async () => {
      blobStore = await backend.start();
      t = await startPlatform(blobStore.env, { worker: true });
      org = await createOrg(t, { storageQuota: 10 * 1024 * 1024 });
      ({ siteId } = await createTree(org));
      las = await sampleBytes((file) => writeLas(file, 3_000));
    });
    afterAll(async () => {
      await t.close();
      await blobStore.stop();
    });

    /** A bundle whose open session holds these files, uploaded, with where each was sent. */
    async function uploadedSession(name: string, files: { name: string; bytes: Buffer }[]) {
      const bundle = await org.admin.post(`/v1/nodes/${siteId}/bundle`, { name });
      expect(bundle.status).toBe(201);
      const session = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions`);
      expect(session.status).toBe(201);
      const etags = [];
      const targets = [];
      for (const file of files) {
        const added = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/files`, {
          name: file.name,
          size: file.bytes.length,
        });
        expect(added.status).toBe(201);
        const { etag } = await uploadBytes(added.body, file.bytes);
        etags.push({ id: added.body.id, etag });
        targets.push(added.body);
      }
      const sessionPath = `/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}`;
      return { bundleId: bundle.body.id as string, sessionId: session.body.id as string, sessionPath, etags, targets };
    }

    /** A bundle whose session holds these files, uploaded and finalized. */
    async function uploadedBundle(name: string, files: { name: string; bytes: Buffer }[]) {
      const { bundleId, sessionId, sessionPath, etags } = await uploadedSession(name, files);
      const finalized = await org.admin.post(`${sessionPath}/finalize`, { files: etags });
      return { bundleId, sessionId, finalized };
    }

    it('creates a bundle with its dbuPath, and makes a finalized session its one input component', async () => {
      const { bundleId, sessionId, finalized } = await uploadedBundle('Scan A', [{ name: 'scan.las', bytes: las }]);
      expect(finalized.status).toBe(200);
      expect(finalized.body).toMatchObject({ id: bundleId, state: 'uploaded', size: las.length });
      expect(finalized.body.dbuPath).toMatch(new RegExp(`${bundleId}/$`));
      expect(finalized.body.components).toEqual([
        expect.objectContaining({
          id: sessionId,
          role: 'input',
          format: 'las',
          size: las.length,
          files: [expect.objectContaining({ name: 'scan.las', state: 'uploaded' })],
        }),
      ]);
      const second = await org.admin.post(`/v1/bundles/${bundleId}/upload-sessions`);
      expect(second.status).toBe(409);
      expect(second.body.error).toBe('BundleInputAlreadyExists');
      const unknown = await org.admin.get(`/v1/bundles/${bundleId}?expand=everything`);
      expect(unknown.status).toBe(400);
    });

    it('refuses sessions and files beyond the quota with 403 StorageLimitExceeded, storing nothing', async () => {
      const bundle = await org.admin.post(`/v1/nodes/${siteId}/bundle`, { name: 'Too big' });
      const session = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions`);
      const before = await snapshot(t, org);
      const refused = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/files`, {
        name: 'huge.e57',
        size: 11 * 1024 * 1024,
      });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ statusCode: 403, error: 'StorageLimitExceeded' });
      expect(await snapshot(t, org)).toEqual(before);

      const full = await createOrg(t, { storageQuota: 0 });
      const { siteId: fullSite } = await createTree(full);
      const fullBundle = await full.admin.post(`/v1/nodes/${fullSite}/bundle`, { name: 'No room' });
      const fullBefore = await snapshot(t, full);
      const noSession = await full.admin.post(`/v1/bundles/${fullBundle.body.id}/upload-sessions`);
      expect(noSession.status).toBe(403);
      expect(noSession.body.error).toBe('StorageLimitExceeded');
      expect(await snapshot(t, full)).toEqual(fullBefore);
    });

    it('refuses processing without input, and with a stale cost, with their 409 codes, storing nothing', async () => {
      const empty = await org.admin.post(`/v1/nodes/${siteId}/bundle`, { name: 'Empty' });
      const before = await snapshot(t, org);
      expect((await org.admin.get(`/v1/bundles/${empty.body.id}/processing/cost`)).body.error).toBe(
        'NoInputDataFoundForProcessing',
      );
      const noInput = await org.admin.post(`/v1/bundles/${empty.body.id}/processing`, { cost: 1 });
      expect(noInput.status).toBe(409);
      expect(noInput.body.error).toBe('NoInputDataFoundForProcessing');

      const { bundleId } = await uploadedBundle('Priced', [{ name: 'scan.las', bytes: las }]);
      const cost = await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`);
      expect(cost.status).toBe(200);
      expect(cost.body).toMatchObject({ bundleId, inputBytes: las.length, fileCount: 1, format: 'las' });
      expect((await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body.cost).toBe(cost.body.cost);
      const afterUpload = await snapshot(t, org);
      const mismatch = await org.admin.post(`/v1/bundles/${bundleId}/processing`, { cost: cost.body.cost + 1 });
      expect(mismatch.status).toBe(409);
      expect(mismatch.body.error).toBe('ProcessingCostMismatch');
      expect(await snapshot(t, org)).toEqual(afterUpload);
      expect(before.processings).toEqual(afterUpload.processings);
    });

    it('processes a LAS input into a linked point-cloud derivative with 3D Tiles and a thumbnail, once per Idempotency-Key', async () => {
      const { bundleId } = await uploadedBundle('Survey', [{ name: 'survey.las', bytes: las }]);
      const { cost } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
      const submit = () =>
        org.admin.request('POST', `/v1/bundles/${bundleId}/processing`, { cost }, { 'idempotency-key': 'survey-1' });
      // Two at once: one starts it; the other answers the same processing, or 409 IdempotencyKeyInUse
      // when it came while the first one's job was still being queued (docs/uploads.md, "Processing").
      const answers = await Promise.all([submit(), submit()]);
      const [first, other] = answers[0].status === 202 ? answers : [answers[1], answers[0]];
      expect(first.status).toBe(202);
      if (other.status === 202) expect(other.body.id).toBe(first.body.id);
      else expect({ status: other.status, error: other.body.error }).toEqual({ status: 409, error: 'IdempotencyKeyInUse' });
      const retry = await submit();
      expect(retry.status).toBe(202);
      expect(retry.body.id).toBe(first.body.id);
      expect(first.body).toMatchObject({ bundleId, cost });

      // Processing blocks deletion (or it is already done: then the derivative does).
      const deleting = await org.admin.delete(`/v1/nodes/${bundleId}`);
      expect(deleting.status).toBe(409);
      expect(['NodeNotInDeletableState', 'NodeHasDerivatives']).toContain(deleting.body.error);

      const bundle = await settled(org, bundleId);
      expect(bundle.state).toBe('ready');
      expect(bundle.processings).toHaveLength(1);
      expect(bundle.processings[0]).toMatchObject({ id: first.body.id, state: 'succeeded' });
      const derivativeId = bundle.processings[0].derivativeId as string;
      expect(bundle.components).toContainEqual(expect.objectContaining({ id: derivativeId, role: 'output' }));
      expect(bundle.thumbnail).toMatchObject({ contentType: 'image/png' });
      const derivative = await org.admin.get(`/v1/nodes/${derivativeId}`);
      expect(derivative.body).toMatchObject({ type: 'pointCloud', parentId: siteId });
      expect(derivative.body.sources.map((source: { id: string }) => source.id)).toEqual([bundleId]);
      const thumbnail = await fetch(`${t.regionUrl(org.region)}/v1/nodes/${derivativeId}/thumbnail`, {
        headers: { authorization: `Bearer ${org.admin.token}` },
      });
      expect(thumbnail.status).toBe(200);
      expect(
        Buffer.from(await thumbnail.arrayBuffer())
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
      const tileset = await t.platform.blobs.read(`orgs/${org.orgId}/nodes/${derivativeId}/tileset.json`);
      const chunks: Buffer[] = [];
      for await (const chunk of tileset) chunks.push(chunk as Buffer);
      expect(JSON.parse(Buffer.concat(chunks).toString()).asset.version).toBe('1.1');

      const blocked = await org.admin.delete(`/v1/nodes/${bundleId}`);
      expect(blocked.status).toBe(409);
      expect(blocked.body).toMatchObject({
        error: 'NodeHasDerivatives',
        derivatives: [expect.objectContaining({ id: derivativeId })],
      });
    });

    it.each([
      { name: 'plan.pdf', bytes: Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n%%EOF\n') },
      { name: 'photo.png', bytes: Buffer.from(ONE_PIXEL_PNG, 'base64') },
      { name: 'notes.txt', bytes: Buffer.from('no points here\n') },
      { name: 'capture.bin', bytes: randomBytes(5_000) },
    ])('refuses $name at finalize with 400 FileNotCompatible naming what processing reads, storing nothing', async (file) => {
      const { sessionPath, etags } = await uploadedSession(`Unreadable ${file.name}`, [file]);
      const before = await snapshot(t, org);
      const refused = await org.admin.post(`${sessionPath}/finalize`, { files: etags });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ statusCode: 400, error: 'FileNotCompatible' });
      expect(refused.body.message).toContain(file.name);
      for (const format of ['LAS', 'LAZ', 'PLY', 'E57', 'XYZ', 'PTS', 'MP4']) expect(refused.body.message).toContain(format);
      expectNoInternals(refused.body);
      expect(await snapshot(t, org)).toEqual(before);
      expect((await org.admin.get(sessionPath)).body).toMatchObject({ state: 'open', files: [{ state: 'uploading' }] });
    });

    it('finalizes a refused session once its file is replaced by a point cloud', async () => {
      const unreadable = randomBytes(las.length);
      const { sessionPath, etags, targets } = await uploadedSession('Replaced', [{ name: 'capture', bytes: unreadable }]);
      expect((await org.admin.post(`${sessionPath}/finalize`, { files: etags })).body.error).toBe('FileNotCompatible');
      const { etag } = await uploadBytes(targets[0], las);
      const finalized = await org.admin.post(`${sessionPath}/finalize`, { files: [{ id: etags[0]?.id, etag }] });
      expect(finalized.status).toBe(200);
      expect(finalized.body).toMatchObject({
        state: 'uploaded',
        size: las.length,
        components: [{ role: 'input', format: 'las' }],
      });
    });

    it('fails a processing whose input cannot be processed, sets isFailed, and blocks deletion', async () => {
      // A video too short for the spec's limits: finalize reads it as a video, processing refuses it.
      const short = await sampleBytes((file) => writeTestVideo(file, 2, 15), '.mp4');
      const { bundleId } = await uploadedBundle('Short', [{ name: 'short.mp4', bytes: short }]);
      const { cost } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
      expect((await org.admin.post(`/v1/bundles/${bundleId}/processing`, { cost })).status).toBe(202);
      const bundle = await settled(org, bundleId);
      expect(bundle).toMatchObject({ state: 'failed', isFailed: true, isProcessing: false });
      expect(bundle.processings[0].state).toBe('failed');
      expect(bundle.processings[0].failureReason).toMatch(/point cloud|video/i);
      const refused = await org.admin.delete(`/v1/nodes/${bundleId}`);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: 'NodeNotInDeletableState', isFailed: true });
    });

    it('holds an organization to its processing slots (rdp admin), and reports its storage use', async () => {
      const { bundleId } = await uploadedBundle('Waiting', [{ name: 'wait.las', bytes: las }]);
      const { cost } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
      expect(await rdpAdmin(t, 'org', 'set-processing-slots', '--org', org.orgId, '--slots', '0')).toMatchObject({
        processingSlots: 0,
      });
      const before = await snapshot(t, org);
      const refused = await org.admin.post(`/v1/bundles/${bundleId}/processing`, { cost });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('InsufficientProcessingCapacity');
      expect(await snapshot(t, org)).toEqual(before);
      await rdpAdmin(t, 'org', 'set-processing-slots', '--org', org.orgId, '--slots', 'unlimited');

      const use = await rdpAdmin(t, 'org', 'storage', '--org', org.orgId);
      expect(use).toMatchObject({ id: org.orgId, storageQuota: 10 * 1024 * 1024, processingSlots: null });
      expect(use.activeBytes).toBeGreaterThanOrEqual(las.length * 4);
      expect(use.usedBytes).toBe(use.activeBytes + use.reservedBytes);
    });

    it('answers 409 FailedToLaunchProcessing when the queue cannot take the job, storing nothing', async () => {
      const { bundleId } = await uploadedBundle('Unlaunched', [{ name: 'unlaunched.las', bytes: las }]);
      const { cost } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
      const before = await snapshot(t, org);
      const enqueue = t.platform.jobs.enqueue.bind(t.platform.jobs);
      // The queue's store refusing the job, as an unreachable database would.
      t.platform.jobs.enqueue = async () => {
        throw new Error('connection refused');
      };
      try {
        const refused = await org.admin.post(`/v1/bundles/${bundleId}/processing`, { cost });
        expect(refused.status).toBe(409);
        expect(refused.body.error).toBe('FailedToLaunchProcessing');
      } finally {
        t.platform.jobs.enqueue = enqueue;
      }
      expect(await snapshot(t, org)).toEqual(before);
      expect((await org.admin.post(`/v1/bundles/${bundleId}/processing`, { cost })).status).toBe(202);
    });

    it.each([
      { name: 'scan.laz', write: (file: string) => writeLaz(file, 2_000) },
      { name: 'scan.e57', write: (file: string) => writeE57(file, 2_000) },
      { name: 'scan.ply', write: (file: string) => writePly(file, 2_000, 'binary_little_endian') },
      { name: 'scan.xyz', write: (file: string) => writeXyz(file, 2_000) },
      { name: 'scan.pts', write: (file: string) => writePts(file, 2_000) },
    ])('processes $name into a point-cloud derivative', async ({ name, write }) => {
      const { bundleId } = await uploadedBundle(`Format ${name}`, [{ name, bytes: await sampleBytes(write) }]);
      const { cost } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
      expect((await org.admin.post(`/v1/bundles/${bundleId}/processing`, { cost })).status).toBe(202);
      const bundle = await settled(org, bundleId);
      expect(bundle.processings[0].failureReason).toBeNull();
      expect(bundle.state).toBe('ready');
      const derivative = await org.admin.get(`/v1/nodes/${bundle.processings[0].derivativeId}`);
      expect(derivative.body.type).toBe('pointCloud');
    });
  },
);
