import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etagOfBytes, quoteEtag } from '../../src/domain/uploads/etag.js';
import type { BlobStore } from '../../src/ports/blob-store.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

/**
 * The embedded blob endpoint over HTTP, beyond the store contract: bodies of the wrong length,
 * bodies larger than the JSON limit, ranges, HEAD, and what is left on disk after a refusal.
 */
const MIB = 1024 * 1024;
let test: TestPlatform;
let store: BlobStore;
let blobsDir: string;
const later = () => new Date(test.clock.now().getTime() + 3600_000);
const newKey = () => `endpoint/${randomUUID().slice(0, 8)}/file.bin`;

/** A PUT with node:http, to send a body of another length than declared, or chunked. */
function rawPut(
  url: string,
  chunks: Buffer[],
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'PUT', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    request.on('error', reject);
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}

const leftovers = () => fs.readdirSync(path.join(blobsDir, 'tmp'));

beforeAll(async () => {
  test = await startPlatform({ RDP_UPLOAD_PART_SIZE_BYTES: String(5 * MIB) });
  store = test.platform.blobs;
  blobsDir = path.join(test.dataDir, 'blobs');
});
afterAll(() => test?.close());

describe('PUT through the embedded endpoint', () => {
  it('streams a body far above the JSON body limit, whatever its declared type', async () => {
    const key = newKey();
    const data = randomBytes(4 * MIB);
    const plan = await store.beginUpload(key, data.length, later());
    if (plan.kind !== 'single') throw new Error('expected one PUT');
    const response = await rawPut(plan.url, [data], {
      'content-type': 'application/json',
      'content-length': String(data.length),
    });
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBe(quoteEtag(etagOfBytes(data)));
    expect(await store.head(key)).toEqual({ size: data.length, etag: etagOfBytes(data) });
  });

  it('refuses a Content-Length other than the signed size before reading, and stores nothing', async () => {
    const key = newKey();
    const plan = await store.beginUpload(key, 1000, later());
    if (plan.kind !== 'single') throw new Error('expected one PUT');
    const response = await fetch(plan.url, { method: 'PUT', body: randomBytes(999) as BodyInit });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      statusCode: 400,
      error: 'BadRequest',
      message: 'Content-Length 999 differs from the signed size 1000',
    });
    expect(await store.head(key)).toBeUndefined();
    expect(leftovers()).toEqual([]);
  });

  it('refuses a chunked body longer or shorter than the signed size, and leaves no file', async () => {
    const key = newKey();
    const plan = await store.beginUpload(key, 100_000, later());
    if (plan.kind !== 'single') throw new Error('expected one PUT');
    const longer = await rawPut(plan.url, [randomBytes(60_000), randomBytes(60_000)]);
    expect(longer.status).toBe(400);
    expect(JSON.parse(longer.body).message).toBe('the body has more bytes where 100000 were signed');
    const shorter = await rawPut(plan.url, [randomBytes(60_000), randomBytes(39_999)]);
    expect(shorter.status).toBe(400);
    expect(JSON.parse(shorter.body).message).toBe('the body has 99999 bytes where 100000 were signed');
    expect(await store.head(key)).toBeUndefined();
    expect(leftovers()).toEqual([]);
    const exact = randomBytes(100_000);
    const ok = await rawPut(plan.url, [exact.subarray(0, 50_000), exact.subarray(50_000)]);
    expect(ok.status).toBe(200);
    expect(await store.head(key)).toEqual({ size: exact.length, etag: etagOfBytes(exact) });
  });

  it('leaves nothing behind when the client goes away mid-body', async () => {
    const key = newKey();
    const plan = await store.beginUpload(key, 4 * MIB, later());
    if (plan.kind !== 'single') throw new Error('expected one PUT');
    const request = http.request(plan.url, { method: 'PUT', headers: { 'content-length': String(4 * MIB) } });
    request.on('error', () => {});
    request.write(randomBytes(MIB));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(leftovers()).toHaveLength(1);
    request.destroy();
    const deadline = Date.now() + 5000;
    while (leftovers().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(leftovers()).toEqual([]);
    expect(await store.head(key)).toBeUndefined();
  });

  it('completes once when two completions of one upload race', async () => {
    const key = newKey();
    const size = 5 * MIB + 100;
    const plan = await store.beginUpload(key, size, later());
    if (plan.kind !== 'multipart') throw new Error('expected multipart');
    const data = randomBytes(size);
    for (const part of plan.parts) {
      const start = (part.partNumber - 1) * plan.partSize;
      await rawPut(part.url, [data.subarray(start, start + part.size)]);
    }
    const [one, two] = await Promise.all([
      store.completeUpload(key, { uploadId: plan.uploadId, size }),
      store.completeUpload(key, { uploadId: plan.uploadId, size }),
    ]);
    const expected = { size, etag: etagOfBytes(data, 5 * MIB) };
    expect(one).toEqual(expected);
    expect(two).toEqual(expected);
    expect(await store.head(key)).toEqual(expected);
  });

  it('refuses a part of an aborted upload with 404', async () => {
    const key = newKey();
    const plan = await store.beginUpload(key, 6 * MIB, later());
    if (plan.kind !== 'multipart') throw new Error('expected multipart');
    await store.abortUpload(key, plan.uploadId);
    const part = plan.parts[1];
    const response = await fetch(part?.url as string, { method: 'PUT', body: randomBytes(part?.size ?? 0) as BodyInit });
    expect(response.status).toBe(404);
    expect(fs.readdirSync(path.join(blobsDir, 'uploads'))).not.toContain(plan.uploadId);
  });
});

