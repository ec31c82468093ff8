import { detectPointCloudFormat } from '../../processing/point-clouds/detect-format.js';

/**
 * What a file really is, from its first bytes, and what its name promises. Finalize compares the
 * two (FileNotCompatible): a ".las" must start like a LAS file whatever the client declared.
 * No I/O: the caller reads the first bytes.
 */

export type FileFormat =
  | 'las'
  | 'laz'
  | 'e57'
  | 'ply'
  | 'text-points'
  | 'pdf'
  | 'png'
  | 'jpeg'
  | 'zip'
  | 'mp4'
  | 'ifc'
  | 'json'
  | 'text';

/** How many leading bytes detectFormat needs. */
export { DETECT_BYTES as FORMAT_PROBE_BYTES } from '../../processing/point-clouds/detect-format.js';

const EXTENSIONS: Record<string, FileFormat> = {
  las: 'las',
  laz: 'laz',
  e57: 'e57',
  ply: 'ply',
  xyz: 'text-points',
  pts: 'text-points',
  txt: 'text',
  csv: 'text',
  pdf: 'pdf',
  png: 'png',
  jpg: 'jpeg',
  jpeg: 'jpeg',
  zip: 'zip',
  mp4: 'mp4',
  mov: 'mp4',
  ifc: 'ifc',
  json: 'json',
};

/** The format a file name promises by its extension, or null when it promises none we know. */
export function expectedFormat(fileName: string): FileFormat | null {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return null;
  return EXTENSIONS[fileName.slice(dot + 1).toLowerCase()] ?? null;
}

const startsWith = (bytes: Uint8Array, prefix: string, at = 0) =>
  bytes.length >= at + prefix.length && [...prefix].every((char, index) => bytes[at + index] === char.charCodeAt(0));

/** Printable text (UTF-8 without NUL or other control bytes but tab, CR, LF). */
function isText(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  for (const byte of bytes) if (byte === 0 || (byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 13)) return false;
  try {
    // A multi-byte sequence cut by the probe's end is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, Math.max(0, bytes.length - 3)));
    return true;
  } catch {
    return false;
  }
}

/** The format the bytes show, or null when none we know. */
export function detectFormat(bytes: Uint8Array): FileFormat | null {
  // Point clouds as the processors read them (one detector for finalize and processing).
  const pointCloud = detectPointCloudFormat(bytes);
  if (pointCloud) return pointCloud === 'xyz' || pointCloud === 'pts' ? 'text-points' : pointCloud;
  if (startsWith(bytes, '%PDF-')) return 'pdf';
  if (startsWith(bytes, '\x89PNG\r\n\x1a\n')) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (startsWith(bytes, 'PK\x03\x04')) return 'zip';
  if (startsWith(bytes, 'ftyp', 4)) return 'mp4';
  if (startsWith(bytes, 'ISO-10303-21')) return 'ifc';
  if (isText(bytes)) {
    const first = new TextDecoder().decode(bytes).trimStart()[0];
    return first === '{' || first === '[' ? 'json' : 'text';
  }
  return null;
}

/** Whether what the bytes are satisfies what the name promised; a name that promises nothing takes anything. */
export function isCompatible(expected: FileFormat | null, actual: FileFormat | null): boolean {
  if (expected === null) return true;
  if (expected === actual) return true;
  // Point lists and JSON are text too; a .txt or .csv of numbers is still text.
  return expected === 'text' && (actual === 'text-points' || actual === 'json');
}

/** Inputs processing knows: point clouds become 3D Tiles, videos are checked and reconstructed. */
export function inputKind(format: string | null): 'point-cloud' | 'video' | null {
  if (format === 'las' || format === 'laz' || format === 'e57' || format === 'ply' || format === 'text-points')
    return 'point-cloud';
  if (format === 'mp4') return 'video';
  return null;
}
