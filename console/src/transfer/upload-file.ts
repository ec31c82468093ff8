import { multipartEtag } from './multipart-etag.js';
import { putPart } from './put-part.js';

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
 * PUT, or for parts the MD5 of their MD5s, then "-" and their count, as S3 makes it.
 */
export async function uploadFile(file: Blob, target: UploadTarget, onSent: (bytes: number) => void): Promise<string> {
  const never = new AbortController().signal;
  if (target.uploadUrl) {
    return putPart({ partNumber: 1, size: file.size, uploadUrl: target.uploadUrl }, file, never, onSent);
  }
  const parts = target.parts ?? [];
  const partSize = target.partSize ?? 0;
  const sent = new Map<number, number>();
  const etags: string[] = [];
  let next = 0;
  async function sendParts() {
    while (next < parts.length) {
      const part = parts[next++] as (typeof parts)[number];
      const start = (part.partNumber - 1) * partSize;
      etags[part.partNumber - 1] = await putPart(part, file.slice(start, start + part.size), never, (bytes) => {
        sent.set(part.partNumber, bytes);
        onSent([...sent.values()].reduce((sum, value) => sum + value, 0));
      });
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARTS_AT_ONCE, parts.length) }, sendParts));
  return multipartEtag(etags);
}
