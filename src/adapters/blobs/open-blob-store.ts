import path from 'node:path';
import type { Config } from '../../config/config.js';
import type { BlobStore } from '../../ports/blob-store.js';
import { type Clock, systemClock } from '../../ports/clock.js';
import { FilesystemBlobStore } from './filesystem-blob-store.js';

/**
 * The configured blob store: files under `<dataDir>/blobs` served by the embedded endpoint at
 * `<publicUrl>/blob` (its addresses signed with `signingKey`), or an S3 bucket. The S3 adapter
 * (and the AWS SDK, about half a second to load) is imported only when configured
 * (docs/performance.md#start-up-the-causes-of-7-s).
 */
export async function openBlobStore(config: Config, signingKey: Buffer, clock: Clock = systemClock): Promise<BlobStore> {
  const { blobs } = config;
  if (blobs.store === 's3') {
    if (!blobs.s3) throw new Error('the s3 blob store needs its S3 settings');
    const { S3BlobStore } = await import('./s3-blob-store.js');
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
