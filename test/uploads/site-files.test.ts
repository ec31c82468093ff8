import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectUploads } from '../../src/jobs/housekeeping.js';
import { createNode, createOrg, createTree, expectNoInternals, type OrgFixture, snapshot } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { BLOB_BACKENDS, type BlobBackend, sampleBytes, uploadBytes } from '../support/uploads.js';

const MIB = 1024 * 1024;

describe.each(BLOB_BACKENDS.filter((backend) => backend.available))(
  'site files: initiate, upload, finalize, download, on $name',
  (backend) => {
    let blobStore: Awaited<ReturnType<BlobBackend['start']>>;
    let t: TestPlatform;
    let org: OrgFixture;
    let siteId: string;
    let folderId: string;
    let las: Buffer;

    beforeAll(async () => {
      blobStore = await backend.start();
      t = await startPlatform({ ...blobStore.env, RDP_UPLOAD_PART_SIZE_BYTES: String(5 * MIB) });
      org = await createOrg(t, { storageQuota: 40 * MIB });
      ({ siteId, folderId } = await createTree(org));
      las = await sampleBytes((file) => writeLas(file, 500));
    });
    afterAll(async () => {
      await t.close();
      await blobStore.stop();
    });

    const initiate = (name: string, size: number, parentId = folderId) =>
      org.admin.post('/v1/site-files', { parentId, name, size });

    it('initiates with a signed address and no uploadId, finalizes with the ETag, and downloads with ranges', async () => {
      const initiated = await initiate('scan.las', las.length);
      expect(initiated.status).toBe(201);
      expect(initiated.body).toMatchObject({ name: 'scan.las', parentId: folderId, size: las.length, state: 'uploading' });
      expect(initiated.body).not.toHaveProperty('uploadId');
      expect(JSON.stringify(initiated.body)).not.toMatch(/"uploadId"/);
      // Not a node until finalized: browse does not show it.
      expect((await org.admin.get(`/v1/nodes/${folderId}/browse`)).body).toEqual([]);

      const { etag, expected } = await uploadBytes(initiated.body, las);
      expect(etag).toBe(expected);
      const finalized = await org.admin.post(`/v1/site-files/${initiated.body.id}/finalize`, { etag: `"${etag}"` });
      expect(finalized.status).toBe(200);
      expect(finalized.body).toMatchObject({
        id: initiated.body.id,
        name: 'scan.las',
        size: las.length,
        state: 'ready',
        etag,
        format: 'las',
      });
      expect((await org.admin.get(`/v1/site-files/${initiated.body.id}`)).body).toEqual(finalized.body);
      const browse = await org.admin.get(`/v1/nodes/${folderId}/browse`);
      expect(browse.body.map((node: { id: string; type: string }) => [node.id, node.type])).toEqual([
        [initiated.body.id, 'siteFile'],
      ]);

      const download = await fetch(`${t.regionUrl(org.region)}/v1/site-files/${initiated.body.id}/download`, {
        headers: { authorization: `Bearer ${org.admin.token}` },
      });
      expect(download.status).toBe(200);
      expect(download.headers.get('accept-ranges')).toBe('bytes');
      expect(download.headers.get('content-disposition')).toContain('scan.las');
      expect(Buffer.from(await download.arrayBuffer()).equals(las)).toBe(true);
      const ranged = await fetch(`${t.regionUrl(org.region)}/v1/site-files/${initiated.body.id}/download`, {
        headers: { authorization: `Bearer ${org.admin.token}`, range: 'bytes=100-199' },
      });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe(`bytes 100-199/${las.length}`);
      expect(Buffer.from(await ranged.arrayBuffer()).equals(las.subarray(100, 200))).toBe(true);
      const beyond = await fetch(`${t.regionUrl(org.region)}/v1/site-files/${initiated.body.id}/download`, {
        headers: { authorization: `Bearer ${org.admin.token}`, range: `bytes=${las.length}-` },
      });
      expect(beyond.status).toBe(416);
    });

    it('uploads a large file in parallel parts and finalizes with the S3 multipart ETag', async () => {
      const bytes = Buffer.alloc(11 * MIB);
      for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32LE((i * 2654435761) >>> 0, i);
      bytes.write('just text, really', 0);
      bytes.fill(0x41, 0, 4096); // printable text at the start: a .bin promises no format
      const initiated = await initiate('big.bin', bytes.length);
      expect(initiated.status).toBe(201);
      expect(initiated.body.parts).toHaveLength(3);
      expect(initiated.body.uploadUrl).toBeUndefined();
      const { etag } = await uploadBytes(initiated.body, bytes);
      expect(etag).toMatch(/^[0-9a-f]{32}-3$/);
      const finalized = await org.admin.post(`/v1/site-files/${initiated.body.id}/finalize`, { etag });
      expect(finalized.status).toBe(200);
      expect(finalized.body.etag).toBe(etag);
    });

    it('refuses a second file of one name in one parent with 409 FileAlreadyExists, storing nothing', async () => {
      const first = await initiate('Plan.pdf', 10, siteId);
      expect(first.status).toBe(201);
      const before = await snapshot(t, org);
      const second = await initiate('plan.PDF', 10, siteId);
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ statusCode: 409, error: 'FileAlreadyExists' });
      expectNoInternals(second.body);
      expect(await snapshot(t, org)).toEqual(before);
    });

    it('refuses an initiation beyond the quota with 403 StorageLimitExceeded, storing nothing', async () => {
      const before = await snapshot(t, org);
      const refused = await initiate('huge.e57', 41 * MIB);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ statusCode: 403, error: 'StorageLimitExceeded' });
      expect(await snapshot(t, org)).toEqual(before);
    });

    it('answers a missing, malformed or wrong ETag with a 400 validation error, storing nothing', async () => {
      const initiated = await initiate('notes.txt', 11);
      await uploadBytes(initiated.body, Buffer.from('hello world'));
      const before = await snapshot(t, org);
      for (const body of [{}, { etag: 'abc' }, { etag: '0123456789abcdef0123456789abcdef' }]) {
        const refused = await org.admin.post(`/v1/site-files/${initiated.body.id}/finalize`, body);
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.error).toBe('ValidationError');
        expect(refused.body.message).toMatch(/etag/);
      }
      expect(await snapshot(t, org)).toEqual(before);
    });

    it('answers content that is not what the name says with 400 FileNotCompatible, storing nothing', async () => {
      const text = Buffer.from('this is no laser scan\n');
      const initiated = await initiate('fake.las', text.length);
      const { etag } = await uploadBytes(initiated.body, text);
      const before = await snapshot(t, org);
      const refused = await org.admin.post(`/v1/site-files/${initiated.body.id}/finalize`, { etag });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ statusCode: 400, error: 'FileNotCompatible' });
      expect(await snapshot(t, org)).toEqual(before);
    });

    it('lets exactly the concurrent initiations that fit the quota succeed', async () => {
      const small = await createOrg(t, { storageQuota: 10_000 });
      const { folderId: folder } = await createTree(small);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          small.admin.post('/v1/site-files', { parentId: folder, name: `part-${i}.txt`, size: 3_000 }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
      expect(answers.filter((answer) => answer.status === 403 && answer.body.error === 'StorageLimitExceeded')).toHaveLength(5);
    });

    it('releases the reservation of an upload that expires, and removes its bytes', async () => {
      const small = await createOrg(t, { storageQuota: 1_000 });
      const { folderId: folder } = await createTree(small);
      const initiated = await small.admin.post('/v1/site-files', { parentId: folder, name: 'late.txt', size: 1_000 });
      expect(initiated.status).toBe(201);
      await uploadBytes(initiated.body, Buffer.alloc(1_000, 0x61));
      expect((await small.admin.post('/v1/site-files', { parentId: folder, name: 'other.txt', size: 1 })).status).toBe(403);
      t.clock.advance(86_400_000 + 1_000);
      const { client: admin } = await small.serviceClient({ roleName: 'Organization Administrator' }); // a day later: a new token
      expect((await admin.post('/v1/site-files', { parentId: folder, name: 'other.txt', size: 1_000 })).status).toBe(201);
      const late = await admin.post(`/v1/site-files/${initiated.body.id}/finalize`, { etag: '0123456789abcdef0123456789abcdef' });
      expect(late.status).toBe(404);
      await collectUploads(t.platform);
      const key = `orgs/${small.orgId}/nodes/${initiated.body.id}/file`;
      expect(await t.platform.blobs.head(key)).toBeUndefined();
    });

    it('frees the bytes of a hard-deleted file: quota and blob', async () => {
      const small = await createOrg(t, { storageQuota: 2_000 });
      const { folderId: folder } = await createTree(small);
      const initiated = await small.admin.post('/v1/site-files', { parentId: folder, name: 'a.txt', size: 1_500 });
      const { etag } = await uploadBytes(initiated.body, Buffer.alloc(1_500, 0x62));
      expect((await small.admin.post(`/v1/site-files/${initiated.body.id}/finalize`, { etag })).status).toBe(200);
      expect((await small.admin.post('/v1/site-files', { parentId: folder, name: 'b.txt', size: 1_000 })).status).toBe(403);
      expect((await small.admin.delete(`/v1/nodes/${initiated.body.id}`)).status).toBe(204);
      // In the trash the bytes still count on restore; hard delete frees them.
      expect((await small.admin.delete(`/v1/nodes/${initiated.body.id}/hard`)).status).toBe(204);
      expect((await small.admin.post('/v1/site-files', { parentId: folder, name: 'b.txt', size: 1_000 })).status).toBe(201);
      await collectUploads(t.platform);
      expect(await t.platform.blobs.head(`orgs/${small.orgId}/nodes/${initiated.body.id}/file`)).toBeUndefined();
    });
  },
);

