import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, clientCredentialsToken, createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { serviceApp } from '../support/people-users.js';
import { startPlatform, type TestPlatform, usingPostgres } from '../support/platform.js';
import { runRdp } from '../support/rdp-cli.js';
import { clientOn, downloaded, someBytes, type WrittenFile, writeSiteFile } from '../support/site-file-writes.js';

const MIB = 1024 * 1024;
const WRITERS = 5;

/**
 * `rdp admin backup`, `restore` and `verify` on the embedded default (docs/operations.md,
 * "Backups and restores"), run as an administrator runs them while the platform serves.
 * PostgreSQL and S3 have their own procedure: postgres-s3-backup.test.ts.
 */
describe.skipIf(usingPostgres)('backups of the embedded default', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let folderId: string;
  let credentials: { clientId: string; clientSecret: string };
  let admin: ApiClient;
  const before: WrittenFile[] = [];
  const during: WrittenFile[] = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-backup-test-'));
  const backupDir = path.join(scratch, 'backup');
  const restoredDir = path.join(scratch, 'restored');
  let restored: TestPlatform | undefined;

  beforeAll(async () => {
    t = await startPlatform({ RDP_UPLOAD_PART_SIZE_BYTES: String(5 * MIB) });
    org = await createOrg(t);
    ({ folderId } = await createTree(org));
    // The organization's administrator as a client-credentials application (test/support/people-users.ts).
    const app = await serviceApp(t, org, 'Organization Administrator');
    credentials = { clientId: app.clientId, clientSecret: app.clientSecret };
    // The writers' requests must not meet the organization's request budget (a 429 is no failure of the backup's).
    await t.admin.setOrganizationRateLimit(org.orgId, { bucket: 1_000_000, refillPerSecond: 1_000_000 });
    admin = new ApiClient(
      t.regionUrl(org.region),
      await clientCredentialsToken(t, credentials.clientId, credentials.clientSecret),
    );
    // One multipart file (its ETag lives in the blob's metadata file) and a few small ones.
    before.push(await writeSiteFile(admin, folderId, 'parts.bin', someBytes(6 * MIB)));
    for (let i = 0; i < 4; i += 1) before.push(await writeSiteFile(admin, folderId, `small-${i}.bin`, someBytes(50_000 + i)));
  });
  afterAll(async () => {
    await restored?.close();
    await t?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('copies a platform while clients write (no write fails), and the restored copy serves the same bytes', async () => {
    let backingUp = true;
    const failures: unknown[] = [];
    const writer = async (n: number) => {
      for (let i = 0; backingUp; i += 1) {
        try {
          during.push(await writeSiteFile(admin, folderId, `w${n}-${i}.bin`, someBytes(20_000 + n)));
        } catch (error) {
          failures.push(error);
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, n) => writer(n));
    const backup = await runRdp(t, ['admin', 'backup', '--to', backupDir, '--json']);
    backingUp = false;
    await Promise.all(writers);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(failures).toEqual([]);
    expect(during.length).toBeGreaterThan(0);
    const summary = JSON.parse(backup.stdout);
    expect(summary.stores).toContain('global.sqlite');
    expect(summary.stores).toContain('region_eu.sqlite');
    const manifest = JSON.parse(fs.readFileSync(path.join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest.files.length).toBe(summary.files);

    const restore = await runRdp(t, ['admin', 'restore', '--from', backupDir, '--data-dir', restoredDir, '--json']);
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    restored = await startPlatform({ RDP_DATA_DIR: restoredDir });
    const client = await clientOn(restored, org.region, credentials);
    for (const file of before) {
      const copy = await downloaded(client, file.id);
      expect(copy.status).toBe(200);
      expect(copy.bytes.equals(file.bytes)).toBe(true);
      // The multipart ETag comes back with its metadata file, bound to the restored object.
      expect(copy.etag).toBe((await downloaded(admin, file.id)).etag);
    }
    // A file written during the backup is in the copy whole, or not at all.
    let kept = 0;
    for (const file of during) {
      const copy = await downloaded(client, file.id);
      expect([200, 404]).toContain(copy.status);
      if (copy.status === 200) {
        expect(copy.bytes.equals(file.bytes)).toBe(true);
        kept += 1;
      }
    }
    expect(kept).toBeLessThanOrEqual(during.length);
    const verify = await runRdp(restored, ['admin', 'verify', '--json']);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ checked: before.length + kept, problems: [] });
  });

  it('refuses a restore into a data directory that is not empty, and a backup that differs from its manifest, naming each file', async () => {
    const occupied = path.join(scratch, 'occupied');
    fs.mkdirSync(occupied);
    fs.writeFileSync(path.join(occupied, 'keep.txt'), 'mine');
    const intoOccupied = await runRdp(t, ['admin', 'restore', '--from', backupDir, '--data-dir', occupied]);
    expect(intoOccupied.code).toBe(1);
    expect(intoOccupied.stderr).toContain(`the data directory ${occupied} is not empty`);
    expect(fs.readdirSync(occupied)).toEqual(['keep.txt']);

    const tampered = path.join(scratch, 'tampered');
    fs.cpSync(backupDir, tampered, { recursive: true });
    const manifest = JSON.parse(fs.readFileSync(path.join(tampered, 'manifest.json'), 'utf8'));
    const objects = manifest.files.filter((file: { path: string }) => file.path.startsWith('blobs/objects/'));
    const [flipped, cut, gone] = objects.map((file: { path: string }) => file.path);
    const flippedBytes = fs.readFileSync(path.join(tampered, flipped));
    flippedBytes[0] = (flippedBytes[0] ?? 0) ^ 0xff;
    fs.writeFileSync(path.join(tampered, flipped), flippedBytes);
    fs.truncateSync(path.join(tampered, cut), 10);
    fs.rmSync(path.join(tampered, gone));
    const target = path.join(scratch, 'not-restored');
    const refused = await runRdp(t, ['admin', 'restore', '--from', tampered, '--data-dir', target, '--json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('does not match its manifest; nothing restored');
    expect(refused.stderr).toContain(`${flipped} differs from the manifest`);
    expect(refused.stderr).toContain(`${cut} has 10 bytes where the manifest says`);
    expect(refused.stderr).toContain(`${gone} is missing`);
    expect(JSON.parse(refused.stdout).problems).toHaveLength(3);
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.readdirSync(scratch).filter((name) => name.includes('restoring'))).toEqual([]);
  });

  it('a second backup takes the SHA-256 the first recorded beside each blob, and restores', async () => {
    const lines = (dir: string) =>
      new Map<string, string>(
        JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).files.map(
          (file: { path: string; sha256: string }) => [file.path, file.sha256],
        ),
      );
    const first = lines(backupDir);
    const objects = [...first.keys()].filter((file) => file.startsWith('blobs/objects/'));
    // The 6 MiB file's hash is kept (blobs of 1 MiB and more); the small ones' are not.
    const large = objects.find((file) => fs.statSync(path.join(backupDir, file)).size >= MIB) as string;
    const meta = JSON.parse(
      fs.readFileSync(path.join(t.dataDir, `${large.replace('blobs/objects/', 'blobs/meta/')}.json`), 'utf8'),
    );
    expect(meta.sha256).toBe(first.get(large));
    const secondDir = path.join(scratch, 'second');
    expect((await runRdp(t, ['admin', 'backup', '--to', secondDir])).code).toBe(0);
    const second = lines(secondDir);
    for (const file of objects) expect(second.get(file)).toBe(first.get(file));
    const restore = await runRdp(t, [
      'admin',
      'restore',
      '--from',
      secondDir,
      '--data-dir',
      path.join(scratch, 'second-restored'),
    ]);
    expect(restore.code, restore.stderr).toBe(0);
  });

  it('verify names a removed blob and a truncated one, and exits 1', async () => {
    if (!restored) throw new Error('the first case restores the copy');
    const [removed, truncated] = before.slice(1, 3);
    const keyOf = async (id: string) =>
      (
        await restored!.platform.regions[org.region].store.db
          .selectFrom('stored_objects')
          .select('blob_key')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).blob_key;
    const removedKey = await keyOf(removed!.id);
    const truncatedKey = await keyOf(truncated!.id);
    fs.rmSync(path.join(restoredDir, 'blobs/objects', removedKey));
    fs.truncateSync(path.join(restoredDir, 'blobs/objects', truncatedKey), 1000);
    const verify = await runRdp(restored, ['admin', 'verify']);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toContain(`${removedKey} (stored object ${removed!.id}) is missing`);
    expect(verify.stderr).toContain(
      `${truncatedKey} (stored object ${truncated!.id}) has 1000 bytes where ${truncated!.bytes.length} are recorded`,
    );
    expect(verify.stderr).toMatch(/2 of \d+ blobs are missing or short/);
  });
});
