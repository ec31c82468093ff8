/** The point-cloud formats the processing reads, known from a file's content. */
export type PointCloudFormat = 'las' | 'laz' | 'ply' | 'e57' | 'xyz' | 'pts';

/** Bytes a caller should read from the start of a file for detectPointCloudFormat. */
export const DETECT_BYTES = 4096;

const LAS_POINT_FORMAT_OFFSET = 104;

/**
 * The format from the content, never from the name: magic bytes for the binary formats, the
 * shape of the first lines for the text ones. Undefined when it is none we read.
 */
export function detectPointCloudFormat(firstBytes: Uint8Array): PointCloudFormat | undefined {
  const head = Buffer.from(firstBytes.buffer, firstBytes.byteOffset, firstBytes.byteLength);
  if (head.length >= 4 && head.toString('latin1', 0, 4) === 'LASF') {
    if (head.length <= LAS_POINT_FORMAT_OFFSET) return undefined;
    // LASzip marks compression with the two high bits of the point data format id.
    return (head[LAS_POINT_FORMAT_OFFSET]! & 0xc0) !== 0 ? 'laz' : 'las';
  }
  if (head.length >= 8 && head.toString('latin1', 0, 8) === 'ASTM-E57') return 'e57';
  if (/^ply\r?\n/.test(head.toString('latin1', 0, 5))) return 'ply';
  return detectText(head);
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function detectText(head: Buffer): PointCloudFormat | undefined {
  if (head.includes(0)) return undefined;
  const text = head.toString('utf8');
  const lines = text.split(/\r?\n/);
  // The last line may be cut by the read; judge only complete ones.
  if (lines.length > 1) lines.pop();
  const rows = lines.map((line) => line.trim()).filter((line) => line.length > 0 && !line.startsWith('#'));
  if (rows.length === 0) return undefined;
  const fields = rows.map((row) => row.split(/[\s,;]+/));
  if (!fields.every((row) => row.every((field) => NUMBER.test(field)))) return undefined;
  const first = fields[0]!;
  if (first.length === 1 && /^\d+$/.test(first[0]!)) {
    return fields.slice(1).every((row) => row.length >= 3 || row.length === 1) && fields.length > 1 ? 'pts' : undefined;
  }
  return fields.every((row) => row.length >= 3 && row.length <= 9) ? 'xyz' : undefined;
}
