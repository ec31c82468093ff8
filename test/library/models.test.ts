import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { libraryModelOriginalKey } from '../../src/domain/library/models.js';
import { PREVIEW_LIBRARY_MODEL } from '../../src/domain/processing/jobs.js';
import { collectUploads } from '../../src/jobs/housekeeping.js';
import { type ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import { generatedObjPart, triangleObj, uploadGenerated } from '../support/library-models.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { BLOB_BACKENDS, uploadBytes } from '../support/uploads.js';
import { LIBRARY_TEST_ENV, libraryClient, modelRow, modelSnapshot, UUID, uniqueName } from './model-support.js';

const FBX = Buffer.concat([
  Buffer.from('Kaydara FBX Binary  \u0000'),
  Buffer.from([0x1a, 0x00, 0xe8, 0x1c, 0x00, 0x00]),
  Buffer.alloc(64),
]);
const MIB = 1024 * 1024;

describe.each(BLOB_BACKENDS)('asset library models on $name: create, upload, finalize', (backend) => {
  let t: TestPlatform;
  let org: OrgFixture;
  let admin: ApiClient;
  let adminId: string;
  let stopBackend: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    if (!backend.available) return;
    const started = await backend.start();
    stopBackend = started.stop;
    t = await startPlatform({ ...started.env, ...LIBRARY_TEST_ENV });
    org = await createOrg(t);
    ({ client: admin, userId: adminId } = await libraryClient(org, 'Organization Administrator'));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await stopBackend();
  });

  /** Sends a request that must be refused, checks its answer and that nothing was stored. */
  const refused = refuser(() => modelSnapshot(t, org));

  async function create(body: Record<string, unknown> = {}, client = admin) {
    const response = await client.post('/v1/asset-library/models', {
      name: uniqueName('Pump'),
      fileName: 'pump.obj',
      size: 10,
      ...body,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  /** Creates a model of these bytes and uploads them: the model and the ETag the upload returned. */
  async function uploaded(bytes: Buffer, body: Record<string, unknown> = {}) {
    const model = await create({ size: bytes.length, ...body });
    const { etag, expected } = await uploadBytes(model, bytes);
    expect(etag).toBe(expected);
    return { model, etag };
  }

  async function activeJobs() {
    const { queued, running } = await t.platform.jobs.countByState();
    return queued + running;
  }

  it.skipIf(!backend.available)(
    'creates a model (201) with its upload address, reads it back, records library-model.created',
    async () => {
      const created = await admin.post('/v1/asset-library/models', {
        name: 'Centrifugal pump',
        description: 'Line 3',
        fileName: 'pump.obj',
        size: 1234,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Centrifugal pump',
        description: 'Line 3',
        status: 'pendingUpload',
        file: { name: 'pump.obj', size: 1234, format: null, etag: null },
        previewable: false,
        previewUnavailableReason: null,
        thumbnailUrl: null,
        tags: [],
        createdBy: adminId,
        createdAt: expect.any(String),
        updatedAt: created.body.createdAt,
        uploadUrl: expect.any(String),
        expiresAt: expect.any(String),
      });
      expect(Date.parse(created.body.expiresAt) - Date.parse(created.body.createdAt)).toBe(600_000);
      const { uploadUrl, expiresAt, tags, ...model } = created.body;
      expect((await admin.get(`/v1/asset-library/models/${model.id}`)).body).toEqual(model);
      expect((await admin.get(`/v1/asset-library/models/${model.id}?includeTags=true`)).body).toEqual({ ...model, tags: [] });
      const row = await modelRow(t, org, model.id);
      expect(row).toMatchObject({ status: 'pendingUpload', declared_bytes: 1234, reserved_bytes: 1234 });
      expect(Number(row?.reserved_bytes)).toBe(1234);
      const audit = await t.platform.regions[org.region].store.db
        .selectFrom('audit_events')
        .selectAll()
        .where('target_id', '=', model.id)
        .execute();
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ action: 'library-model.created', target_type: 'library-model', actor_id: adminId });
      expect(JSON.parse(audit[0]?.details ?? '{}')).toEqual({
        name: 'Centrifugal pump',
        fileName: 'pump.obj',
        size: 1234,
        tagIds: [],
      });
      // A description is optional: empty when not given.
      expect((await create()).description).toBe('');
    },
  );

  it.skipIf(!backend.available)(
    'finalizes a previewable model: processing, one preview job queued, idempotent after',
    async () => {
      const bytes = triangleObj('finalize');
      const { model, etag } = await uploaded(bytes, { fileName: 'named-as.stl' });
      const jobsBefore = await activeJobs();
      t.clock.advance(1000);
      const finalized = await admin.post(`/v1/asset-library/models/${model.id}/finalize`, { etag: `"${etag}"` });
      expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
      const { uploadUrl, expiresAt, tags, ...before } = model;
      expect(finalized.body).toEqual({
        ...before,
        status: 'processing',
        // The format is the bytes', never the name's.
        file: { name: 'named-as.stl', size: bytes.length, format: 'obj', etag },
        previewable: true,
        previewUnavailableReason: 'Processing',
        updatedAt: expect.any(String),
      });
      expect(finalized.body.updatedAt > model.updatedAt).toBe(true);
      expect((await admin.get(`/v1/asset-library/models/${model.id}`)).body).toEqual(finalized.body);
      expect(await modelRow(t, org, model.id)).toMatchObject({
        reserved_bytes: 0,
        upload_expires_at: null,
        multipart_upload_id: null,
      });

      // One job of the preview's kind, keyed by the model: enqueuing it again finds it.
      expect(await activeJobs()).toBe(jobsBefore + 1);
      const again = await t.platform.jobs.enqueue(
        PREVIEW_LIBRARY_MODEL,
        { region: org.region, modelId: model.id },
        { singletonKey: model.id },
      );
      expect(again.created).toBe(false);
      const job = await t.platform.jobs.get(again.id);
      expect(job).toMatchObject({
        kind: 'preview-library-model',
        payloadVersion: 1,
        payload: { region: org.region, modelId: model.id },
      });

      // Finalize again: the same model, no second job, no second audit event.
      const repeated = await admin.post(`/v1/asset-library/models/${model.id}/finalize`, { etag });
      expect(repeated.status).toBe(200);
      expect(repeated.body).toEqual(finalized.body);
      expect(await activeJobs()).toBe(jobsBefore + 1);
      const events = await t.platform.regions[org.region].store.db
        .selectFrom('audit_events')
        .select(['action', 'details'])
        .where('target_id', '=', model.id)
        .where('action', '=', 'library-model.finalized')
        .execute();
      expect(events).toHaveLength(1);
      expect(JSON.parse(events[0]?.details ?? '{}')).toEqual({
        format: 'obj',
        size: bytes.length,
        etag,
        status: 'processing',
        previewUnavailableReason: 'Processing',
      });
    },
  );

  it.skipIf(!backend.available)(
    'answers 409 FailedToLaunchProcessing when the job cannot be queued; finalizing again queues it',
    async () => {
      const { model, etag } = await uploaded(triangleObj('queue down'));
      const jobsBefore = await activeJobs();
      const enqueue = t.platform.jobs.enqueue;
      t.platform.jobs.enqueue = async () => {
        throw new Error('queue unavailable');
      };
      try {
        const failed = await admin.post(`/v1/asset-library/models/${model.id}/finalize`, { etag });
        expect(failed.status, JSON.stringify(failed.body)).toBe(409);
        expect(failed.body).toMatchObject({
          error: 'FailedToLaunchProcessing',
          message: expect.stringMatching(/finalize again/),
        });
      } finally {
        t.platform.jobs.enqueue = enqueue;
      }
      // The bytes were checked and recorded; the job is what is missing.
      expect((await modelRow(t, org, model.id))?.status).toBe('processing');
      expect(await activeJobs()).toBe(jobsBefore);
      const again = await admin.post(`/v1/asset-library/models/${model.id}/finalize`, { etag });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.status).toBe('processing');
      expect(await activeJobs()).toBe(jobsBefore + 1);
      expect((await admin.post(`/v1/asset-library/models/${model.id}/finalize`, { etag })).status).toBe(200);
      expect(await activeJobs()).toBe(jobsBefore + 1);
    },
  );

  it.skipIf(!backend.available)(
    'finalizes a model of another format as ready without a preview (UnsupportedFormat), no job',
    async () => {
      const { model, etag } = await uploaded(FBX, { fileName: 'motor.obj' });
      const jobsBefore = await activeJobs();
      const finalized = await admin.post(`/v1/asset-library/models/${model.id}/finalize`, { etag });
      expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
      expect(finalized.body).toMatchObject({
        status: 'ready',
        file: { name: 'motor.obj', size: FBX.length, format: 'fbx', etag },
        previewable: false,
        previewUnavailableReason: 'UnsupportedFormat',
        thumbnailUrl: null,
      });
      expect(await activeJobs()).toBe(jobsBefore);
    },
  );

  it.skipIf(!backend.available)(
    'refuses a missing, empty, short, malformed or wrong ETag and an incomplete upload with 400; nothing changes',
    async () => {
      const bytes = triangleObj('etags');
      const model = await create({ size: bytes.length });
      const path = `/v1/asset-library/models/${model.id}/finalize`;
      // Nothing uploaded yet: the ETag is right in form but the upload is not complete.
      await refused(() => admin.post(path, { etag: 'a'.repeat(32) }), 400, 'ValidationError', /not complete/);
      const { etag } = await uploadBytes(model, bytes);
      await refused(() => admin.post(path, {}), 400, 'ValidationError', /etag is required/);
      await refused(() => admin.post(path), 400, 'ValidationError');
      await refused(() => admin.post(path, { etag: '' }), 400, 'ValidationError', /etag/);
      await refused(() => admin.post(path, { etag: etag.slice(0, 31) }), 400, 'ValidationError', /S3-style ETag/);
      await refused(() => admin.post(path, { etag: `${etag.slice(0, 31)}z` }), 400, 'ValidationError', /S3-style ETag/);
      await refused(() => admin.post(path, { etag: `${etag}-0` }), 400, 'ValidationError', /S3-style ETag/);
      await refused(() => admin.post(path, { etag: 7 }), 400, 'ValidationError', /etag/);
      await refused(() => admin.post(path, { etag: 'f'.repeat(32) }), 400, 'ValidationError', /does not match/);
      await refused(() => admin.post(path, { etag: `${'f'.repeat(32)}-2` }), 400, 'ValidationError', /does not match/);
      await refused(() => admin.post(path, { etag, extra: 1 }), 400, 'ValidationError');
      expect((await modelRow(t, org, model.id))?.status).toBe('pendingUpload');
      const finalized = await admin.post(path, { etag: etag.toUpperCase() });
      expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
      expect(finalized.body.status).toBe('processing');
    },
  );

  it.skipIf(!backend.available)(
    'refuses bytes of no library format with 400 FileNotCompatible; the model stays pendingUpload for a corrected PUT',
    async () => {
      const good = triangleObj('corrected');
      const bad = Buffer.alloc(good.length, 'x');
      const model = await create({ size: good.length, fileName: 'looks-fine.obj' });
      const { etag: badEtag } = await uploadBytes(model, bad);
      const path = `/v1/asset-library/models/${model.id}/finalize`;
      await refused(() => admin.post(path, { etag: badEtag }), 400, 'FileNotCompatible', /none of the library's formats/);
      expect(await modelRow(t, org, model.id)).toMatchObject({ status: 'pendingUpload', format: null, etag: null });
      // The same signed address takes the corrected bytes until it expires.
      const { etag } = await uploadBytes(model, good);
      const finalized = await admin.post(path, { etag });
      expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
      expect(finalized.body).toMatchObject({ status: 'processing', file: { format: 'obj', etag } });
    },
  );

  it.skipIf(!backend.available)(
    'uploads a large model in parts (parts, partSize) and finalizes it with the multipart ETag',
    async () => {
      const size = 6 * MIB + 123;
      const model = await create({ size, fileName: 'big.obj' });
      expect(model.uploadUrl).toBeUndefined();
      expect(model.partSize).toBe(5 * MIB);
      expect(model.parts).toHaveLength(2);
      const etag = await uploadGenerated(model, size, (start, length) => generatedObjPart(size, start, length));
      expect(etag).toMatch(/-2$/);
      const finalized = await admin.post(`/v1/asset-library/models/${model.id}/finalize`, { etag });
      expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
      expect(finalized.body).toMatchObject({ status: 'processing', file: { size, format: 'obj', etag } });
    },
  );

  it.skipIf(!backend.available)(
    "shows a failed preview's reason (set by the worker); finalize answers it as it is, no job",
    async () => {
      const { model, etag } = await uploaded(triangleObj('fails'));
      expect((await admin.post(`/v1/asset-library/models/${model.id}/finalize`, { etag })).status).toBe(200);
      await t.platform.regions[org.region].store.db
        .updateTable('library_models')
        .set({ status: 'failed', failure_reason: 'The OBJ has no faces', preview_unavailable_reason: null })
        .where('id', '=', model.id)
        .execute();
      const jobsBefore = await activeJobs();
      const read = await admin.get(`/v1/asset-library/models/${model.id}`);
      expect(read.body).toMatchObject({ status: 'failed', failureReason: 'The OBJ has no faces', previewable: true });
      const again = await admin.post(`/v1/asset-library/models/${model.id}/finalize`, { etag });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(read.body);
      expect(await activeJobs()).toBe(jobsBefore);
    },
  );

  it.skipIf(!backend.available)("answers 404 for a missing model or another organization's, and leaves it alone", async () => {
    const other = await createOrg(t);
    const otherAdmin = await libraryClient(other, 'Organization Administrator');
    const theirs = await create({}, otherAdmin.client);
    for (const id of [randomUUID(), theirs.id]) {
      await refused(() => admin.get(`/v1/asset-library/models/${id}`), 404, 'Not Found');
      await refused(() => admin.patch(`/v1/asset-library/models/${id}`, { name: 'x' }), 404, 'Not Found');
      await refused(() => admin.post(`/v1/asset-library/models/${id}/finalize`, { etag: 'a'.repeat(32) }), 404, 'Not Found');
      await refused(() => admin.delete(`/v1/asset-library/models/${id}`), 404, 'Not Found');
      await refused(() => admin.get(`/v1/asset-library/models/${id}/thumbnail`), 404, 'Not Found');
    }
    expect((await otherAdmin.client.get(`/v1/asset-library/models/${theirs.id}`)).body.status).toBe('pendingUpload');
  });

  it.skipIf(!backend.available)(
    'forgets an upload never finalized at its expiry: 404, quota free, and the housekeeping removes row, tags and bytes',
    async () => {
      const own = await createOrg(t, { storageQuota: 100 });
      const { client } = await libraryClient(own, 'Organization Administrator');
      const tag = (await client.post('/v1/asset-library/tags', { name: uniqueName() })).body;
      const bytes = triangleObj('expires');
      const model = await create({ size: bytes.length, tagIds: [tag.id] }, client);
      const { etag } = await uploadBytes(model, bytes);
      expect((await client.post('/v1/asset-library/models', { name: 'x', fileName: 'x.obj', size: 100 })).status).toBe(403);
      t.clock.advance(601_000);
      expect((await client.get(`/v1/asset-library/models/${model.id}`)).status).toBe(404);
      expect((await client.post(`/v1/asset-library/models/${model.id}/finalize`, { etag })).status).toBe(404);
      expect((await client.get('/v1/asset-library/models')).body).toEqual([]);
      // Its reservation no longer counts.
      const full = await client.post('/v1/asset-library/models', { name: 'x', fileName: 'x.obj', size: 100 });
      expect(full.status, JSON.stringify(full.body)).toBe(201);
      const db = t.platform.regions[own.region].store.db;
      expect(await modelRow(t, own, model.id)).toBeDefined();
      await collectUploads(t.platform);
      expect(await modelRow(t, own, model.id)).toBeUndefined();
      expect(await db.selectFrom('library_model_tags').selectAll().where('model_id', '=', model.id).execute()).toEqual([]);
      expect(await t.platform.blobs.head(libraryModelOriginalKey(own.orgId, model.id))).toBeUndefined();
      expect((await client.get(`/v1/asset-library/tags/${tag.id}`)).body.modelCount).toBe(0);
    },
  );
});
