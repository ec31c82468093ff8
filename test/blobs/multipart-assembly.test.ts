import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilesystemBlobStore } from '../../src/adapters/blobs/filesystem-blob-store.js';
import { etagOfBytes } from '../../src/domain/uploads/etag.js';
import type { UploadPlan } from '../../src/ports/blob-store.js';

/**
 * The filesystem store's multipart uploads, assembled in place: every part is written at its
 * offset into one file of the upload and completion renames that file (no byte copied). What
 * the contract suite cannot see: parts sent again, at once, or cut short; a completion while a
 * part arrives; a completion cut short after its rename; an upload begun before this layout.
 */
const MIB = 1024 * 1024;
const PART = 5 * MIB;
const SIZE = 2 * PART + 1000;
let root: string;
let store: FilesystemBlobStore;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-assembly-'));
  store = await FilesystemBlobStore.open({
    root,
    publicBaseUrl: 'http://127.0.0.1:1/blob',
    signingKey: Buffer.alloc(32, 2),
    partSize: PART,
  });
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

type Multipart = Extract<UploadPlan, { kind: 'multipart' }>;
const later = () => new Date(Date.now() + 3600_000);
const newKey = () => `assembly/${randomUUID().slice(0, 8)}/scan.e57`;
const uploadDir = (plan: Multipart) => path.join(root, 'uploads', plan.uploadId);
const objectBytes = (key: string) => fs.readFileSync(path.join(root, 'objects', key));

async function begin(key: string, size = SIZE): Promise<Multipart> {
  const plan = await store.beginUpload(key, size, later());
  if (plan.kind !== 'multipart') throw new Error('expected multipart');
  return plan;
}

function slice(data: Buffer, partNumber: number): Buffer {
  return data.subarray((partNumber - 1) * PART, Math.min(data.length, partNumber * PART));
}

/** A part's PUT as the endpoint hands it to the store, from any readable body. */
function sendPart(key: string, plan: Multipart, partNumber: number, body: Readable | Buffer) {
  const size = plan.parts[partNumber - 1]?.size;
  const grant = { method: 'PUT' as const, key, size, uploadId: plan.uploadId, partNumber, expiresAt: later() };
  return store.receive(grant, Buffer.isBuffer(body) ? Readable.from([body]) : body);
}

async function sendAll(key: string, plan: Multipart, data: Buffer, except: number[] = []): Promise<void> {
  for (const part of plan.parts) {
    if (!except.includes(part.partNumber)) await sendPart(key, plan, part.partNumber, slice(data, part.partNumber));
  }
}

