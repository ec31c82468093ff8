import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FilesystemBlobStore } from '../../src/adapters/blobs/filesystem-blob-store.js';
import { openBlobStore } from '../../src/adapters/blobs/open-blob-store.js';
import { S3BlobStore } from '../../src/adapters/blobs/s3-blob-store.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const S3 = { RDP_BLOB_STORE: 's3', RDP_S3_BUCKET: 'rdp-data' };

describe('blob store configuration', () => {
  it('defaults to the filesystem store with 64 MiB parts and no fixed signing key', () => {
    const { blobs } = loadConfig({});
    expect(blobs).toEqual({ store: 'filesystem', partSizeBytes: 64 * 1024 * 1024, signingKey: undefined, s3: undefined });
  });

  it('reads the S3 settings', () => {
    const { blobs } = loadConfig({
      ...S3,
      RDP_S3_ENDPOINT: 'http://127.0.0.1:9000/',
      RDP_S3_REGION: 'eu-central-1',
      RDP_S3_ACCESS_KEY_ID: 'id',
      RDP_S3_SECRET_ACCESS_KEY: 'secret',
      RDP_S3_FORCE_PATH_STYLE: 'true',
      RDP_UPLOAD_PART_SIZE_BYTES: String(8 * 1024 * 1024),
      RDP_BLOB_SIGNING_KEY: Buffer.alloc(32, 9).toString('base64'),
    });
    expect(blobs.s3).toEqual({
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-central-1',
      bucket: 'rdp-data',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      forcePathStyle: true,
    });
    expect(blobs.partSizeBytes).toBe(8 * 1024 * 1024);
    expect(blobs.signingKey).toEqual(Buffer.alloc(32, 9));
  });

  it.each([
    [{ RDP_BLOB_STORE: 'gcs' }, /RDP_BLOB_STORE must be filesystem or s3/],
    [{ RDP_BLOB_STORE: 's3' }, /RDP_S3_BUCKET must name an S3 bucket/],
    [{ ...S3, RDP_S3_BUCKET: 'Upper_Case' }, /RDP_S3_BUCKET/],
    [{ ...S3, RDP_S3_ENDPOINT: 'ftp://x' }, /RDP_S3_ENDPOINT must be an http\(s\) URL/],
    [{ ...S3, RDP_S3_ACCESS_KEY_ID: 'id' }, /set together/],
    [{ ...S3, RDP_S3_FORCE_PATH_STYLE: 'yes' }, /RDP_S3_FORCE_PATH_STYLE must be 1, 0, true or false/],
    [{ RDP_UPLOAD_PART_SIZE_BYTES: String(5 * 1024 * 1024 - 1) }, /RDP_UPLOAD_PART_SIZE_BYTES must be an integer from 5242880/],
    [{ RDP_BLOB_SIGNING_KEY: Buffer.alloc(16).toString('base64') }, /at least 32 bytes/],
    [{ RDP_BLOB_SIGNING_KEY: 'not base64!' }, /RDP_BLOB_SIGNING_KEY must be base64/],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('opens the configured store', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-blob-config-'));
    try {
      const local = await openBlobStore(loadConfig({ RDP_DATA_DIR: dataDir }), Buffer.alloc(32));
      expect(local).toBeInstanceOf(FilesystemBlobStore);
      expect(fs.readdirSync(path.join(dataDir, 'blobs')).sort()).toEqual(['meta', 'objects', 'tmp', 'uploads']);
      const remote = await openBlobStore(loadConfig({ ...S3, RDP_DATA_DIR: dataDir }), Buffer.alloc(32));
      expect(remote).toBeInstanceOf(S3BlobStore);
      await remote.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
