import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectUploads } from '../../src/jobs/housekeeping.js';
import { createOrg, createTree, expectNoInternals, type OrgFixture, snapshot } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { BLOB_BACKENDS, type BlobBackend, uploadBytes } from '../support/uploads.js';

const MIB = 1024 * 1024;

describe.each(BLOB_BACKENDS.filter((backend) => backend.available))('attachments on twin objects, on $name', (backend) => {
  let blobStore: Awaited<ReturnType<BlobBackend['start']>>;
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  let folderId: string;
  const pdf = Buffer.from('%PDF-1.7\n% a small but real header\n');

  beforeAll(async () => {
    blobStore = await backend.start();
    t = await startPlatform({ ...blobStore.env, RDP_UPLOAD_PART_SIZE_BYTES: String(5 * MIB) });
    org = await createOrg(t, { storageQuota: 1_000 });
    ({ siteId, folderId } = await createTree(org));
  });
  afterAll(async () => {
    await t.close();
    await blobStore.stop();
  });

  const initiate = (body: Record<string, unknown>, contextId = siteId) =>
    org.admin.post(`/v1/twin/${contextId}/object/attachments`, body);

  it('uploads, finalizes, lists and downloads an attachment; its bytes count on the site', async () => {
    const initiated = await initiate({ objectId: 'pump-7', name: 'manual.pdf', size: pdf.length });
    expect(initiated.status).toBe(201);
    expect(initiated.body).toMatchObject({ contextId: siteId, objectId: 'pump-7', name: 'manual.pdf', state: 'uploading' });
    expect(initiated.body).not.toHaveProperty('uploadId');
    const { etag } = await uploadBytes(initiated.body, pdf);
    const finalized = await org.admin.post(`/v1/twin/${siteId}/object/attachments/${initiated.body.id}/finalize`, { etag });
    expect(finalized.status).toBe(200);
    expect(finalized.body).toMatchObject({ id: initiated.body.id, state: 'ready', size: pdf.length, etag, format: 'pdf' });
    const listed = await org.admin.get(`/v1/twin/${siteId}/object/pump-7/attachments`);
    expect(listed.body).toEqual([finalized.body]);
    const download = await fetch(
      `${t.regionUrl(org.region)}/v1/twin/${siteId}/object/attachments/${initiated.body.id}/download`,
      {
        headers: { authorization: `Bearer ${org.admin.token}`, range: 'bytes=0-4' },
      },
    );
    expect(download.status).toBe(206);
    expect(await download.text()).toBe('%PDF-');
    const site = await t.platform.regions[org.region].nodes.findById(siteId);
    expect(site?.size_bytes).toBe(pdf.length);
  });

  it('refuses a second attachment of one name on one object with 409 FileAlreadyExists, storing nothing', async () => {
    const before = await snapshot(t, org);
    const refused = await initiate({ objectId: 'pump-7', name: 'MANUAL.pdf', size: 10 });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ statusCode: 409, error: 'FileAlreadyExists' });
    expectNoInternals(refused.body);
    expect(await snapshot(t, org)).toEqual(before);
    // Another object may have a file of that name.
    expect((await initiate({ objectId: 'pump-8', name: 'manual.pdf', size: 10 })).status).toBe(201);
  });

  it('refuses an attachment beyond the quota with 409 StorageLimitExceeded, storing nothing', async () => {
    const before = await snapshot(t, org);
    const refused = await initiate({ objectId: 'pump-9', name: 'scan.e57', size: 2_000 });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ statusCode: 409, error: 'StorageLimitExceeded' });
    expect(await snapshot(t, org)).toEqual(before);
  });

  it('refuses a context that is not a site, bad input, and a wrong ETag', async () => {
    expect((await initiate({ objectId: 'x', name: 'a.pdf', size: 1 }, folderId)).status).toBe(404);
    for (const body of [
      { objectId: '', name: 'a.pdf', size: 1 },
      { objectId: 'x', name: '', size: 1 },
      { objectId: 'x', name: 'a.pdf', size: -1 },
    ]) {
      const refused = await initiate(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toBe('ValidationError');
    }
    const initiated = await initiate({ objectId: 'valve-1', name: 'note.txt', size: 5 });
    await uploadBytes(initiated.body, Buffer.from('hello'));
    const wrong = await org.admin.post(`/v1/twin/${siteId}/object/attachments/${initiated.body.id}/finalize`, {
      etag: '0123456789abcdef0123456789abcdef',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/etag/);
  });

  it('removes the attachments with their site: hard delete frees the bytes', async () => {
    const other = await createOrg(t, { storageQuota: 1_000 });
    const tree = await createTree(other);
    const initiated = await other.admin.post(`/v1/twin/${tree.siteId}/object/attachments`, {
      objectId: 'o',
      name: 'a.txt',
      size: 800,
    });
    const { etag } = await uploadBytes(initiated.body, Buffer.alloc(800, 0x61));
    expect(
      (await other.admin.post(`/v1/twin/${tree.siteId}/object/attachments/${initiated.body.id}/finalize`, { etag })).status,
    ).toBe(200);
    expect((await other.admin.post('/v1/site-files', { parentId: tree.folderId, name: 'b.txt', size: 300 })).status).toBe(403);
    expect((await other.admin.delete(`/v1/nodes/${tree.siteId}`)).status).toBe(204);
    expect((await other.admin.delete(`/v1/nodes/${tree.siteId}/hard`)).status).toBe(204);
    await collectUploads(t.platform);
    expect(
      await t.platform.blobs.head(`orgs/${other.orgId}/nodes/${tree.siteId}/attachments/${initiated.body.id}`),
    ).toBeUndefined();
  });

  it('aborts the multipart upload of a pending attachment removed with its site: no part outlives it', async () => {
    const other = await createOrg(t, { storageQuota: 20 * MIB });
    const tree = await createTree(other);
    const size = 5 * MIB + 100;
    const initiated = await other.admin.post(`/v1/twin/${tree.siteId}/object/attachments`, {
      objectId: 'o',
      name: 'scan.bin',
      size,
    });
    expect(initiated.body.parts).toHaveLength(2);
    await uploadBytes(initiated.body, Buffer.alloc(size, 0x61));
    const row = await t.platform.regions[other.region].uploads.findObject(initiated.body.id);
    const uploadId = row?.multipart_upload_id as string;
    expect(uploadId).toBeTruthy();
    expect((await other.admin.delete(`/v1/nodes/${tree.siteId}`)).status).toBe(204);
    expect((await other.admin.delete(`/v1/nodes/${tree.siteId}/hard`)).status).toBe(204);
    await collectUploads(t.platform);
    // Every part had arrived: had the upload not been aborted, this would join them.
    expect(await t.platform.blobs.completeUpload(row?.blob_key as string, { uploadId, size })).toBeUndefined();
    expect(await t.platform.blobs.head(row?.blob_key as string)).toBeUndefined();
  });
});
