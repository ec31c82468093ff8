import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibraryModelRow } from '../../src/adapters/db/schema.js';
import { PREVIEW_LIBRARY_MODEL } from '../../src/domain/processing/jobs.js';
import type { Platform } from '../../src/platform.js';
import type { BlobStore } from '../../src/ports/blob-store.js';
import { eventually } from '../jobs/support/job-stores.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { previewJob } from '../support/library-models.js';
import { checkedPreview, checkedThumbnail } from '../support/model-checks.js';
import { boxObj, boxPly, boxStlBinary } from '../support/model-samples.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { BLOB_BACKENDS, type BlobBackend } from '../support/uploads.js';

async function bytesOf(blobs: BlobStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await blobs.read(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The preview job as the worker runs it, on the suite's store and each blob store: a model row
 * in `processing` with its original in the blob store (as finalize leaves it; the model routes
 * are another branch's), the job enqueued, the row and blobs read back.
 */
describe.each(BLOB_BACKENDS.filter((backend) => backend.available))('the library model preview job on $name', (backend) => {
  let blobStore: Awaited<ReturnType<BlobBackend['start']>>;
  let t: TestPlatform;
  let org: OrgFixture;

  beforeAll(async () => {
    blobStore = await backend.start();
    t = await startPlatform(blobStore.env, { worker: true });
    org = await createOrg(t);
  });
  afterAll(async () => {
    await t.close();
    await blobStore.stop();
  });

  const db = () => t.platform.region(org.region).store.db;
  const row = (id: string) => db().selectFrom('library_models').selectAll().where('id', '=', id).executeTakeFirst();

  /** A model as finalize leaves it: its original stored, `processing`, the format read from its bytes. */
  async function processingModel(format: string, bytes: Buffer, status: LibraryModelRow['status'] = 'processing') {
    const id = randomUUID();
    const key = `orgs/${org.orgId}/library/${id}/original`;
    await t.platform.blobs.write(key, bytes);
    const now = new Date().toISOString();
    await db()
      .insertInto('library_models')
      .values({
        id,
        org_id: org.orgId,
        name: `Model ${format}`,
        name_key: `model ${format}`,
        description: '',
        status,
        file_name: `model.${format}`,
        declared_bytes: bytes.length,
        reserved_bytes: 0,
        stored_bytes: bytes.length,
        blob_key: key,
        multipart_upload_id: null,
        upload_expires_at: null,
        etag: 'x',
        format,
        previewable: 1,
        preview_unavailable_reason: status === 'processing' ? 'Processing' : null,
        preview_blob_key: null,
        preview_bytes: null,
        thumbnail_blob_key: null,
        thumbnail_bytes: null,
        failure_reason: null,
        created_by: org.adminServiceUserId,
        updated_by: org.adminServiceUserId,
        created_at: now,
        updated_at: now,
        finalized_at: now,
      })
      .execute();
    return { id, prefix: `orgs/${org.orgId}/library/${id}/` };
  }

  /**
   * Runs the job and answers the row once the job is over and, for a failed job, its failure
   * hook has run (the worker records the job failed first, then calls the hook).
   */
  async function previewed(id: string): Promise<LibraryModelRow> {
    const { id: jobId } = await t.platform.jobs.enqueue(PREVIEW_LIBRARY_MODEL, { region: org.region, modelId: id });
    const job = await eventually(async () => {
      const found = await t.platform.jobs.get(jobId);
      return found && (found.state === 'succeeded' || found.state === 'failed') && found;
    }, 30_000);
    if (job.state === 'failed') await eventually(async () => (await row(id))?.status !== 'processing', 10_000);
    return (await row(id))!;
  }

  it.each([
    ['obj', () => Buffer.from(boxObj())],
    ['stl', boxStlBinary],
    ['ply', () => boxPly('binary')],
  ])('makes a %s model ready with a valid GLB preview and a PNG thumbnail beside its original', async (format, bytes) => {
    const { id, prefix } = await processingModel(format, bytes());
    const model = await previewed(id);
    expect(model).toMatchObject({
      status: 'ready',
      previewable: 1,
      preview_unavailable_reason: null,
      failure_reason: null,
      preview_blob_key: `${prefix}preview.glb`,
      thumbnail_blob_key: `${prefix}thumbnail.png`,
    });
    const glb = await bytesOf(t.platform.blobs, model.preview_blob_key!);
    const png = await bytesOf(t.platform.blobs, model.thumbnail_blob_key!);
    expect(Number(model.preview_bytes)).toBe(glb.length);
    expect(Number(model.thumbnail_bytes)).toBe(png.length);
    await checkedPreview(glb);
    checkedThumbnail(png, 0.25);
  });

  it('fails a model it cannot convert with a readable reason, and leaves no preview blobs', async () => {
    const { id, prefix } = await processingModel('obj', Buffer.from('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n'));
    const model = await previewed(id);
    expect(model).toMatchObject({
      status: 'failed',
      previewable: 0,
      preview_blob_key: null,
      thumbnail_blob_key: null,
      preview_bytes: null,
      thumbnail_bytes: null,
    });
    expect(model.failure_reason).toMatch(
      /^The OBJ file cannot be read: a face refers to vertex 7, but 3 vertices are defined before it/,
    );
    expect(await t.platform.blobs.head(`${prefix}preview.glb`)).toBeUndefined();
    expect(await t.platform.blobs.head(`${prefix}thumbnail.png`)).toBeUndefined();
    expect(await t.platform.blobs.head(`${prefix}original`)).toBeDefined();
  });

  it('leaves alone a model that is no longer processing, and one that is gone', async () => {
    const { id, prefix } = await processingModel('obj', Buffer.from(boxObj()), 'ready');
    const before = await row(id);
    expect(await previewed(id)).toEqual(before);
    expect(await t.platform.blobs.head(`${prefix}preview.glb`)).toBeUndefined();
    const gone = randomUUID();
    await previewed(gone);
    expect(await row(gone)).toBeUndefined();
  });

  it('when the watchdog fails the job (no heartbeat), the model fails and what the job wrote is queued for deletion', async () => {
    const { id, prefix } = await processingModel('obj', Buffer.from(boxObj()));
    // As if the job had written its preview when it stopped beating.
    await t.platform.blobs.write(`${prefix}preview.glb`, Buffer.from('partial'));
    const reason = 'no heartbeat for 120 seconds';
    // What the worker calls once the job is recorded failed: the kind's failure handling.
    const payload = { region: org.region, modelId: id };
    await previewJob(t.platform).onFailed?.(payload, reason);
    expect(await row(id)).toMatchObject({
      status: 'failed',
      failure_reason: reason,
      preview_blob_key: null,
      thumbnail_blob_key: null,
    });
    const queued = await db()
      .selectFrom('blob_deletions')
      .select('blob_key')
      .where('blob_key', 'like', `${prefix}%`)
      .orderBy('blob_key')
      .execute();
    expect(queued.map((deletion) => deletion.blob_key)).toEqual([`${prefix}preview.glb`, `${prefix}thumbnail.png`]);
    // A second report (the handler's own failure after the watchdog's) changes nothing.
    await previewJob(t.platform).onFailed?.(payload, 'another reason');
    expect((await row(id))?.failure_reason).toBe(reason);
  });

  it('does not bring back a model deleted while its preview runs, and removes the blobs it wrote', async () => {
    const { id, prefix } = await processingModel('obj', Buffer.from(boxObj()));
    // The model is deleted (row and original, as the model's DELETE does) when the job writes its first blob.
    const blobs: BlobStore = Object.create(t.platform.blobs, {
      write: {
        value: async (key: string, body: Parameters<BlobStore['write']>[1]) => {
          const written = await t.platform.blobs.write(key, body);
          if (await row(id)) {
            await db().deleteFrom('library_models').where('id', '=', id).execute();
            await t.platform.blobs.delete(`${prefix}original`);
          }
          return written;
        },
      },
    });
    const platform: Platform = Object.create(t.platform, { blobs: { value: blobs } });
    const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'rdp-preview-job-'));
    try {
      await previewJob(platform).handler(
        { region: org.region, modelId: id },
        {
          jobId: 'run-in-test',
          heartbeat: async () => undefined,
          signal: new AbortController().signal,
          workDir: async () => workDir,
        },
      );
    } finally {
      await fs.rm(workDir, { recursive: true, force: true });
    }
    expect(await row(id)).toBeUndefined();
    expect(await t.platform.blobs.head(`${prefix}preview.glb`)).toBeUndefined();
    expect(await t.platform.blobs.head(`${prefix}thumbnail.png`)).toBeUndefined();
  });
});
