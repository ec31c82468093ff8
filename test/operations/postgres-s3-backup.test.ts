import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET, motoAvailable, type S3Peer, startMoto } from '../blobs/support/s3-peers.js';
import { ApiClient, clientCredentialsToken, createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { serviceApp } from '../support/people-users.js';
import { databaseUrlOf, dropDatabase, nameBeside } from '../support/pg-template.js';
import { startPlatform, type TestPlatform, usingPostgres } from '../support/platform.js';
import { runRdp } from '../support/rdp-cli.js';
import { clientOn, downloaded, someBytes, type WrittenFile, writeSiteFile } from '../support/site-file-writes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MIB = 1024 * 1024;
const tools = ['pg_dump', 'pg_restore', 'psql', 'aws'].filter((tool) => spawnSync('which', [tool]).status !== 0);
if (usingPostgres && tools.length > 0) console.warn(`the PostgreSQL and S3 backup test needs ${tools.join(', ')}: skipped`);

/** The platform's S3 settings for a bucket of moto. */
function s3Env(peer: S3Peer, bucket: string): Record<string, string> {
  return {
    RDP_BLOB_STORE: 's3',
    RDP_S3_ENDPOINT: peer.endpoint,
    RDP_S3_BUCKET: bucket,
    RDP_S3_ACCESS_KEY_ID: 'S3RVER',
    RDP_S3_SECRET_ACCESS_KEY: 'S3RVER',
    RDP_S3_FORCE_PATH_STYLE: '1',
  };
}

/** One of the documented scripts (scripts/*-postgres-s3.sh), as an operator runs it. */
function script(name: string, dir: string, env: Record<string, string>) {
  const run = spawnSync('bash', [path.join(ROOT, 'scripts', name), dir], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`${name} exited ${run.status}: ${run.stderr}`);
  return run;
}

/**
 * The procedure of docs/operations.md ("Backups and restores") for PostgreSQL and S3, run against
 * the real PostgreSQL and moto: the database dumped, then the bucket copied; restored objects
 * first, then the database, into a new database and bucket; the restored copy serves the same
 * bytes and `rdp admin verify` passes there, and names an object removed from the bucket.
 */
describe.skipIf(!usingPostgres || !motoAvailable || tools.length > 0)('backups on PostgreSQL and S3', () => {
  let peer: S3Peer;
  let t: TestPlatform;
  let org: OrgFixture;
  let credentials: { clientId: string; clientSecret: string };
  const files: WrittenFile[] = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-pg-backup-test-'));
  const baseUrl = process.env.RDP_TEST_DATABASE_URL as string;
  const restoredDatabase = nameBeside(baseUrl ?? 'postgres://x/postgres', `r${randomBytes(4).toString('hex')}`);
  const restoredUrl = baseUrl ? databaseUrlOf(baseUrl, restoredDatabase) : '';
  let restored: TestPlatform | undefined;

  beforeAll(async () => {
    peer = await startMoto();
    t = await startPlatform({ ...s3Env(peer, BUCKET), RDP_UPLOAD_PART_SIZE_BYTES: String(5 * MIB) });
    org = await createOrg(t);
    const { folderId } = await createTree(org);
    // The organization's administrator as a client-credentials application (test/support/people-users.ts).
    const app = await serviceApp(t, org, 'Organization Administrator');
    credentials = { clientId: app.clientId, clientSecret: app.clientSecret };
    const admin = new ApiClient(
      t.regionUrl(org.region),
      await clientCredentialsToken(t, app.clientId, app.clientSecret as string),
    );
    files.push(await writeSiteFile(admin, folderId, 'parts.bin', someBytes(6 * MIB)));
    for (let i = 0; i < 3; i += 1) files.push(await writeSiteFile(admin, folderId, `small-${i}.bin`, someBytes(30_000 + i)));
  });
  afterAll(async () => {
    await restored?.close();
    await t?.close();
    await dropDatabase(baseUrl, restoredDatabase).catch(() => undefined);
    await peer?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('dumps the database, then copies the bucket; restores objects, then the database; the copy serves the same bytes and verifies', async () => {
    const backupDir = path.join(scratch, 'backup');
    const source = {
      RDP_DATABASE_URL: t.databaseUrl as string,
      RDP_DATABASE_SCHEMA_PREFIX: t.schemaPrefix,
      ...s3Env(peer, BUCKET),
    };
    script('backup-postgres-s3.sh', backupDir, source);

    const restoredBucket = 'rdp-restored';
    const made = spawnSync('psql', [baseUrl, '-qc', `CREATE DATABASE "${restoredDatabase}"`], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const target = { RDP_DATABASE_URL: restoredUrl, RDP_DATABASE_SCHEMA_PREFIX: t.schemaPrefix, ...s3Env(peer, restoredBucket) };
    const bucket = spawnSync('aws', ['s3', 'mb', `s3://${restoredBucket}`, '--endpoint-url', peer.endpoint], {
      env: { ...process.env, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_DEFAULT_REGION: 'us-east-1' },
      encoding: 'utf8',
    });
    expect(bucket.status, bucket.stderr).toBe(0);
    script('restore-postgres-s3.sh', backupDir, target);
    // A second restore into the now filled database is refused.
    expect(() => script('restore-postgres-s3.sh', backupDir, target)).toThrow(/already holds/);

    restored = await startPlatform(target);
    const client = await clientOn(restored, org.region, credentials);
    for (const file of files) {
      const copy = await downloaded(client, file.id);
      expect(copy.status).toBe(200);
      expect(copy.bytes.equals(file.bytes)).toBe(true);
    }
    const verify = await runRdp(restored, ['admin', 'verify', '--json'], target);
    // (stderr may carry the AWS SDK's notice about Node versions)
    expect(verify.code, verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ checked: files.length, problems: [] });
  });

  it('verify names an object removed from the bucket, and exits 1', async () => {
    if (!restored) throw new Error('the first case restores the copy');
    const removed = files[1] as WrittenFile;
    const { blob_key: key } = await restored.platform.regions[org.region].store.db
      .selectFrom('stored_objects')
      .select('blob_key')
      .where('id', '=', removed.id)
      .executeTakeFirstOrThrow();
    await restored.platform.blobs.delete(key);
    const target = { RDP_DATABASE_URL: restoredUrl, RDP_DATABASE_SCHEMA_PREFIX: t.schemaPrefix, ...s3Env(peer, 'rdp-restored') };
    const verify = await runRdp(restored, ['admin', 'verify'], target);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toContain(`${key} (stored object ${removed.id}) is missing`);
  });
});