describe('multipart uploads assembled in place', () => {
  it('completes by renaming the file the parts were written into, and leaves nothing behind', async () => {
    const key = newKey();
    const plan = await begin(key);
    const data = randomBytes(SIZE);
    // Out of order: the last part first, so the file is as long as the object before the others arrive.
    for (const partNumber of [3, 1, 2]) {
      expect(await sendPart(key, plan, partNumber, slice(data, partNumber))).toEqual({
        size: plan.parts[partNumber - 1]?.size,
        etag: etagOfBytes(slice(data, partNumber)),
      });
    }
    const assemblyIno = fs.statSync(path.join(uploadDir(plan), 'object')).ino;
    const expected = { size: SIZE, etag: etagOfBytes(data, PART) };
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: SIZE })).toEqual(expected);
    expect(fs.statSync(path.join(root, 'objects', key)).ino).toBe(assemblyIno);
    expect(objectBytes(key).equals(data)).toBe(true);
    expect(await store.head(key)).toEqual(expected);
    expect(fs.existsSync(uploadDir(plan))).toBe(false);
    expect(fs.readdirSync(path.join(root, 'tmp'))).toEqual([]);
    // Completed: called again it answers the stored object; a late part is refused.
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: SIZE })).toEqual(expected);
    await expect(sendPart(key, plan, 1, slice(data, 1))).rejects.toThrow(/no part 1/);
  });

  it('takes a part sent again over the first, its neighbours untouched', async () => {
    const key = newKey();
    const plan = await begin(key);
    const first = randomBytes(SIZE);
    await sendAll(key, plan, first);
    const second = Buffer.from(first);
    randomBytes(PART).copy(second, PART);
    expect((await sendPart(key, plan, 2, slice(second, 2))).etag).toBe(etagOfBytes(slice(second, 2)));
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: SIZE })).toEqual({
      size: SIZE,
      etag: etagOfBytes(second, PART),
    });
    expect(objectBytes(key).equals(second)).toBe(true);
  });

  it('forgets a part whose second sending is cut short, and completes once it is sent whole', async () => {
    const key = newKey();
    const plan = await begin(key);
    const data = randomBytes(SIZE);
    await sendAll(key, plan, data);
    await expect(sendPart(key, plan, 2, randomBytes(PART - 1))).rejects.toThrow(/were signed/);
    // The old record went before the rewrite: the part is missing, not believed with mixed bytes.
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: SIZE })).toBeUndefined();
    expect(await store.head(key)).toBeUndefined();
    await sendPart(key, plan, 2, slice(data, 2));
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: SIZE })).toEqual({
      size: SIZE,
      etag: etagOfBytes(data, PART),
    });
    expect(objectBytes(key).equals(data)).toBe(true);
  });

  it('never writes a byte past its part: a body too long leaves the next part as it was', async () => {
    const key = newKey();
    const plan = await begin(key);
    const data = randomBytes(SIZE);
    await sendAll(key, plan, data);
    await expect(sendPart(key, plan, 1, randomBytes(PART + MIB))).rejects.toThrow(/were signed/);
    await sendPart(key, plan, 1, slice(data, 1));
    await store.completeUpload(key, { uploadId: plan.uploadId, size: SIZE });
    expect(objectBytes(key).equals(data)).toBe(true);
  });

  it('takes two sendings of one part at once one after the other: the object holds one of them whole', async () => {
    const key = newKey();
    const plan = await begin(key);
    const data = randomBytes(SIZE);
    await sendAll(key, plan, data, [2]);
    const a = randomBytes(PART);
    const b = randomBytes(PART);
    // Both bodies trickle in interleaved; unserialised, the file would hold a mix of the two.
    const bodyA = new PassThrough();
    const bodyB = new PassThrough();
    const sent = Promise.all([sendPart(key, plan, 2, bodyA), sendPart(key, plan, 2, bodyB)]);
    for (let offset = 0; offset < PART; offset += MIB) {
      bodyA.write(a.subarray(offset, offset + MIB));
      bodyB.write(b.subarray(offset, offset + MIB));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    bodyA.end();
    bodyB.end();
    const [infoA, infoB] = await sent;
    expect([infoA.etag, infoB.etag]).toEqual([etagOfBytes(a), etagOfBytes(b)]);
    const info = await store.completeUpload(key, { uploadId: plan.uploadId, size: SIZE });
    const part2 = objectBytes(key).subarray(PART, 2 * PART);
    const winner = part2.equals(a) ? a : b;
    expect(part2.equals(winner)).toBe(true);
    const expected = Buffer.concat([slice(data, 1), winner, slice(data, 3)]);
    expect(info).toEqual({ size: SIZE, etag: etagOfBytes(expected, PART) });
  });

  it('does not complete while a part is arriving; the part lands and the next completion succeeds', async () => {
    const key = newKey();
    const plan = await begin(key);
    const data = randomBytes(SIZE);
    await sendAll(key, plan, data, [3]);
    const body = new PassThrough();
    const arriving = sendPart(key, plan, 3, body);
    body.write(slice(data, 3).subarray(0, 10));
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: SIZE })).toBeUndefined();
    body.end(slice(data, 3).subarray(10));
    await arriving;
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: SIZE })).toEqual({
      size: SIZE,
      etag: etagOfBytes(data, PART),
    });
  });

  it('finishes a completion cut short after its rename, with the multipart ETag', async () => {
    const key = newKey();
    const plan = await begin(key);
    const data = randomBytes(SIZE);
    await sendAll(key, plan, data);
    // What a process killed right after the rename leaves: the object without its metadata, the upload still there.
    fs.mkdirSync(path.dirname(path.join(root, 'objects', key)), { recursive: true });
    fs.renameSync(path.join(uploadDir(plan), 'object'), path.join(root, 'objects', key));
    // Read meanwhile, its ETag is recomputed from the bytes, as for any object without metadata...
    expect(await store.head(key)).toEqual({ size: SIZE, etag: etagOfBytes(data) });
    // ...and the completion done again restores the multipart one and removes the upload.
    const expected = { size: SIZE, etag: etagOfBytes(data, PART) };
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: SIZE })).toEqual(expected);
    expect(await store.head(key)).toEqual(expected);
    expect(fs.existsSync(uploadDir(plan))).toBe(false);
  });

  it('does not take another object under the key for this upload when its file is gone', async () => {
    const key = newKey();
    const plan = await begin(key);
    await sendAll(key, plan, randomBytes(SIZE));
    fs.rmSync(path.join(uploadDir(plan), 'object'));
    const other = randomBytes(SIZE);
    await store.write(key, other);
    expect(await store.completeUpload(key, { uploadId: plan.uploadId, size: SIZE })).toBeUndefined();
    expect(await store.head(key)).toEqual({ size: SIZE, etag: etagOfBytes(other) });
  });

  it('completes an upload begun before assembly in place (a manifest without inode, one file per part)', async () => {
    const key = newKey();
    const uploadId = randomBytes(16).toString('hex');
    const dir = path.join(root, 'uploads', uploadId);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ key, size: SIZE, partSize: PART }));
    const plan: Multipart = {
      kind: 'multipart',
      uploadId,
      partSize: PART,
      expiresAt: later(),
      parts: [1, 2, 3].map((partNumber) => ({ partNumber, size: partNumber < 3 ? PART : 1000, url: '' })),
    };
    const data = randomBytes(SIZE);
    await sendAll(key, plan, data, [3]);
    expect(fs.readdirSync(dir).sort()).toEqual(['manifest.json', 'part-00001', 'part-00002']);
    expect(await store.completeUpload(key, { uploadId, size: SIZE })).toBeUndefined();
    await sendPart(key, plan, 3, slice(data, 3));
    expect(await store.completeUpload(key, { uploadId, size: SIZE })).toEqual({ size: SIZE, etag: etagOfBytes(data, PART) });
    expect(objectBytes(key).equals(data)).toBe(true);
    expect(fs.existsSync(dir)).toBe(false);
  });
});
