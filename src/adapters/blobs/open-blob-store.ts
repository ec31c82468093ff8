import path from 'node:path';
import type { Config } from '../../config/config.js';
import type { BlobStore } from '../../ports/blob-store.js';
import { type Clock, systemClock } from '../../ports/clock.js';
import { FilesystemBlobStore } from './filesystem-blob-store.js';
import { S3BlobStore } from './s3-blob-store.js';

/**
 * The configured blob store: files under `<dataDir>/blobs` served by the embedded endpoint at
 * `<publicUrl>/blob` (its addresses signed with `signingKey`), or an S3 bucket.
 */
export async function openBlobStore(config: Config, signingKey: Buffer, clock: Clock = systemClock): Promise<BlobStore> {
  const { blobs } = config;
  if (blobs.store === 's3') {
    if (!blobs.s3) throw new Error('the s3 blob store needs its S3 settings');
    return S3BlobStore.fromConfig(blobs.s3, blobs.partSizeBytes, clock);
  }
  return FilesystemBlobStore.open({
    root: path.join(config.dataDir, 'blobs'),
    publicBaseUrl: `${config.publicUrl}/blob`,
    signingKey,
    partSize: blobs.partSizeBytes,
    clock,
  });
}
