import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { etagOfBytes } from '../../src/domain/uploads/etag.js';
import { BUCKET, motoAvailable, startMoto } from '../blobs/support/s3-peers.js';

/** The upload addresses an initiation answers with. */
export interface UploadTarget {
  uploadUrl?: string;
  partSize?: number;
  parts?: { partNumber: number; size: number; uploadUrl: string }[];
}

/**
 * Sends the bytes as a client does: one PUT, or every part in parallel; returns the ETag the
 * store answered (a multipart's composite is computed from the part ETags, as S3 clients do)
 * and the one the bytes should have.
 */
export async function uploadBytes(target: UploadTarget, bytes: Buffer): Promise<{ etag: string; expected: string }> {
  if (target.uploadUrl) {
    const response = await fetch(target.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes) });
    if (response.status !== 200) throw new Error(`PUT answered ${response.status}: ${await response.text()}`);
    return { etag: (response.headers.get('etag') ?? '').replaceAll('"', ''), expected: etagOfBytes(bytes) };
  }
  const parts = target.parts ?? [];
  const partSize = target.partSize ?? 0;
  await Promise.all(
    parts.map(async (part) => {
      const start = (part.partNumber - 1) * partSize;
      const response = await fetch(part.uploadUrl, {
        method: 'PUT',
        body: new Uint8Array(bytes.subarray(start, start + part.size)),
      });
      if (response.status !== 200)
        throw new Error(`part ${part.partNumber} answered ${response.status}: ${await response.text()}`);
    }),
  );
  const expected = etagOfBytes(bytes, partSize);
  return { etag: expected, expected };
}

/** A real sample file (point cloud, video), written by the sample writers, as bytes; `extension` when the writer needs one. */
export async function sampleBytes(write: (path: string) => Promise<void>, extension = ''): Promise<Buffer> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rdp-sample-'));
  try {
    const file = path.join(dir, `sample${extension}`);
    await write(file);
    return await fs.readFile(file);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * The blob stores the upload suites run on (docs/design/testing.md: every backend): the
 * filesystem behind the embedded endpoint, and S3 on moto (the S3 test server that does
 * multipart as S3 does; see test/blobs/support/s3-peers.ts).
 */
export interface BlobBackend {
  name: string;
  available: boolean;
  /** The platform's environment for this store, and how to stop what it started. */
  start(): Promise<{ env: Record<string, string>; stop(): Promise<void> }>;
}

export const BLOB_BACKENDS: BlobBackend[] = [
  { name: 'the filesystem blob store', available: true, start: async () => ({ env: {}, stop: async () => undefined }) },
  {
    name: 'S3 (moto)',
    available: motoAvailable,
    start: async () => {
      const peer = await startMoto();
      return {
        env: {
          RDP_BLOB_STORE: 's3',
          RDP_S3_ENDPOINT: peer.endpoint,
          RDP_S3_BUCKET: BUCKET,
          RDP_S3_ACCESS_KEY_ID: 'S3RVER',
          RDP_S3_SECRET_ACCESS_KEY: 'S3RVER',
          RDP_S3_FORCE_PATH_STYLE: '1',
        },
        stop: () => peer.stop(),
      };
    },
  },
];
if (!motoAvailable) console.warn('moto_server is not installed: the upload suites run on the filesystem blob store only');

/** What a test needs to upload a bundle input through the API: the organization's admin client. */
interface AdminApi {
  post(path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/**
 * A bundle under `parentId` with one input file uploaded through an upload session and the
 * session finalized: the bundle id and the finalize answer, for the caller to check.
 */
export async function bundleWithInput(admin: AdminApi, parentId: string, name: string, input: { name: string; bytes: Buffer }) {
  const bundle = await admin.post(`/v1/nodes/${parentId}/bundle`, { name });
  const session = await admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions`);
  const file = await admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/files`, {
    name: input.name,
    size: input.bytes.length,
  });
  await uploadBytes(file.body, input.bytes);
  const finalized = await admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/finalize`);
  return { bundleId: bundle.body.id as string, finalized };
}
