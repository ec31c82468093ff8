/**
 * How an upload is cut into parts. S3's limits apply to every store alike, so a plan made for
 * the filesystem would also be valid on S3: parts of at least 5 MiB (except the last), at most
 * 10,000 parts, objects of at most 5 TiB.
 */
export const MIN_PART_SIZE = 5 * 1024 * 1024;
export const MAX_PARTS = 10_000;
export const MAX_OBJECT_SIZE = 5 * 1024 ** 4;
const MIB = 1024 * 1024;

export interface PlannedPart {
  partNumber: number;
  size: number;
}

/** Above `partSize` bytes an upload is multipart; at or below, one PUT. */
export function isMultipart(size: number, partSize: number): boolean {
  return size > partSize;
}

/** The configured part size, grown (in whole MiB) when the object would need more than 10,000 parts. */
export function partSizeFor(size: number, configured: number): number {
  if (configured < MIN_PART_SIZE) throw new Error(`a part size is at least ${MIN_PART_SIZE} bytes`);
  if (Math.ceil(size / configured) <= MAX_PARTS) return configured;
  return Math.ceil(size / MAX_PARTS / MIB) * MIB;
}

/** The parts of a multipart upload of `size` bytes, numbered from 1, all but the last `partSize` long. */
export function planParts(size: number, partSize: number): PlannedPart[] {
  if (!Number.isSafeInteger(size) || size < 1) throw new Error('a multipart upload has at least one byte');
  const count = Math.ceil(size / partSize);
  if (count > MAX_PARTS) throw new Error(`${size} bytes in parts of ${partSize} exceed ${MAX_PARTS} parts`);
  return Array.from({ length: count }, (_, i) => ({
    partNumber: i + 1,
    size: i + 1 < count ? partSize : size - partSize * (count - 1),
  }));
}

/** Why an upload of this declared size cannot be accepted, or undefined when it can. */
export function uploadSizeProblem(size: number): string | undefined {
  if (!Number.isSafeInteger(size) || size < 0) return 'size must be a whole number of bytes';
  if (size > MAX_OBJECT_SIZE) return `size must be at most ${MAX_OBJECT_SIZE} bytes (5 TiB)`;
  return undefined;
}
