import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../src/adapters/blobs/s3-blob-store.js';
import { etagOfBytes, quoteEtag } from '../../src/domain/uploads/etag.js';
import { BlobNotFoundError, type BlobStore } from '../../src/ports/blob-store.js';
import { startPlatform } from '../support/platform.js';
import { motoAvailable, type S3Capabilities, startMoto, startS3rver } from './support/s3-peers.js';

/**
 * One suite for every BlobStore: the filesystem store behind the embedded endpoint of a real
 * platform, and the S3 store against two S3 servers. Clients use the signed URLs with fetch,
 * as a browser or a CLI would. What a test peer does not implement is skipped on that peer
 * only (see support/s3-peers.ts).
 */
const MIB = 1024 * 1024;
const PART_SIZE = 5 * MIB;

interface Backend {
  store: BlobStore;
  capabilities: S3Capabilities & { checksSignature: boolean };
  /** An expiry that the next `passExpiry` makes past. */
  shortExpiry(): Date;
  passExpiry(): Promise<void>;
  close(): Promise<void>;
}

async function filesystem(): Promise<Backend> {
  const test = await startPlatform({ RDP_UPLOAD_PART_SIZE_BYTES: String(PART_SIZE) });
  return {
    store: test.platform.blobs,
    capabilities: { multipart: true, checksExpiry: true, overridesResponseHeaders: true, checksSignature: true },
    shortExpiry: () => new Date(test.clock.now().getTime() + 60_000),
    passExpiry: async () => test.clock.advance(61_000),
    close: () => test.close(),
  };
}

async function s3(start: typeof startS3rver): Promise<Backend> {
  const peer = await start();
  const store = peer.store({ partSize: PART_SIZE });
  return {
    store,
    capabilities: { ...peer.capabilities, checksSignature: false },
    shortExpiry: () => new Date(Date.now() + 1000),
    passExpiry: () => new Promise((resolve) => setTimeout(resolve, 2100)),
    close: async () => {
      await store.close();
      await peer.stop();
    },
  };
}

const backends = [
  { name: 'filesystem', start: filesystem, available: true },
  { name: 'S3 on s3rver', start: () => s3(startS3rver), available: true },
  { name: 'S3 on moto', start: () => s3(startMoto), available: motoAvailable },
];
if (!motoAvailable) console.warn('moto_server is not installed: the S3 multipart tests are skipped');

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
const later = () => new Date(Date.now() + 3600_000);

