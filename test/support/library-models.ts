import { createHash } from 'node:crypto';
import { multipartEtag, singlePutEtag } from '../../src/domain/uploads/etag.js';
import type { UploadTarget } from './uploads.js';

/** A small real OBJ: a triangle. */
export function triangleObj(comment = ''): Buffer {
  return Buffer.from(`# ${comment}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n`);
}

const OBJ_HEAD = Buffer.from('# generated OBJ of an exact size\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n');
const PADDING_LINE = 64;

/**
 * The bytes [start, start + length) of an OBJ of `size` bytes: a few v/f lines, then `#` comment
 * lines of 64 bytes to the end (the last one ends with a newline). Made on demand, a part at a
 * time: a file of hundreds of MiB is never held whole, nor kept anywhere.
 */
export function generatedObjSlice(size: number, start: number, length: number): Buffer {
  const slice = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    const at = start + i;
    if (at < OBJ_HEAD.length) slice[i] = OBJ_HEAD[at] as number;
    else {
      const padding = at - OBJ_HEAD.length;
      slice[i] =
        padding % PADDING_LINE === PADDING_LINE - 1 || at === size - 1 ? 0x0a : padding % PADDING_LINE === 0 ? 0x23 : 0x2e;
    }
  }
  return slice;
}

/** A faster fill for large slices: the padding pattern copied line by line. */
export function generatedObjPart(size: number, start: number, length: number): Buffer {
  if (start + length <= OBJ_HEAD.length || length < 4 * PADDING_LINE) return generatedObjSlice(size, start, length);
  const line = Buffer.alloc(PADDING_LINE, 0x2e);
  line[0] = 0x23;
  line[PADDING_LINE - 1] = 0x0a;
  const slice = Buffer.alloc(length);
  let i = 0;
  while (start + i < OBJ_HEAD.length && i < length) {
    slice[i] = OBJ_HEAD[start + i] as number;
    i++;
  }
  while (i < length) {
    const padding = start + i - OBJ_HEAD.length;
    const offset = padding % PADDING_LINE;
    const n = Math.min(PADDING_LINE - offset, length - i);
    line.copy(slice, i, offset, offset + n);
    i += n;
  }
  if (start + length === size) slice[length - 1] = 0x0a;
  return slice;
}

/**
 * Uploads bytes made part by part (`bytesOf(start, length)`) to the addresses an initiation
 * answered, one part in memory at a time; answers the ETag the store should have.
 */
export async function uploadGenerated(target: UploadTarget, size: number, bytesOf: (start: number, length: number) => Buffer) {
  const md5 = (data: Buffer) => createHash('md5').update(data).digest();
  if (target.uploadUrl) {
    const body = bytesOf(0, size);
    const response = await fetch(target.uploadUrl, { method: 'PUT', body: new Uint8Array(body) });
    if (response.status !== 200) throw new Error(`PUT answered ${response.status}: ${await response.text()}`);
    return singlePutEtag(md5(body));
  }
  const digests: Buffer[] = [];
  const partSize = target.partSize ?? 0;
  for (const part of target.parts ?? []) {
    const body = bytesOf((part.partNumber - 1) * partSize, part.size);
    const response = await fetch(part.uploadUrl, { method: 'PUT', body: new Uint8Array(body) });
    if (response.status !== 200) throw new Error(`part ${part.partNumber} answered ${response.status}: ${await response.text()}`);
    digests.push(md5(body));
  }
  return multipartEtag(digests);
}