describe('site files and the depth limit, with RDP_MAX_HIERARCHY_DEPTH=4', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  let folderId: string; // depth 3

  beforeAll(async () => {
    t = await startPlatform({ RDP_MAX_HIERARCHY_DEPTH: '4' });
    org = await createOrg(t);
    ({ siteId, folderId } = await createTree(org));
  });
  afterAll(() => t.close());

  it('refuses a site file under a folder at the maximum depth with 409 MaxDepthExceeded, storing nothing', async () => {
    const deepest = await createNode(org, folderId, 'folder', 'Deepest'); // depth 4
    const before = await snapshot(t, org);
    const refused = await org.admin.post('/v1/site-files', { parentId: deepest, name: 'deep.txt', size: 5 });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ statusCode: 409, error: 'MaxDepthExceeded' });
    expect(await snapshot(t, org)).toEqual(before);
    // One level up it fits.
    expect((await org.admin.post('/v1/site-files', { parentId: folderId, name: 'deep.txt', size: 5 })).status).toBe(201);
  });

  it('refuses to finalize a site file whose folder moved to the maximum depth, and finalizes it once back', async () => {
    const moving = await createNode(org, siteId, 'folder', 'Moving'); // depth 3
    const initiated = await org.admin.post('/v1/site-files', { parentId: moving, name: 'late.txt', size: 5 });
    expect(initiated.status).toBe(201);
    const { etag } = await uploadBytes(initiated.body, Buffer.from('hello'));
    expect((await org.admin.patch(`/v1/nodes/${moving}/move/${folderId}`)).status).toBe(200); // now at depth 4
    const refused = await org.admin.post(`/v1/site-files/${initiated.body.id}/finalize`, { etag });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ statusCode: 409, error: 'MaxDepthExceeded' });
    expect((await org.admin.get(`/v1/nodes/${moving}/browse`)).body).toEqual([]);
    expect((await org.admin.patch(`/v1/nodes/${moving}/move/${siteId}`)).status).toBe(200);
    const finalized = await org.admin.post(`/v1/site-files/${initiated.body.id}/finalize`, { etag });
    expect(finalized.status).toBe(200);
    expect(finalized.body).toMatchObject({ id: initiated.body.id, parentId: moving, state: 'ready', size: 5 });
  });
});