async function put(url: string, body: Buffer) {
  const response = await fetch(url, { method: 'PUT', body: body as BodyInit });
  return { status: response.status, etag: response.headers.get('etag'), body: await response.text() };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe.each(backends)('BlobStore on $name', ({ start, available }) => {
  let backend: Backend;
  let store: BlobStore;
  const prefix = `t${randomUUID().slice(0, 8)}`;
  const newKey = () => `${prefix}/node-${randomUUID().slice(0, 8)}/file.bin`;

  beforeAll(async () => {
    if (!available) return;
    backend = await start();
    store = backend.store;
  });
  afterAll(async () => {
    await backend?.close();
  });

  it.skipIf(!available)('finds no object under a key never written', async () => {
    const key = newKey();
    expect(await store.head(key)).toBeUndefined();
    await expect(store.read(key)).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(await store.completeUpload(key, { size: 10 })).toBeUndefined();
  });

  it.skipIf(!available)('takes one PUT through the signed URL and gives the MD5 ETag', async () => {
    const key = newKey();
    const data = randomBytes(300 * 1024);
    const plan = await store.beginUpload(key, data.length, later());
    expect(plan.kind).toBe('single');
    if (plan.kind !== 'single') return;
    // On S3 the length is a signed header, so S3 itself refuses a body of another size.
    if (store instanceof S3BlobStore)
      expect(new URL(plan.url).searchParams.get('X-Amz-SignedHeaders')).toContain('content-length');
    const response = await put(plan.url, data);
    expect(response.status).toBe(200);
    expect(response.etag).toBe(quoteEtag(etagOfBytes(data)));
    const info = await store.completeUpload(key, { size: data.length });
    expect(info).toEqual({ size: data.length, etag: etagOfBytes(data) });
    expect(await store.head(key)).toEqual(info);
    expect(md5(await readAll(await store.read(key)))).toBe(md5(data));
  });

  it.skipIf(!available)('takes the parts of a multipart upload in parallel and completes with the S3 ETag', async ({ skip }) => {
    if (!backend.capabilities.multipart) skip();
    const key = newKey();
    const data = randomBytes(2 * PART_SIZE + 1000);
    const plan = await store.beginUpload(key, data.length, later());
    if (plan.kind !== 'multipart') throw new Error('expected a multipart plan');
    expect(plan.partSize).toBe(PART_SIZE);
    expect(plan.parts.map((part) => part.size)).toEqual([PART_SIZE, PART_SIZE, 1000]);
    const responses = await Promise.all(
      plan.parts.map((part) => {
        const start = (part.partNumber - 1) * plan.partSize;
        return put(part.url, data.subarray(start, start + part.size));
      }),
    );
    plan.parts.forEach((part, i) => {
      const start = (part.partNumber - 1) * plan.partSize;
      expect(responses[i]?.status).toBe(200);
      expect(responses[i]?.etag).toBe(quoteEtag(md5(data.subarray(start, start + part.size))));
    });
    expect(await store.head(key)).toBeUndefined();
    const info = await store.completeUpload(key, { uploadId: plan.uploadId, size: data.length });
    expect(info).toEqual({ size: data.length, etag: etagOfBytes(data, PART_SIZE) });
    expect(info?.etag).toMatch(/-3$/);
    expect(await store.head(key)).toEqual(info);
    expect(md5(await readAll(await store.read(key)))).toBe(md5(data));
    // A finalize retried after its answer was lost gets the same object.
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: data.length })).toEqual(info);
  });

  it.skipIf(!available)('does not complete while a part is missing, and an abort discards the upload', async ({ skip }) => {
    if (!backend.capabilities.multipart) skip();
    const key = newKey();
    const data = randomBytes(PART_SIZE + 10);
    const plan = await store.beginUpload(key, data.length, later());
    if (plan.kind !== 'multipart') throw new Error('expected a multipart plan');
    const [first, second] = plan.parts;
    expect((await put(second?.url as string, data.subarray(PART_SIZE))).status).toBe(200);
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: data.length })).toBeUndefined();
    expect(await store.head(key)).toBeUndefined();
    expect((await put(first?.url as string, data.subarray(0, PART_SIZE))).status).toBe(200);
    await store.abortUpload(key, plan.uploadId);
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: data.length })).toBeUndefined();
    expect(await store.head(key)).toBeUndefined();
  });

  it.skipIf(!available)('reads ranges, in the store and through the signed download URL', async () => {
    const key = newKey();
    const data = randomBytes(1000);
    await store.write(key, data);
    expect(await readAll(await store.read(key, { start: 100, end: 199 }))).toEqual(data.subarray(100, 200));
    expect(await readAll(await store.read(key, { start: 999, end: 999 }))).toEqual(data.subarray(999));
    const url = await store.downloadUrl(key, later(), { fileName: 'Scan north.laz', contentType: 'application/vnd.laszip' });
    const ranged = await fetch(url, { headers: { range: 'bytes=100-199' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe('bytes 100-199/1000');
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(data.subarray(100, 200));
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('etag')).toBe(quoteEtag(etagOfBytes(data)));
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(data);
    if (backend.capabilities.overridesResponseHeaders) {
      expect(whole.headers.get('content-disposition')).toContain('filename="Scan north.laz"');
      expect(whole.headers.get('content-type')).toBe('application/vnd.laszip');
    }
  });

  it.skipIf(!available)('refuses an expired URL', async ({ skip }) => {
    if (!backend.capabilities.checksExpiry) skip();
    const key = newKey();
    const data = randomBytes(10);
    const plan = await store.beginUpload(key, data.length, backend.shortExpiry());
    if (plan.kind !== 'single') throw new Error('expected a single plan');
    await backend.passExpiry();
    const response = await put(plan.url, data);
    expect(response.status).toBe(403);
    expect(await store.head(key)).toBeUndefined();
  });

  it.skipIf(!available)('refuses a tampered URL', async ({ skip }) => {
    if (!backend.capabilities.checksSignature) skip();
    const key = newKey();
    const data = randomBytes(10);
    const plan = await store.beginUpload(key, data.length, later());
    if (plan.kind !== 'single') throw new Error('expected a single plan');
    const otherKey = plan.url.replace('/file.bin?', '/other.bin?');
    for (const url of [plan.url.replace('size=10', 'size=11'), otherKey]) {
      const response = await put(url, Buffer.concat([data, Buffer.from('x')]));
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body)).toEqual({
        statusCode: 403,
        error: 'Forbidden',
        message: 'The signed address is not valid for this request',
      });
    }
    const download = await store.downloadUrl(key, later(), { fileName: 'a.bin' });
    expect((await fetch(download.replace('filename=a.bin', 'filename=b.bin'))).status).toBe(403);
    expect((await fetch(download, { method: 'PUT', body: 'x' })).status).toBe(403);
    expect(await store.head(key)).toBeUndefined();
    expect(await store.head(key.replace('file.bin', 'other.bin'))).toBeUndefined();
  });

  it.skipIf(!available)('writes server-side outputs from a buffer and from a stream', async () => {
    const small = randomBytes(1234);
    const key = newKey();
    expect(await store.write(key, small)).toEqual({ size: small.length, etag: etagOfBytes(small) });
    const large = randomBytes(PART_SIZE * 2 + 7);
    const chunks = Array.from({ length: 11 }, (_, i) => large.subarray(i * MIB, (i + 1) * MIB));
    const info = await store.write(key, Readable.from(chunks));
    expect(info.size).toBe(large.length);
    // One PUT, or multipart in parts of the part size: either way S3's ETag for those bytes.
    expect([etagOfBytes(large), etagOfBytes(large, PART_SIZE)]).toContain(info.etag);
    // The S3 store sends a stream larger than a part as a multipart upload.
    if (backend.capabilities.multipart && store instanceof S3BlobStore) expect(info.etag).toBe(etagOfBytes(large, PART_SIZE));
    expect(await store.head(key)).toEqual(info);
    expect(md5(await readAll(await store.read(key)))).toBe(md5(large));
    const empty = newKey();
    expect(await store.write(empty, Readable.from([]))).toEqual({ size: 0, etag: etagOfBytes(Buffer.alloc(0)) });
    expect(await text(await store.read(empty))).toBe('');
  });

  it.skipIf(!available)('lists the objects under a folder prefix with their sizes, and nothing beside it', async () => {
    const folder = `${newKey()}/`;
    await store.write(`${folder}a`, Buffer.alloc(3));
    await store.write(`${folder}sub/b`, Buffer.alloc(5));
    await store.write(`${folder.slice(0, -1)}x`, Buffer.alloc(7));
    const listed = [];
    for await (const blob of store.listPrefix(folder)) listed.push(blob);
    expect(listed.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { key: `${folder}a`, size: 3 },
      { key: `${folder}sub/b`, size: 5 },
    ]);
    const none = [];
    for await (const blob of store.listPrefix(`${newKey()}/`)) none.push(blob);
    expect(none).toEqual([]);
  });

  it.skipIf(!available)('deletes an object, idempotently', async () => {
    const key = newKey();
    await store.write(key, Buffer.from('bytes'));
    await store.delete(key);
    expect(await store.head(key)).toBeUndefined();
    await store.delete(key);
  });

  it.skipIf(!available)('deletes every object under a prefix and nothing else', async () => {
    const root = `${prefix}/prefix-${randomUUID().slice(0, 6)}`;
    const keys = [`${root}/a/1.bin`, `${root}/a/deep/2.bin`, `${root}/ab/3.bin`, `${root}/b/4.bin`];
    for (const key of keys) await store.write(key, Buffer.from(key));
    await store.deletePrefix(`${root}/a/`);
    expect(await Promise.all(keys.map(async (key) => Boolean(await store.head(key))))).toEqual([false, false, true, true]);
    await store.deletePrefix(`${root}/a`);
    expect(await Promise.all(keys.map(async (key) => Boolean(await store.head(key))))).toEqual([false, false, false, true]);
    await store.deletePrefix(`${root}/nothing-here/`);
    await expect(store.deletePrefix('')).rejects.toThrow();
  });
});
