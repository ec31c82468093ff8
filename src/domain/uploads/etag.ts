import { createHash } from 'node:crypto';

/**
 * ETags exactly as S3 computes them, so a client can check what it uploaded: for an object
 * stored by one PUT, the MD5 of its bytes in hex; for a multipart upload, the MD5 of the
 * concatenated binary MD5s of its parts, in hex, then `-N` for N parts.
 *
 * Stored and passed around bare (`9e10...`, `3858...-4`); HTTP headers carry it quoted.
 */
export function singlePutEtag(md5: Buffer): string {
  return md5.toString('hex');
}

export function multipartEtag(partMd5s: readonly Buffer[]): string {
  if (partMd5s.length === 0) throw new Error('a multipart upload has at least one part');
  const digest = createHash('md5');
  for (const md5 of partMd5s) digest.update(md5);
  return `${digest.digest('hex')}-${partMd5s.length}`;
}

/** The ETag S3 gives these bytes: one PUT, or multipart cut every `partSize` bytes. */
export function etagOfBytes(bytes: Buffer, partSize?: number): string {
  const md5 = (data: Buffer) => createHash('md5').update(data).digest();
  if (partSize === undefined) return singlePutEtag(md5(bytes));
  const parts: Buffer[] = [];
  for (let start = 0; start < bytes.length || parts.length === 0; start += partSize) {
    parts.push(md5(bytes.subarray(start, start + partSize)));
  }
  return multipartEtag(parts);
}

/** The header form: `"<etag>"`. */
export function quoteEtag(etag: string): string {
  return `"${etag}"`;
}

const ETAG = /^[0-9a-f]{32}(-[1-9][0-9]{0,4})?$/;

/**
 * An ETag as a client sends it back (quoted or bare, any case, weak prefix tolerated) in the
 * stored form, or undefined when it is not an S3-style ETag at all (missing, too short...).
 */
export function parseEtag(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const bare = raw
    .trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1')
    .toLowerCase();
  return ETAG.test(bare) ? bare : undefined;
}

/**
 * Whether an If-None-Match header (RFC 9110 section 13.1.2: "*" or a list of entity tags,
 * compared weakly, W/ ignored) matches this quoted ETag: then a GET answers 304.
 */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}