describe('GET through the embedded endpoint', () => {
  const data = randomBytes(5000);
  let url: string;
  beforeAll(async () => {
    const key = newKey();
    await store.write(key, data);
    url = await store.downloadUrl(key, later(), { fileName: 'Relevé 2024 "nord".e57' });
  });

  it('answers the whole file with its ETag, type, length and file name', async () => {
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('etag')).toBe(quoteEtag(etagOfBytes(data)));
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-length')).toBe('5000');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Relev_ 2024 _nord_.e57"; filename*=UTF-8''Relev%C3%A9%202024%20%22nord%22.e57`,
    );
    expect(
      createHash('md5')
        .update(Buffer.from(await response.arrayBuffer()))
        .digest('hex'),
    ).toBe(etagOfBytes(data));
  });

  it('answers a suffix range with 206 and an unsatisfiable one with 416', async () => {
    const tail = await fetch(url, { headers: { range: 'bytes=-100' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe('bytes 4900-4999/5000');
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(data.subarray(4900));
    const beyond = await fetch(url, { headers: { range: 'bytes=5000-' } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe('bytes */5000');
    expect(beyond.headers.get('content-disposition')).toBeNull();
    expect(await beyond.json()).toEqual({
      statusCode: 416,
      error: 'Range Not Satisfiable',
      message: 'The range starts beyond the end of the file',
    });
    const several = await fetch(url, { headers: { range: 'bytes=0-1,5-6' } });
    expect(several.status).toBe(200);
    expect((await several.arrayBuffer()).byteLength).toBe(5000);
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await fetch(url, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('5000');
    expect(response.headers.get('etag')).toBe(quoteEtag(etagOfBytes(data)));
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers 404 for a signed address whose file is gone, and 403 once it has expired', async () => {
    const key = newKey();
    const gone = await store.downloadUrl(key, later(), { fileName: 'x.bin' });
    expect((await fetch(gone)).status).toBe(404);
    const soon = await store.downloadUrl(key, new Date(test.clock.now().getTime() + 1000), { fileName: 'x.bin' });
    test.clock.advance(2000);
    const expired = await fetch(soon);
    expect(expired.status).toBe(403);
    expect((await expired.json()).message).toBe('The signed address has expired');
  });
});
