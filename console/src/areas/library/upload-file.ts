import { md5Hex } from './md5.js';

/** Where a creation answer says to PUT a file: one address, or parts (as site files answer). */
export interface UploadTarget {
  uploadUrl?: string;
  partSize?: number;
  parts?: { partNumber: number; size: number; uploadUrl: string }[];
}

const PARTS_AT_ONCE = 3;

/**
 * PUTs a file to the signed addresses of `target` (they carry their authorization: no token),
 * reporting the bytes sent, and answers the ETag finalize checks: the store's ETag of a single
 * PUT, or for parts the MD5 of their MD5s, then "-" and their count, as S3 makes it. The SDK's
 * upload helpers read files with Node.js; in a page, XMLHttpRequest is what reports upload progress.
 */
export async function uploadFile(file: Blob, target: UploadTarget, onSent: (bytes: number) => void): Promise<string> {
  if (target.uploadUrl) return putBytes(target.uploadUrl, file, onSent);
  const parts = target.parts ?? [];
  const partSize = target.partSize ?? 0;
  const sent = new Map<number, number>();
  const report = () => onSent([...sent.values()].reduce((sum, bytes) => sum + bytes, 0));
  const etags: string[] = [];
  let next = 0;
  async function sendParts() {
    while (next < parts.length) {
      const part = parts[next++] as (typeof parts)[number];
      const start = (part.partNumber - 1) * partSize;
      etags[part.partNumber - 1] = await putBytes(part.uploadUrl, file.slice(start, start + part.size), (bytes) => {
        sent.set(part.partNumber, bytes);
        report();
      });
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARTS_AT_ONCE, parts.length) }, sendParts));
  const digests = new Uint8Array(etags.length * 16);
  etags.forEach((etag, index) => {
    for (let byte = 0; byte < 16; byte++) digests[index * 16 + byte] = Number.parseInt(etag.slice(byte * 2, byte * 2 + 2), 16);
  });
  return `${md5Hex(digests)}-${etags.length}`;
}

/** One PUT; answers the bare ETag the store gave. */
function putBytes(url: string, body: Blob, onSent: (bytes: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', url);
    request.upload.onprogress = (event) => onSent(event.loaded);
    request.onload = () => {
      const etag = request.getResponseHeader('etag')?.replaceAll('"', '');
      if (request.status >= 200 && request.status < 300 && etag) {
        onSent(body.size);
        resolve(etag);
      } else reject(new Error(`The file's upload was refused (${request.status}). Try again.`));
    };
    request.onerror = () => reject(new TypeError('The upload could not reach the storage.'));
    request.send(body);
  });
}
