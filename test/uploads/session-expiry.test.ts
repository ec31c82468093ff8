import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectUploads } from '../../src/jobs/housekeeping.js';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { uploadBytes } from '../support/uploads.js';

/** An upload session left unfinished expires: its reservations are released and its bytes removed. */
describe('expiry of unfinished upload sessions', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await startPlatform({ RDP_UPLOAD_EXPIRY_SECONDS: '600' });
    org = await createOrg(t, { storageQuota: 1_000 });
  });
  afterAll(() => t.close());

  it('closes the session, releases its reserved bytes and removes what was uploaded', async () => {
    const { siteId } = await createTree(org);
    const bundle = await org.admin.post(`/v1/nodes/${siteId}/bundle`, { name: 'Abandoned' });
    const session = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions`);
    const file = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/files`, {
      name: 'scan.xyz',
      size: 900,
    });
    expect(file.status).toBe(201);
    await uploadBytes(file.body, Buffer.from(`${'1 2 3\n'.repeat(150)}`));
    expect((await t.admin.storageUse(org.orgId)).reservedBytes).toBe(900);
    const sessionPath = `/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}`;
    expect((await org.admin.post(`${sessionPath}/files`, { name: 'more.xyz', size: 200 })).body.error).toBe(
      'StorageLimitExceeded',
    );

    t.clock.advance(601_000);
    expect((await t.admin.storageUse(org.orgId)).reservedBytes).toBe(0);
    const late = await org.admin.post(`${sessionPath}/files`, { name: 'more.xyz', size: 200 });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('UploadSessionNotOpen');
    expect((await org.admin.post(`${sessionPath}/finalize`)).body.error).toBe('UploadSessionNotOpen');

    await collectUploads(t.platform);
    const shown = await org.admin.get(sessionPath);
    expect(shown.body).toMatchObject({ state: 'expired', files: [expect.objectContaining({ state: 'expired' })] });
    expect(await t.platform.blobs.head(`orgs/${org.orgId}/nodes/${bundle.body.id}/inputs/${file.body.id}`)).toBeUndefined();
    // A new session takes the room the old one held.
    const again = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions`);
    expect(again.status).toBe(201);
    expect(
      (
        await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${again.body.id}/files`, {
          name: 'scan.xyz',
          size: 900,
        })
      ).status,
    ).toBe(201);
  });

  it('keeps a blob deletion that fails queued and logged, and goes on with the rest of the queue', async () => {
    const { uploads } = t.platform.regions[org.region];
    const leftover = `orgs/${org.orgId}/nodes/leftover/file`;
    await t.platform.blobs.write(leftover, Buffer.from('bytes'));
    // A full batch of keys no store accepts, queued before the good one.
    const failing = Array.from({ length: 100 }, (_, i) => ({ key: `not a key ${i}` }));
    await uploads.queueDeletions(uploads.db, failing, '2000-01-01T00:00:00.000Z');
    await uploads.queueDeletions(uploads.db, [{ key: leftover }], t.clock.now().toISOString());
    const warned: object[] = [];
    const log = { warn: (object: object) => warned.push(object), error: () => undefined };
    expect(await collectUploads(t.platform, log)).toBe(1);
    expect(await t.platform.blobs.head(leftover)).toBeUndefined();
    expect(warned).toHaveLength(100);
    expect((await uploads.pendingDeletions(1_000)).map((entry) => entry.blob_key).sort()).toEqual(
      failing.map((entry) => entry.key).sort(),
    );
  });
});
