import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { S3BlobStore } from '../../../src/adapters/blobs/s3-blob-store.js';
import type { Clock } from '../../../src/ports/clock.js';
import { freePort } from '../../support/ports.js';

/**
 * S3 servers for the S3 adapter's tests, on 127.0.0.1 at a random port with a temporary
 * directory. Neither is complete, so each says what it does like S3:
 * - s3rver (npm): presigned URL expiry and response-header overrides, but no ListParts or
 *   AbortMultipartUpload, a plain MD5 (not S3's "-N") as a multipart object's ETag, and
 *   SigV4 signatures are not checked.
 * - moto (Python, in the machine image as `moto_server`): multipart as S3 does it (ListParts,
 *   ETags, abort), but no expiry or signature checks and no response-header overrides.
 */
export interface S3Capabilities {
  multipart: boolean;
  checksExpiry: boolean;
  overridesResponseHeaders: boolean;
}

export interface S3Peer {
  name: string;
  endpoint: string;
  capabilities: S3Capabilities;
  store(options: { partSize: number; clock?: Clock }): S3BlobStore;
  stop(): Promise<void>;
}

export const BUCKET = 'rdp-test';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

function client(endpoint: string): S3Client {
  return new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
}

function peer(name: string, endpoint: string, capabilities: S3Capabilities, stop: () => Promise<void>): S3Peer {
  return {
    name,
    endpoint,
    capabilities,
    store: ({ partSize, clock }) =>
      new S3BlobStore({ client: client(endpoint), bucket: BUCKET, partSize, ...(clock ? { clock } : {}) }),
    stop,
  };
}

export async function startS3rver(): Promise<S3Peer> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: BUCKET }] });
  const { port } = (await server.run()) as { port: number };
  return peer(
    's3rver',
    `http://127.0.0.1:${port}`,
    { multipart: false, checksExpiry: true, overridesResponseHeaders: true },
    async () => {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  );
}

export const motoAvailable = spawnSync('moto_server', ['--help'], { stdio: 'ignore' }).status === 0;

export async function startMoto(): Promise<S3Peer> {
  const port = await freePort();
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}`);
    const up = await fetch(endpoint).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error('moto_server did not start within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const s3 = client(endpoint);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  s3.destroy();
  return peer('moto', endpoint, { multipart: true, checksExpiry: false, overridesResponseHeaders: false }, async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
}
